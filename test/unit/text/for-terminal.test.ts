import { describe, expect, it } from 'vitest';
import { toJson } from '../../../src/cli/output/json.js';
import { forTerminal } from '../../../src/text/sanitize.js';

const u = (code: number) => `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;

describe('forTerminal', () => {
  it('shows every bidi control, zero-width character, tag and other format character as <U+XXXX>', () => {
    const codes = [
      0x202a,
      0x202b,
      0x202c,
      0x202d,
      0x202e,
      0x2066,
      0x2067,
      0x2068,
      0x2069,
      0x200e,
      0x200f,
      0x061c, // bidi
      0x200b,
      0x200c,
      0x200d,
      0x2060,
      0xfeff, // zero-width
      0xe0000,
      0xe0041,
      0xe007f, // tags
      0x00ad,
      0x2061,
      0xfff9,
      0x110bd, // other Cf
    ];
    for (const code of codes) {
      expect(forTerminal(`a${String.fromCodePoint(code)}b`)).toBe(`a${u(code)}b`);
    }
  });

  it('drops escape sequences and controls, keeps tabs, newlines and ordinary text', () => {
    expect(forTerminal('x\u001b[31mred\u001b]0;title\u0007\u001b[2J\r\ny\tz é 中 😀')).toBe(
      'xred\ny\tz é 中 😀',
    );
  });
});

describe('the JSON writer', () => {
  it('escapes hidden characters and controls, and parses back to the exact text', () => {
    const text = 'a\u202Eb\u200Bc\u{E0041}d\u001b[2Je\u009bf\u00ad';
    const json = toJson({ text });
    expect(json).not.toMatch(/[\u202e\u200b\u00ad\u001b\u009b]|\u{E0041}/u);
    expect(json).toContain('\\u202e');
    expect(json).toContain('\\udb40\\udc41');
    expect(JSON.parse(json)).toEqual({ text });
  });
});
