/**
 * A progress notification and the result it precedes, read in one chunk: the
 * progress still reaches the caller (the SDK settles the request before it
 * runs notification handlers, so mcpx's transports hand it responses last).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerConnection } from '../../../src/client/types.js';
import { connect, nodeServer } from '../../helpers/servers.js';

/** A 2025-era server whose tools/call answer is a progress notification and the result, in one write. */
const ONE_CHUNK = `
const out = (m) => JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n';
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') {
    process.stdout.write(out({ id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'burst', version: '1' } } }));
  } else if (m.method === 'tools/call') {
    const token = m.params._meta.progressToken;
    process.stdout.write(
      out({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2, message: 'half' } }) +
      out({ method: 'notifications/progress', params: { progressToken: token, progress: 2, total: 2, message: 'all' } }) +
      out({ id: m.id, result: { content: [{ type: 'text', text: 'done' }] } }),
    );
  } else if (m.id !== undefined && m.method) {
    process.stdout.write(out({ id: m.id, error: { code: -32601, message: 'Method not found' } }));
  }
});
`;

const open: ServerConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('progress read in the same chunk as the result', () => {
  it('reaches the caller every time', async () => {
    const connection = await connect(
      nodeServer('burst', '-e', { args: ['-e', ONE_CHUNK], protocol: 'legacy' }),
    );
    open.push(connection);
    for (let round = 0; round < 20; round++) {
      const seen: string[] = [];
      const result = await connection.callTool('go', {}, { onProgress: (p) => seen.push(p.message ?? '') });
      expect(result.content?.[0]).toMatchObject({ text: 'done' });
      expect(seen, `round ${round}`).toEqual(['half', 'all']);
    }
  });
});
