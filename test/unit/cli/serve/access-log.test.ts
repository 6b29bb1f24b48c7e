import { describe, expect, it } from 'vitest';
import { openAccessLog } from '../../../../src/cli/serve/access-log.js';
import { POISON } from '../../../../src/testing/hostile-server.js';

describe('the access log on stderr', () => {
  it('escapes controls and invisible characters in names, and keeps them exact', () => {
    let written = '';
    const log = openAccessLog({
      target: '-',
      logArguments: true,
      stderr: { write: (text: string) => (written += text) },
      notice: () => {},
    });
    log.record({
      client: `client${POISON}`,
      method: 'tools/call',
      server: 'h',
      tool: `named${POISON}\u0085\u2028`,
      arguments: { [`key${POISON}`]: POISON },
      durationMs: 1,
      outcome: 'ok',
    });
    expect(written.endsWith('\n')).toBe(true);
    expect(written.trimEnd()).not.toContain('\n');
    // Nothing outside printable ASCII but what JSON needs: every such character is \uXXXX.
    expect(written.trimEnd()).toMatch(/^[\x20-\x7e]*$/);
    const entry = JSON.parse(written);
    expect(entry.tool).toBe(`named${POISON}\u0085\u2028`);
    expect(entry.client).toBe(`client${POISON}`);
    expect(entry.arguments).toEqual({ [`key${POISON}`]: POISON });
  });
});
