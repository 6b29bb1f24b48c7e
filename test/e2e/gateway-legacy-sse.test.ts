/**
 * `mcpx serve --http --legacy-sse`: the deprecated HTTP+SSE transport (MCP 2024-11-05) beside Streamable
 * HTTP, for clients that speak only it. Real clients through the built CLI: the v1 SDK's
 * `SSEClientTransport`, and mcpx's own client with a `"type": "sse"` entry; the same guard as
 * `/mcp` (token, Origin), the refusals of the wire (unknown session 404, not JSON 400), a
 * session that ends with its stream (its call cancelled upstream), and SIGTERM's drain.
 */
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { cancelLoggingWorld, firstText, type GatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { assertNoLeakedProcesses, trackProcessTree } from '../helpers/processes.js';

const TOKEN = 'a-token-of-thirty-two-characters';

let world: GatewayWorld;
let cancellations: () => Promise<number>;
const clients: V1Client[] = [];

beforeAll(async () => {
  ({ world, cancellations } = await cancelLoggingWorld());
}, 60_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await world.stopAll();
});
afterAll(() => world?.close());

const base = (gateway: RunningGateway) => gateway.url.replace(/\/mcp$/, '');

/** A v1 SDK client on the gateway's `/sse` (`headers`: sent on the stream and on every POST). */
async function v1Client(gateway: RunningGateway, headers: Record<string, string> = {}): Promise<V1Client> {
  const client = new V1Client({ name: 'old-sse-client', version: '1.0.0' });
  clients.push(client);
  const fetchWithHeaders: typeof fetch = (url, init) =>
    fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers } });
  await client.connect(
    new SSEClientTransport(new URL(`${base(gateway)}/sse`), {
      eventSourceInit: { fetch: fetchWithHeaders },
      requestInit: { headers },
    }),
  );
  return client;
}

/** The stream's first event (`endpoint`), read from a raw GET; the response is left open. */
async function openStream(gateway: RunningGateway): Promise<{ endpoint: string; stream: Response }> {
  const stream = await fetch(`${base(gateway)}/sse`, { headers: { accept: 'text/event-stream' } });
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toBe('text/event-stream');
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString('utf8');
  }
  reader.releaseLock();
  const match = /^event: endpoint\ndata: (\S+)\n\n/.exec(text);
  expect(match, text).not.toBeNull();
  return { endpoint: (match as RegExpExecArray)[1] as string, stream };
}

