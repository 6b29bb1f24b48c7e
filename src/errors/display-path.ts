/**
 * Paths as a person reads them: under the home folder, `~/…` (`~/.mcpx/mcp.json`, not
 * `/home/ada/.mcpx/mcp.json`), as seed 000's messages show them. Only for text a person reads:
 * `--json` and the library's own values keep absolute paths, which scripts need.
 */

const SEPARATOR = /[/\\]/;

/** `home` without its trailing separators; undefined when nothing could sensibly be shortened. */
function homeRoot(home: string | undefined): string | undefined {
  if (!home) return undefined;
  const root = home.replace(/[/\\]+$/, '');
  // A home of `/` (or `C:\`) is every path: shortening them all would say nothing.
  if (root === '' || /^[A-Za-z]:$/.test(root)) return undefined;
  return root;
}

/**
 * `path` as a person reads it: `~` for the home folder itself, `~/…` inside it, and anything
 * else unchanged (a path that merely starts with the same letters, `/home/ada2`, is not inside).
 *
 * @example
 * displayPath('/home/ada/.mcpx/mcp.json', '/home/ada') // '~/.mcpx/mcp.json'
 * displayPath('/home/ada2/mcp.json', '/home/ada')       // '/home/ada2/mcp.json'
 */
export function displayPath(path: string, home: string | undefined): string {
  const root = homeRoot(home);
  if (root === undefined || !path.startsWith(root)) return path;
  const rest = path.slice(root.length);
  if (rest === '') return '~';
  return SEPARATOR.test(rest[0] ?? '') ? `~${rest}` : path;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every path inside `home` that a message names, shortened as {@link displayPath} does. A path
 * is recognised where it starts a word (after a space, an opening bracket, a comma or a
 * semicolon) and ends at a separator or the end of the word. A path in quotes or after `=`
 * stays whole: that is how a fix spells a command to copy (`rm '/home/ada/.mcpx/run/x'`), and a
 * shell does not expand `~` there.
 *
 * @example
 * displayPaths('cannot read config file /home/ada/.mcpx/mcp.json: EACCES', '/home/ada')
 * // 'cannot read config file ~/.mcpx/mcp.json: EACCES'
 */
export function displayPaths(text: string, home: string | undefined): string {
  const root = homeRoot(home);
  if (root === undefined || !text.includes(root)) return text;
  const pattern = new RegExp(
    `(^|[\\s([{,;])${escapeRegExp(root)}(?=[/\\\\]|[\\s)\\]},;:!?]|\\.(?:\\s|$)|$)`,
    'gm',
  );
  return text.replace(pattern, '$1~');
}
