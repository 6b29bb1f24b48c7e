import { describe, expect, it } from 'vitest';
import { parseEnvCommand, splitEnvString } from '../../../../src/config/command-line/env-command.js';

describe('parseEnvCommand', () => {
  it.each([
    [['mcpx'], { command: ['mcpx'], cleared: false, unset: [], set: {} }],
    [
      ['-i', 'A=1', 'B=x=y', 'mcpx', 'C=2'],
      { command: ['mcpx', 'C=2'], cleared: true, unset: [], set: { A: '1', B: 'x=y' } },
    ],
    [['-', 'mcpx'], { command: ['mcpx'], cleared: true, unset: [], set: {} }],
    [['--ignore-environment', 'mcpx'], { command: ['mcpx'], cleared: true, unset: [], set: {} }],
    [['--ignore-e', 'mcpx'], { command: ['mcpx'], cleared: true, unset: [], set: {} }],
    [
      ['-u', 'A', '-uB', '--unset=C', '--unset', 'D', 'mcpx'],
      { command: ['mcpx'], cleared: false, unset: ['A', 'B', 'C', 'D'], set: {} },
    ],
    [['-iu', 'A', 'mcpx'], { command: ['mcpx'], cleared: true, unset: ['A'], set: {} }],
    [['-C', '/a', 'mcpx'], { command: ['mcpx'], cleared: false, unset: [], set: {}, chdir: '/a' }],
    [['-C/a', 'mcpx'], { command: ['mcpx'], cleared: false, unset: [], set: {}, chdir: '/a' }],
    [['--chdir=/a', 'mcpx'], { command: ['mcpx'], cleared: false, unset: [], set: {}, chdir: '/a' }],
    [['-v', '-0', '--debug', '--null', 'mcpx'], { command: ['mcpx'], cleared: false, unset: [], set: {} }],
    [
      ['--default-signal', '--ignore-signal=PIPE', '--block-signal', 'mcpx'],
      { command: ['mcpx'], cleared: false, unset: [], set: {} },
    ],
    [['-a', 'name', 'mcpx'], { command: ['mcpx'], cleared: false, unset: [], set: {} }],
    [['--', '-i'], { command: ['-i'], cleared: false, unset: [], set: {} }],
    // -S: the string is split and its words parsed again as env's own arguments.
    [
      ['-S', '-i A=1 mcpx serve', 'x'],
      { command: ['mcpx', 'serve', 'x'], cleared: true, unset: [], set: { A: '1' } },
    ],
    [['-iS', '-C /a mcpx'], { command: ['mcpx'], cleared: true, unset: [], set: {}, chdir: '/a' }],
    [['--split-string=-u A mcpx'], { command: ['mcpx'], cleared: false, unset: ['A'], set: {} }],
    [['A=1', '-i', 'mcpx'], { command: ['-i', 'mcpx'], cleared: false, unset: [], set: { A: '1' } }],
  ])('%j', (args, expected) => {
    expect(parseEnvCommand(args)).toEqual(expected);
  });

  it.each([
    [[]],
    [['-i']],
    [['A=1']],
    [['--help', 'mcpx']],
    [['--ig', 'mcpx']],
    [['--version']],
    [['-x', 'mcpx']],
    [['--d', 'mcpx']],
    [['-u']],
    [['--debug=1', 'mcpx']],
  ])('%j runs nothing', (args) => {
    expect(parseEnvCommand(args)).toBeUndefined();
  });
});

describe('splitEnvString', () => {
  it.each([
    ['a b\tc', ['a', 'b', 'c']],
    [`'a b' "c d" e\\_f`, ['a b', 'c d', 'e', 'f']],
    [`"a\\_b"`, ['a b']],
    [`a \\c b`, ['a']],
    [`a #b c`, ['a']],
    [`a#b`, ['a#b']],
    [`'it\\'s' "q\\"" \\t`, ["it's", 'q"', '\t']],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: env's own syntax, kept as written
    [`\${HOME}/x`, ['${HOME}/x']],
  ])('%j → %j', (text, words) => {
    expect(splitEnvString(text)).toEqual(words);
  });
});