/** The gateway's `mcpx_sessions` gauge. */
async function sessionsOpen(gateway: RunningGateway): Promise<number> {
  const text = await (await fetch(`${base(gateway)}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('mcpx_sessions'));
  return Number(line?.split(' ').pop());
}

describe('mcpx serve --http --legacy-sse', () => {
  it('serves a v1 SDK SSE client: it lists and calls the upstream tools', async () => {
    const gateway = await world.serve(['--legacy-sse']);
    const client = await v1Client(gateway);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('local__echo');
    const results = await Promise.all(
      [1, 2, 3].map((n) => client.callTool({ name: 'local__echo', arguments: { message: `hi ${n}` } })),
    );
    expect(results.map((r) => firstText(r))).toEqual(['hi 1', 'hi 2', 'hi 3']);
    await expect(client.callTool({ name: 'local__nope', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('answers a plain call on the fast path as on the full path; a client that can be asked takes the full path', async () => {
    const calls = async (client: V1Client) =>
      Promise.all([
        client.callTool({ name: 'local__echo', arguments: { message: 'same' } }),
        client.callTool({ name: 'local__add', arguments: { a: 2, b: 3 } }),
        client.callTool({ name: 'local__echo', arguments: {} }),
      ]);
    const fastCount = async (gateway: RunningGateway) => {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
      const match = /(\d+) call\(s\) took the fast path/.exec(gateway.stderr());
      return Number((match as RegExpExecArray)[1]);
    };
    const answers: unknown[] = [];
    for (const fast of ['1', '0']) {
      const gateway = await world.serve(['--legacy-sse', '--verbose'], { MCPX_GATEWAY_FAST_PATH: fast });
      answers.push(await calls(await v1Client(gateway)));
      expect(await fastCount(gateway)).toBe(fast === '1' ? 3 : 0);
    }
    expect(answers[0]).toEqual(answers[1]);
    // A client that declared sampling may be asked during a call: its calls go the full way.
    const gateway = await world.serve(['--legacy-sse', '--verbose'], { MCPX_GATEWAY_FAST_PATH: '1' });
    const asking = new V1Client({ name: 'asking', version: '1.0.0' }, { capabilities: { sampling: {} } });
    clients.push(asking);
    await asking.connect(new SSEClientTransport(new URL(`${base(gateway)}/sse`)));
    expect(await calls(asking)).toEqual(answers[0]);
    expect(await fastCount(gateway)).toBe(0);
  });

  it('is reached by mcpx\'s own client through a "type": "sse" entry', async () => {
    const gateway = await world.serve(['--legacy-sse']);
    const config = join(world.dir, 'via-sse.json');
    await writeFile(
      config,
      JSON.stringify({
        permission: 'yolo',
        mcpServers: { gw: { type: 'sse', url: `${base(gateway)}/sse` } },
      }),
    );
    const run = await runCli(['--config', config, 'call', 'gw.local__echo', 'message=through sse'], {
      cwd: world.dir,
      home: world.home,
      env: { MCPX_DAEMON: 'off' },
      timeoutMs: 30_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('through sse');
    expect(run.code).toBe(0);
  });

  it('keeps the /mcp guard: 401 without the token, 403 for a foreign Origin; the token lets a client in', async () => {
    const tokenFile = join(world.dir, 'token');
    await writeFile(tokenFile, TOKEN);
    const gateway = await world.serve(['--legacy-sse', '--token-file', tokenFile]);
    const bare = await fetch(`${base(gateway)}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(bare.status).toBe(401);
    await bare.body?.cancel();
    const post = await fetch(`${base(gateway)}/messages?sessionId=x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(post.status).toBe(401);
    const foreign = await fetch(`${base(gateway)}/sse`, {
      headers: {
        accept: 'text/event-stream',
        authorization: `Bearer ${TOKEN}`,
        origin: 'https://evil.example',
      },
    });
    expect(foreign.status).toBe(403);
    await foreign.body?.cancel();
    await expect(v1Client(gateway)).rejects.toThrow();
    const client = await v1Client(gateway, { authorization: `Bearer ${TOKEN}` });
    expect(firstText(await client.callTool({ name: 'local__echo', arguments: { message: 'in' } }))).toBe(
      'in',
    );
  });

  it('is refused without --http, saying what it goes with', async () => {
    const run = await runCli(['--config', world.configFile, 'serve', '--legacy-sse'], {
      cwd: world.dir,
      home: world.home,
      env: { MCPX_DAEMON: 'off' },
    });
    expect(run.stderr).toMatch(/--legacy-sse goes with --http/);
    expect(run.stderr).toMatch(/mcpx serve --http --legacy-sse/);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
  });

  it('refuses a POST to an unknown session or before the stream (404), and a body that is not JSON (400)', async () => {
    const gateway = await world.serve(['--legacy-sse']);
    const unknown = await fetch(`${base(gateway)}/messages?sessionId=no-such-session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await unknown.text()).toMatch(/session not found/);
    const noSession = await fetch(`${base(gateway)}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(noSession.status).toBe(404);
    expect(await noSession.text()).toMatch(/open the stream first/);
    const { endpoint, stream } = await openStream(gateway);
    expect(endpoint).toMatch(/^\/messages\?sessionId=/);
    const garbage = await fetch(`${base(gateway)}${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'this is not json',
    });
    expect(garbage.status).toBe(400);
    expect(await garbage.text()).toMatch(/not a JSON-RPC 2.0 message/);
    await stream.body?.cancel();
  });

  it('is not served without --legacy-sse: /sse and /messages are 404', async () => {
    const gateway = await world.serve();
    const stream = await fetch(`${base(gateway)}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(stream.status).toBe(404);
    await stream.body?.cancel();
    const post = await fetch(`${base(gateway)}/messages?sessionId=x`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(404);
  });

  it('ends the session with its stream: its call in flight is cancelled upstream, nothing is left', async () => {
    const gateway = await world.serve(['--legacy-sse']);
    const tree = trackProcessTree(gateway.child.pid as number);
    const client = await v1Client(gateway);
    expect(await sessionsOpen(gateway)).toBe(1);
    const before = await cancellations();
    let progressed!: () => void;
    const running = new Promise<void>((resolve) => {
      progressed = resolve;
    });
    const call = client.callTool(
      { name: 'local__slow_operation', arguments: { steps: 100, delay_ms: 100 } },
      undefined,
      { onprogress: () => progressed(), timeout: 60_000 },
    );
    call.catch(() => {});
    await running;
    // The client goes away: its stream closes, and with it the session.
    await client.close();
    await expect.poll(() => sessionsOpen(gateway), { timeout: 10_000, interval: 50 }).toBe(0);
    for (let i = 0; i < 100 && (await cancellations()) === before; i++) await delay(50);
    expect((await cancellations()) - before).toBe(1);
    gateway.child.kill('SIGTERM');
    expect((await gateway.exited).code).toBe(0);
    await assertNoLeakedProcesses(tree);
  });

  it('ends the session of a client that stops reading its stream, with a notice, once 16 MiB are left unread', async () => {
    const gateway = await world.serve(['--legacy-sse']);
    const { port } = new URL(gateway.url);
    // A raw client: reads the endpoint event, then never reads again (the socket paused).
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(`GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
    let head = '';
    await new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('utf8');
        if (head.includes('event: endpoint')) {
          socket.pause();
          resolve();
        }
      });
    });
    const endpoint = (/data: (\S+)/.exec(head) as RegExpExecArray)[1] as string;
    expect(await sessionsOpen(gateway)).toBe(1);
    const post = (message: object) =>
      fetch(`${base(gateway)}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', ...message }),
      }).then((r) => r.status);
    const initialize = {
      protocolVersion: '2024-11-05',
      capabilities: {},
      clientInfo: { name: 'never-reads', version: '0' },
    };
    expect(await post({ id: 1, method: 'initialize', params: initialize })).toBe(202);
    expect(await post({ method: 'notifications/initialized' })).toBe(202);
    const big = 'x'.repeat(1024 * 1024);
    const statuses: number[] = [];
    // 1 MiB answers, 8 at a time, until the gateway gives up on the reader (60 MiB at most).
    for (let round = 0; round < 8 && !statuses.includes(404); round++) {
      const batch = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          post({
            id: round * 8 + i + 2,
            method: 'tools/call',
            params: { name: 'local__echo', arguments: { message: big } },
          }),
        ),
      );
      statuses.push(...batch);
      await delay(200);
    }
    await expect.poll(() => sessionsOpen(gateway), { timeout: 10_000, interval: 100 }).toBe(0);
    expect(gateway.stderr()).toMatch(
      /ended SSE session \S+: its client left \d+ bytes unread on its stream \(the limit is 16777216\)/,
    );
    // The session is gone: what the client posts now is refused.
    expect(await post({ id: 100, method: 'ping' })).toBe(404);
    socket.destroy();
  });

  it('drains on SIGTERM: the call in flight is answered on its stream, new streams and calls get 503, exit 0', async () => {
    const gateway = await world.serve(['--legacy-sse', '--drain-timeout', '30']);
    const tree = trackProcessTree(gateway.child.pid as number);
    const client = await v1Client(gateway);
    let progressed!: () => void;
    const running = new Promise<void>((resolve) => {
      progressed = resolve;
    });
    const call = client.callTool(
      { name: 'local__slow_operation', arguments: { steps: 15, delay_ms: 200 } },
      undefined,
      { onprogress: () => progressed(), timeout: 60_000 },
    );
    await running;
    gateway.child.kill('SIGTERM');
    await expect
      .poll(async () => (await fetch(`${base(gateway)}/readyz`)).status, { timeout: 2_000, interval: 50 })
      .toBe(503);
    const late = await fetch(`${base(gateway)}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(late.status).toBe(503);
    expect(late.headers.get('retry-after')).toBe('1');
    await late.body?.cancel();
    await expect(client.callTool({ name: 'local__echo', arguments: { message: 'late' } })).rejects.toThrow(
      /503/,
    );
    const result = await call;
    expect(firstText(result)).toMatch(/15/);
    expect((await gateway.exited).code).toBe(0);
    await assertNoLeakedProcesses(tree);
  });
});
