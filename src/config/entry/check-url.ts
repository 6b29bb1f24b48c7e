/** Why `value` is not a usable server URL, or undefined when it is. */
export function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a valid URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `"${value}" uses ${url.protocol.replace(/:$/, '')}; only http and https are supported`;
  }
  return undefined;
}
