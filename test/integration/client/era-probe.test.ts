/** The era probe and servers that die: a probe casualty is started again once, a crash at start is not. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectServer } from '../../../src/client/server-connection.js';
import { createServerTransport } from '../../../src/client/transport-factory.js';
import type { ServerConnection } from '../../../src/client/types.js';
import { ErrorCode } from '../../../src/errors/index.js';
import { createStdioServerTransport } from '../../../src/transport/stdio/server-transport.js';
import { tempDir } from '../../helpers/cli.js';
import { nodeServer } from '../../helpers/servers.js';

/** A 2025-era server that exits on any request before `initialize` (some real ones do). */
const PICKY = `
require('node:fs').appendFileSync(process.env.STARTS, 'start\\n');
let ready = false;
const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') {
    ready = true;
    reply(message.id, { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'picky', version: '1' } });
  } else if (!ready) process.exit(1);
  else if (message.method === 'tools/list') reply(message.id, { tools: [] });
  else if (message.id !== undefined) reply(message.id, {});
});
`;

/** A server that dies at once, whatever it is sent. */
const BROKEN = `require('node:fs').appendFileSync(process.env.STARTS, 'start\\n'); console.error('missing API key'); process.exit(3);`;

/** A server that crashes a moment after it starts, whatever it was sent meanwhile (the probe reaches it alive). */
const BROKEN_LATER = `require('node:fs').appendFileSync(process.env.STARTS, 'start\\n'); setTimeout(() => { console.error('Error: missing API key'); process.exit(3); }, 400);`;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c().catch(() => {})));
});

async function setup(script: string) {
  const dir = await tempDir('mcpx-probe-');
  cleanups.push(dir.remove);
  const starts = join(dir.path, 'starts');
  const server = nodeServer('probe', '-e', { args: ['-e', script], env: { STARTS: starts } });
  const count = async () =>
    (await readFile(starts, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  return { server, count };
}

describe('the era probe', () => {
  it('starts a server the probe killed once more and speaks the 2025 handshake', async () => {
    const { server, count } = await setup(PICKY);
    const connection: ServerConnection = await connectServer(server, {
      createTransport: () => createServerTransport(server, { hostEnv: process.env }),
    });
    cleanups.push(() => connection.close());
    expect(connection.era).toBe('legacy');
    expect(await connection.listTools()).toEqual([]);
    expect(await count()).toBe(2);
  });

  it('does not start again a server that died before mcpx sent it anything', async () => {
    const { server, count } = await setup(BROKEN);
    // As the CLI does: the process starts while mcpx is still loading.
    const early = createStdioServerTransport(
      { ...server, command: process.execPath },
      { hostEnv: process.env },
    );
    early.spawnEarly();
    for (let waited = 0; (await count()) === 0 && waited < 5_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    let first = true;
    const error = await connectServer(server, {
      createTransport: () => {
        if (!first) return createServerTransport(server, { hostEnv: process.env });
        first = false;
        return early;
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.ServerCrashed, context: { exitCode: 3 } });
    expect(await count()).toBe(1);
  });

  it('does not start again a server that crashed for its own reason after the probe reached it', async () => {
    const { server, count } = await setup(BROKEN_LATER);
    const error = await connectServer(server, {
      createTransport: () => createServerTransport(server, { hostEnv: process.env }),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: ErrorCode.ServerCrashed,
      context: { exitCode: 3, stderrTail: ['Error: missing API key'] },
    });
    expect(await count()).toBe(1);
  });
});
