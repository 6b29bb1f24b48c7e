import { describe, expect, it } from 'vitest';
import { stripTerminalControls } from '../../../src/text/sanitize.js';

describe('stripTerminalControls', () => {
  it.each([
    ['colours', 'a\u001b[31mred\u001b[0m b', 'ared b'],
    ['screen clear and cursor moves', '\u001b[2J\u001b[Hx\u001b[10;5Hy', 'xy'],
    [
      'OSC-8 hyperlink keeps the visible text',
      '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\',
      'click',
    ],
    ['OSC-52 clipboard write', 'a\u001b]52;c;cm0gLXJmIH4=\u0007b', 'ab'],
    ['title change', '\u001b]0;pwned\u0007ok', 'ok'],
    ['8-bit CSI', 'a\u009b31mb', 'ab'],
    ['DCS string', 'a\u001bPq#0;2;0;0;0\u001b\\b', 'ab'],
    ['bare controls, backspace and bell', 'a\u0008b\u0007c\u0000d', 'abcd'],
    ['carriage return overwrite trick', 'safe\rEVIL', 'safeEVIL'],
    ['8-bit OSC-8 hyperlink', 'a\u009d8;;https://evil.example\u009cclick\u009d8;;\u009cb', 'aclickb'],
    ['OSC-52 ended by ST', 'a\u001b]52;p;ZXZpbA==\u001b\\b', 'ab'],
    ['an unterminated OSC swallowing the rest', 'a\u001b]52;c;ZXZpbA==', 'a'],
    ['C1 controls (NEL, CSI, APC)', 'a\u0085b\u009f_x\u009cc', 'abc'],
    ['private-mode CSI (hide cursor, alt screen)', 'a\u001b[?25l\u001b[?1049hb', 'ab'],
  ])('removes %s', (_name, input, expected) => {
    expect(stripTerminalControls(input)).toBe(expected);
  });

  it('keeps text, tabs, newlines, CRLF as LF, and Unicode', () => {
    expect(stripTerminalControls('a\tb\r\nc\nd — ü 🎉')).toBe('a\tb\nc\nd — ü 🎉');
  });
});
