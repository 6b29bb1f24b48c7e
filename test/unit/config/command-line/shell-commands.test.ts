import { describe, expect, it } from 'vitest';
import { shellCommands } from '../../../../src/config/command-line/shell-commands.js';

describe('shellCommands', () => {
  it.each([
    ['mcpx serve', [], [['mcpx', 'serve']]],
    [`node "my server.js" --name 'a b' x\\ y`, [], [['node', 'my server.js', '--name', 'a b', 'x y']]],
    ['a; b && c || d | e & f', [], [['a'], ['b'], ['c'], ['d'], ['e'], ['f']]],
    ['a\nb # c; d\ne', [], [['a'], ['b'], ['e']]],
    ['a#b', [], [['a#b']]],
    ['(a) && { b; }', [], [['a'], ['{', 'b'], ['}']]],
    ['a >out 2>&1 <in b >> log c', [], [['a', 'b', 'c']]],
    ['a 2> err', [], [['a']]],
    [
      'echo $(b c) `d e`',
      [],
      [
        ['echo', '$(b c)', '`d e`'],
        ['b', 'c'],
        ['d', 'e'],
      ],
    ],
    [
      'echo "$(b "c d")"',
      [],
      [
        ['echo', '$(b "c d")'],
        ['b', 'c d'],
      ],
    ],
    ['diff <(a) x', [], [['diff', '<(a)', 'x'], ['a']]],
    ['exec "$0" "$@"', ['mcpx', 'serve', 'a b'], [['exec', 'mcpx', 'serve', 'a b']]],
    ['exec $0 $@', ['mcpx', 'serve', 'a b'], [['exec', 'mcpx', 'serve', 'a', 'b']]],
    ['x"$@"y', ['sh', '1', '2'], [['x1', '2y']]],
    ['"$@"', ['sh'], [['']]],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's syntax
    ['exec $1 ${2}', ['sh', 'mcpx', 'serve'], [['exec', 'mcpx', 'serve']]],
    ['echo $HOME "$PATH" ~ *', [], [['echo', '$HOME', '$PATH', '~', '*']]],
    ['echo "a\\"b" \'c\\\'', [], [['echo', 'a"b', 'c\\']]],
    ['a \\\n b', [], [['a', 'b']]],
    ['echo ""', [], [['echo', '']]],
  ] as const)('%j → %j', (line, params, commands) => {
    expect(shellCommands(line, params)).toEqual(commands);
  });

  it.each(['echo "open', "echo 'open", 'echo $(open', 'echo `open'])(
    '%j: a syntax error runs nothing',
    (line) => {
      expect(shellCommands(line)).toEqual([]);
    },
  );
});
