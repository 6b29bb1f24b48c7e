/** A path into a JSON document: object keys and array indices. */
export type JsonPath = readonly (string | number)[];

/**
 * A path as people read it: `mcpServers.fs.args[1]`, `headers.X-Api-Key`,
 * `mcpServers["my.server"]` (quoted when a key would be ambiguous).
 */
export function formatJsonPath(path: JsonPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z0-9_$-]+$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
