import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { daemonKey } from '../../../src/daemon/paths.js';
import { sha256Hex } from '../../../src/daemon/sha256.js';

const nodeSha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('sha256Hex', () => {
  it("gives node:crypto's digest, across block boundaries and for any UTF-8", () => {
    const texts = ['', 'abc', 'é', '日本語のパス/mcp.json', '🙂'.repeat(40)];
    // Around the padding's edges: 55, 56 and 64 bytes need one or two blocks.
    for (let n = 50; n <= 130; n++) texts.push('x'.repeat(n));
    texts.push('/home/me/.mcpx/mcp.json\n/work/project/.mcp.json'.repeat(200));
    for (const text of texts) expect(sha256Hex(text)).toBe(nodeSha256(text));
  });

  it('names a daemon as before (its socket name stays the same across versions)', () => {
    const files = ['/home/me/.mcpx/mcp.json', '/work/p/.mcp.json'];
    expect(daemonKey(files)).toBe(nodeSha256(files.join('\n')).slice(0, 16));
  });
});
