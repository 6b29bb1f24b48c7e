/**
 * A held server's last progress and its result, read in one chunk of the daemon's socket (or
 * posted back to back on the in-process link), reach the SDK `Client` in that order: the SDK runs
 * a notification's handler a microtask after it arrives but settles a request at once.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Client, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { linkedPair } from '../../../src/daemon/in-process-link.js';
import { DaemonSocketTransport } from '../../../src/daemon-client/socket-transport.js';
import { tempDir } from '../../helpers/cli.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Request = { id?: number; method: string; params?: { _meta?: { progressToken?: unknown } } };

/** What a held server says to one request: an answer, and for a call, three progress steps first. */
function replies(message: Request): object[] {
  if (message.id === undefined) return [];
  if (message.method === 'initialize')
    return [
      {
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'held', version: '0' },
        },
      },
    ];
  const progressToken = message.params?._meta?.progressToken;
  return [
    ...[1, 2, 3].map((progress) => ({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken, progress, total: 3 },
    })),
    { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'done' }] } },
  ];
}

async function callWithProgress(client: Client): Promise<number[]> {
  const progress: number[] = [];
  const result = await client.callTool(
    { name: 'slow', arguments: {} },
    { onprogress: (p) => void progress.push(p.progress) },
  );
  expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
  return progress;
}

function newClient(): Client {
  const client = new Client({ name: 'caller', version: '0' }, { versionNegotiation: { mode: 'legacy' } });
  cleanups.push(() => client.close());
  return client;
}

describe("a call's last progress, in one chunk with its result", () => {
  it('reaches the caller over the daemon socket', async () => {
    const dir = await tempDir('mcpx-progress-order-');
    cleanups.push(dir.remove);
    const path = join(dir.path, 'd.sock');
    const server: Server = createServer((socket: Socket) => {
      let buffer = '';
      socket.on('data', (chunk) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
          const message = JSON.parse(buffer.slice(0, end)) as Request;
          buffer = buffer.slice(end + 1);
          // One write: the caller reads the progress and the result in the same chunk.
          const out = replies(message).map((m) => `${JSON.stringify(m)}\n`);
          if (out.length) socket.write(out.join(''));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const socket = await new Promise<Socket>((resolve) => {
      const s = connect(path, () => resolve(s));
    });
    const client = newClient();
    await client.connect(new DaemonSocketTransport(socket, 'held'));
    for (let i = 0; i < 5; i++) expect(await callWithProgress(client)).toEqual([1, 2, 3]);
  });

  it('reaches a command run inside the daemon over the in-process link', async () => {
    const [caller, daemon] = linkedPair('held');
    daemon.onmessage = (message: JSONRPCMessage) => {
      for (const reply of replies(message as Request)) void daemon.send(reply as JSONRPCMessage);
    };
    await daemon.start();
    const client = newClient();
    await client.connect(caller);
    for (let i = 0; i < 5; i++) expect(await callWithProgress(client)).toEqual([1, 2, 3]);
  });
});
