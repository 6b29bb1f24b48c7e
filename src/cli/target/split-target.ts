/** `server.tool` → its parts; the server name never contains a dot, the tool may. */
export function splitTarget(target: string): { server: string; name: string } | undefined {
  const dot = target.indexOf('.');
  if (dot <= 0 || dot === target.length - 1) return undefined;
  return { server: target.slice(0, dot), name: target.slice(dot + 1) };
}
