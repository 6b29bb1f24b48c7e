/**
 * The per-client limit on requests in flight, across a fleet (issue 43): three `mcpx serve --http
 * --state` instances on one real Redis share one bound per client (32 requests whose bodies are
 * being read), so a client cannot get three times the bound by spreading its slow uploads. With
 * the store down, each instance counts its own again and `/healthz` says so. A burst of quick
 * requests is not refused for it (the store is not on their way).
 */
import { type ClientRequest, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { redisEachTest, stateKeyArgs } from '../helpers/redis.js';

const LIMIT = 32;
let world: GatewayWorld;
const store = redisEachTest(async () => {
  for (const req of held.splice(0)) req.destroy();
  await world.stopAll();
});
const held: ClientRequest[] = [];

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { local: { command: process.execPath, args: [testServerPath] } },
  });
}, 60_000);
afterAll(async () => world?.close());

const SESSION = 'one-client-s-session';

/** A POST of this client whose body never finishes arriving: its slot stays taken. */
function hold(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '1000', 'mcp-session-id': SESSION },
    });
    req.once('error', () => {});
    req.once('response', (res) => reject(new Error(`a held request was answered ${res.statusCode}`)));
    held.push(req);
    req.write('{', () => setTimeout(resolve, 20));
  });
}

/** A whole POST of this client: its status (429 when the client is at its limit). */
async function post(url: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': SESSION,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function healthState(url: string): Promise<Record<string, unknown>> {
  const body = (await (await fetch(new URL('/healthz', url))).json()) as { state: Record<string, unknown> };
  return body.state;
}

describe('per-client limits across a fleet (--state)', () => {
  it("counts a client's requests through every instance against one bound; the store down, each its own", async () => {
    const serve = (id: string) =>
      world.serve(['--port', '0', '--instance-id', id, '--state', store().url, ...stateKeyArgs(world.dir)]);
    const [a, b, c] = (await Promise.all([serve('a'), serve('b'), serve('c')])) as RunningGateway[] &
      [RunningGateway, RunningGateway, RunningGateway];
    // Half the bound through A, half through B: the client is at its limit on C too.
    for (let i = 0; i < LIMIT / 2; i++) await hold(a.url);
    for (let i = 0; i < LIMIT / 2; i++) await hold(b.url);
    // C learns the others' count from the store (read in the background, at most 1 s old).
    await expect.poll(() => post(c.url), { timeout: 5_000 }).toBe(429);
    expect(await healthState(c.url)).toMatchObject({ up: true, limits: 'fleet' });

    // Some of those requests end: their slots are free through any instance.
    for (const req of held.splice(0, 2)) req.destroy();
    await expect.poll(() => post(c.url), { timeout: 5_000 }).not.toBe(429);

    // The store down: C counts only its own requests (none held), and says so.
    for (let i = 0; i < 2; i++) await hold(a.url);
    await expect.poll(() => post(c.url), { timeout: 5_000 }).toBe(429);
    await store().stop();
    await expect
      .poll(() => healthState(c.url), { timeout: 15_000 })
      .toMatchObject({ up: false, limits: 'instance' });
    expect(await post(c.url)).not.toBe(429);
  });

  it('a burst of 600 quick requests from one address through one instance is not refused for the store', async () => {
    const gateway = await world.serve([
      '--port',
      '0',
      '--instance-id',
      'a',
      '--state',
      store().url,
      ...stateKeyArgs(world.dir),
    ]);
    const statuses = await Promise.all(Array.from({ length: 600 }, () => post(gateway.url)));
    expect(statuses.filter((status) => status === 429)).toEqual([]);
  });
});
