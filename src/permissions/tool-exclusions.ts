/**
 * Tools left out of a session altogether (`mcpx serve --exclude-tools`): neither
 * offered nor callable. A glob matches `<server>.<tool>` or the bare `<tool>`;
 * `*` is any run of characters, `?` one, everything else literal.
 *
 * @example
 * const excluded = toolExclusions(['local.add*', 'delete_*']);
 * excluded('local', 'add_numbers'); // true
 */
export function toolExclusions(globs: readonly string[]): (server: string, tool: string) => boolean {
  const patterns = globs.map(globToRegExp);
  if (patterns.length === 0) return () => false;
  return (server, tool) => patterns.some((re) => re.test(tool) || re.test(`${server}.${tool}`));
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.+()[\]{}|/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}
