import { describe, expect, it } from 'vitest';
import { forTerminal, redrawLine, relayed, say } from '../../../src/text/index.js';

const POISON = '\u202Eevil\u200B\u001b[2J\u001b]52;c;cHduZWQ=\u0007\u009b31m';

describe('say', () => {
  it('sanitises every value, whatever its type, and keeps the literal parts', () => {
    expect(say`tool ${`x${POISON}`} on ${42}: ${true}\n`).toBe('tool x<U+202E>evil<U+200B> on 42: true\n');
  });

  it('sanitises its literal parts too: not even mcpx writes a control sequence through it', () => {
    expect(say`\u001b[2Jcleared\u0007\ttab\n`).toBe('cleared\ttab\n');
  });

  it('leaves text already made safe as it is (sanitising twice changes nothing)', () => {
    const once = forTerminal(`a${POISON}b`);
    expect(say`${once}`).toBe(once);
    expect(forTerminal(once)).toBe(once);
  });

  it("sanitises each value on its own: an unterminated sequence in a value cannot eat mcpx's words", () => {
    expect(say`${'\u001b]0;'} is the title, and ${'x'} follows`).toBe(' is the title, and x follows');
  });
});

describe('redrawLine', () => {
  it("is mcpx's one control sequence: back to the line's start, erase it, draw the line", () => {
    expect(redrawLine(say`50%`)).toBe('\r\u001b[2K50%');
    expect(redrawLine()).toBe('\r\u001b[2K');
  });
});

describe('relayed', () => {
  it("keeps mcpx's own redraw and nothing else a relay could add", () => {
    const fromDaemon = `${redrawLine(say`progress`)}\n\u001b]0;pwned\u0007done\u202E\n`;
    expect(relayed(fromDaemon)).toBe('\r\u001b[2Kprogress\ndone<U+202E>\n');
  });
});
