/**
 * docs/nginx-fleet.conf, shown working: three `mcpx serve --http --state redis://…` instances
 * behind a real nginx (Debian's; `.ci/run` installs it and redis-server), sharing one Redis.
 * A 2025-11-25 session lives in the store with its SSE events, so when the instance that held
 * it dies (SIGKILL) its client resumes on another, through nginx, and misses nothing; and any
 * instance continues any session under a load of a thousand calls in flight.
 * nginx runs as the current user from a private prefix; every process the test starts is gone
 * at the end.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sharedEventKeys } from '../../src/gateway/http/shared-event-log.js';
import { testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { documentedHttpBlock, findNginx, type RunningNginx, startNginx } from '../helpers/nginx.js';
import {
  messageOf,
  openRawSession,
  postToolCall,
  type RawMessage,
  resumeStream,
  sessionHeaders,
  sseEvents,
} from '../helpers/raw-session.js';
import { type RunningRedis, startRedis } from '../helpers/redis.js';

const INSTANCES = ['a', 'b', 'c'] as const;
const PORTS = { a: '8801', b: '8802', c: '8803' } as const;
let world: GatewayWorld;
let redis: RunningRedis;
const gateways = new Map<string, RunningGateway & { port: number }>();
let nginx: RunningNginx | undefined;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  findNginx();
  redis = await startRedis();
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { test: { command: process.execPath, args: [testServerPath] } },
  });
  const stateKey = join(world.dir, 'state.key');
  await writeFile(stateKey, randomBytes(32), { mode: 0o600 });
  await Promise.all(
    INSTANCES.map(async (id) => {
      const gateway = await world.serve([
        ...['--port', '0', '--instance-id', id, '--state', redis.url, '--state-key-file', stateKey],
      ]);
      gateways.set(id, { ...gateway, port: Number(new URL(gateway.url).port) });
    }),
  );
  nginx = await startNginx({ prefix: join(world.dir, 'nginx'), http: httpBlock, workerConnections: 4096 });
  url = nginx.url;
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  const workersLeft = (await nginx?.stop()) ?? [];
  await world?.close();
  await redis?.stop();
  // The workers are nginx's children, not ours: the master must have taken them down.
  expect(workersLeft, 'nginx workers that outlived the test').toEqual([]);
});

// What the instances and nginx said, when a test failed: a crash or a refusal is visible at once.
afterEach(async (context) => {
  if (context.task.result?.state !== 'fail') return;
  const said = [...gateways].map(([id, g]) => `--- instance ${id}:\n${g.stderr().slice(-2_000)}`);
  const log = (await nginx?.errorLog()) ?? '';
  context.task.result.errors?.push({ message: `${said.join('\n')}\n--- nginx:\n${log.slice(-2_000)}` });
});

describe('a fleet of mcpx serve --http --state behind nginx (docs/nginx-fleet.conf)', () => {
  it('continues any 2025-11-25 session on any instance, with a thousand calls in flight in both eras', async () => {
    // Legacy clients whose every request goes to the next instance in turn (as a balancer
    // without affinity would): each session is begun on one and continued on all three.
    const rotating = await Promise.all(Array.from({ length: 10 }, (_, i) => connectRotating(i)));
    const modern = await Promise.all(Array.from({ length: 10 }, () => connect('modern')));
    const calls = [...rotating, ...modern].flatMap((client, i) =>
      Array.from({ length: 50 }, (_, j) => {
        const message = `m${i}.${j}`;
        return client
          .callTool({ name: 'test__echo', arguments: { message } })
          .then((result) => ({ message, text: firstText(result) }));
      }),
    );
    expect(calls).toHaveLength(1_000);
    const answered = await Promise.all(calls);
    expect(answered.filter(({ message, text }) => message !== text)).toEqual([]);
    expect(new Set(answered.map(({ text }) => text)).size).toBe(1_000);
  }, 120_000);

  it('resumes on another instance, through nginx, the stream of a session whose instance was killed', async () => {
    // A session nginx sends to instance a (the id says which instance minted it).
    let session = await openRawSession(url);
    for (let tries = 0; !session.startsWith('a.') && tries < 12; tries++) {
      await fetch(url, { method: 'DELETE', headers: sessionHeaders(session) }).then((r) => r.arrayBuffer());
      session = await openRawSession(url);
    }
    expect(session).toMatch(/^a\./);
    const steps = 8;
    const call = await postToolCall(url, session, {
      id: 7,
      name: 'test__slow_operation',
      arguments: { steps, delay_ms: 100 },
      progressToken: 'p',
    });
    expect(call.status).toBe(200);
    const received: { id: string; message: RawMessage | undefined }[] = [];
    const events = sseEvents(call);
    for await (const event of events) {
      received.push({ id: event.id as string, message: messageOf(event) });
      if (received.filter((e) => e.message?.method === 'notifications/progress').length === 3) break;
    }
    // The call runs to its end on a while the client reads no more; then a dies.
    const [key] = sharedEventKeys('mcpx:', session);
    await expect
      .poll(() => redis.cli(['XRANGE', key as string, '-', '+']).includes('"id":7'), { timeout: 20_000 })
      .toBe(true);
    const a = gateways.get('a') as RunningGateway;
    a.child.kill('SIGKILL');
    await a.exited;
    await events.return(undefined).catch(() => {});

    const lastId = received.at(-1)?.id as string;
    const resumed = await resumeStream(url, session, lastId);
    expect(resumed.status).toBe(200);
    const replayed: { id: string; message: RawMessage | undefined }[] = [];
    for await (const event of sseEvents(resumed)) {
      replayed.push({ id: event.id as string, message: messageOf(event) });
      if (messageOf(event)?.id === 7) break;
    }
    const all = [...received, ...replayed];
    const progress = all
      .filter((e) => e.message?.method === 'notifications/progress')
      .map((e) => e.message?.params?.progress);
    // Every event once: the progress in order, none missing, none twice, then the result.
    expect(progress).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    expect(firstText(all.at(-1)?.message?.result)).toMatch(new RegExp(String(steps)));

    // The session goes on (on b or c), and a DELETE there ends it fleet-wide.
    const more = await postToolCall(url, session, {
      id: 8,
      name: 'test__echo',
      arguments: { message: 'on' },
    });
    expect(more.status).toBe(200);
    const text = await more.text();
    expect(text).toContain('"id":8');
    expect(text).toContain('on');
    const deleted = await fetch(url, { method: 'DELETE', headers: sessionHeaders(session) });
    expect(deleted.status).toBe(200);
    for (const id of ['b', 'c']) {
      const gone = await fetch(`http://127.0.0.1:${gateways.get(id)?.port}/mcp`, {
        method: 'POST',
        headers: sessionHeaders(session),
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
      });
      expect(gone.status, `instance ${id} after the DELETE`).toBe(404);
    }
    expect(redis.cli(['EXISTS', `mcpx:session:${session}`, key as string])).toBe('0');
  }, 60_000);
});

/** A legacy SDK client whose requests go round the three instances, one after another. */
async function connectRotating(start: number): Promise<Client> {
  let turn = start;
  const client = new Client(
    { name: 'fleet-rotating', version: '0.0.0' },
    { versionNegotiation: { mode: 'legacy' } },
  );
  clients.push(client);
  const rotate: typeof fetch = (input, init) => {
    const id = INSTANCES[turn++ % INSTANCES.length] as string;
    const target = new URL(String(input instanceof Request ? input.url : input));
    target.port = String(gateways.get(id)?.port);
    return fetch(target, init);
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: rotate }));
  return client;
}

async function connect(era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'fleet-test', version: '0.0.0' },
    { versionNegotiation: era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } } },
  );
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The documented http block (docs/nginx-fleet.conf) with this test's ports. */
function httpBlock(port: number): string {
  let block = documentedHttpBlock(join(import.meta.dirname, '../../docs/nginx-fleet.conf')).replace(
    'listen 8800;',
    `listen 127.0.0.1:${port};`,
  );
  for (const id of INSTANCES)
    block = block.replaceAll(`127.0.0.1:${PORTS[id]}`, `127.0.0.1:${gateways.get(id)?.port}`);
  return `  access_log off;\n${block}`;
}
