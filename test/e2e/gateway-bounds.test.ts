/**
 * `mcpx serve --http` bounds the work one request, and one client, can cause:
 * a body's JSON nesting and element count are checked as it arrives, before
 * anything parses it; a client has at most 32 requests uploading at once; `/healthz`
 * stays prompt while nesting bombs arrive (issue 28, item 4).
 */
import { readFileSync } from 'node:fs';
import { type ClientRequest, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';

let world: GatewayWorld;
let gateway: RunningGateway;
let port: number;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { local: { command: process.execPath, args: [testServerPath] } },
  });
  gateway = await world.serve();
  port = Number(new URL(gateway.url).port);
}, 60_000);

afterAll(() => world?.close());

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

function post(
  path: string,
  body?: string,
  timeoutMs = 30_000,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: body === undefined ? 'GET' : 'POST', headers: HEADERS },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end(body);
  });
}

/** A `tools/call` whose arguments are `depth` arrays deep: just under the 4 MiB body cap at 1.99M. */
function nestingBomb(depth: number): string {
  return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"local__echo","arguments":{"text":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
}

/** The gateway's peak resident set so far (Linux). */
function peakRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  return Number(kb) * 1024;
}

describe('mcpx serve --http bounds its work per request', () => {
  it('answers /healthz within 2 s while eight 4 MB nesting bombs arrive, and refuses them cheaply', async () => {
    const bomb = nestingBomb(1_990_000);
    expect(bomb.length).toBeLessThan(4 * 1024 * 1024);
    const pid = gateway.child.pid as number;
    const before = process.platform === 'linux' ? peakRssBytes(pid) : 0;
    let settled = false;
    const bombs = Promise.allSettled(Array.from({ length: 8 }, () => post('/mcp', bomb, 40_000))).then(
      (results) => {
        settled = true;
        return results;
      },
    );
    const latencies: number[] = [];
    const statuses = new Set<number>();
    const started = Date.now();
    // Probe for at least a second, and for as long as any bomb is in flight.
    while (!settled || Date.now() - started < 1000) {
      const t = performance.now();
      const health = await post('/healthz', undefined, 5000).catch(() => ({ status: 0 }));
      latencies.push(performance.now() - t);
      statuses.add(health.status);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect.soft([...statuses]).toEqual([200]);
    // Soft, so the memory and the refusals are checked (and reported) too when the latency fails.
    // Parsing the bombs unbounded stalled /healthz for several seconds (and grew RSS by ~800 MB,
    // checked below); bounded, it answers in well under a second on an idle machine, and in up to
    // 1.4 s on two cores shared with the rest of the suite: the bound leaves room for that.
    expect.soft(Math.max(...latencies)).toBeLessThan(2000);
    const answers = await bombs;
    if (process.platform === 'linux') expect.soft(peakRssBytes(pid) - before).toBeLessThan(100 * 1024 * 1024);
    for (const result of answers) {
      expect(result.status).toBe('fulfilled');
      const answer = (result as PromiseFulfilledResult<Awaited<ReturnType<typeof post>>>).value;
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).error.message).toContain('nested deeper than 64 levels');
    }
  }, 60_000);

  it('refuses a body with more elements than the limit (413) and says the limit', async () => {
    const values = Array.from({ length: 200_000 }, () => '0').join(',');
    const answer = await post(
      '/mcp',
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"local__echo","arguments":{"text":[${values}]}}}`,
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.message).toContain('more than 100000 elements');
  });

  it('still takes an ordinary request whose strings hold brackets and commas', async () => {
    const name = `${'[{,'.repeat(100_000)}\\"]`;
    const answer = await post(
      '/mcp',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '0' } },
      }),
    );
    expect(answer.status).toBe(200);
  });

  it('allows a client 32 requests uploading at once; the 33rd gets 429 with Retry-After', async () => {
    // Requests whose bodies never finish stay in flight as long as the test holds them.
    const held: ClientRequest[] = [];
    for (let i = 0; i < 32; i++) {
      const req = request({
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { ...HEADERS, 'content-length': '1000' },
      });
      req.once('error', () => {});
      req.write('{"jsonrpc":"2.0",');
      held.push(req);
    }
    try {
      let refused: Awaited<ReturnType<typeof post>> | undefined;
      // Until the gateway has seen all 32 (they connect in parallel).
      for (let tries = 0; tries < 100 && refused?.status !== 429; tries++) {
        refused = await post('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }), 5000);
        if (refused.status !== 429) await new Promise((r) => setTimeout(r, 50));
      }
      expect(refused?.status).toBe(429);
      expect(refused?.headers['retry-after']).toBe('1');
      expect(JSON.parse(refused?.body ?? '{}').error.message).toContain('limit is 32');
    } finally {
      for (const req of held) req.destroy();
    }
    // Released as they close: the client is served again.
    let after = 429;
    for (let tries = 0; tries < 100 && after === 429; tries++) {
      after = (await post('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }), 5000)).status;
      if (after === 429) await new Promise((r) => setTimeout(r, 50));
    }
    expect(after).not.toBe(429);
  }, 30_000);

  it('counts no call whose body is in: one session with 100 slow calls in flight is served', async () => {
    const client = await world.client(gateway.url, 'legacy');
    const calls = Array.from({ length: 100 }, () =>
      client.callTool({ name: 'local__slow_operation', arguments: { steps: 1, delay_ms: 1000 } }),
    );
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.isError)).toEqual([]);
  }, 60_000);
});
