/**
 * `mcpx serve --http` in a fleet: `/readyz` says when an instance takes work (not while its
 * servers' first listing runs, not while it drains), and SIGTERM drains — new work is refused
 * with 503 and `Retry-After` while the call in flight finishes, a session's standalone stream
 * and a 2026-07-28 listen stream end so their clients go elsewhere, and the process stops its
 * upstreams and exits 0 within `--drain-timeout`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { assertNoLeakedProcesses, trackProcessTree } from '../helpers/processes.js';
import {
  LEGACY_VERSION,
  messageOf,
  openRawSession,
  postToolCall,
  type RawMessage,
  resumeStream,
  sessionHeaders,
  sseEvents,
} from '../helpers/raw-session.js';

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { local: { command: process.execPath, args: [testServerPath] } },
  });
}, 60_000);

afterEach(() => world.stopAll());
afterAll(() => world?.close());

const base = (gateway: RunningGateway) => gateway.url.replace(/\/mcp$/, '');

async function status(url: string): Promise<{ status: number; body: unknown } | 'refused'> {
  try {
    const response = await fetch(url);
    return { status: response.status, body: await response.json().catch(() => undefined) };
  } catch {
    return 'refused';
  }
}

/** A 2026-07-28 request as a client sends it (`name`: the tool of a `tools/call`). */
function modernRequest(url: string, method: string, params: Record<string, unknown>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

const modernCall = (url: string) =>
  modernRequest(url, 'tools/call', { name: 'local__echo', arguments: { message: 'late' } });

/** A 2025-11-25 call that runs `steps × delayMs`, SIGTERM sent to the gateway at its first progress. */
async function callThenTerminate(gateway: RunningGateway, steps: number, delayMs: number) {
  const client = await world.client(gateway.url, 'legacy');
  let signalled!: () => void;
  const terminated = new Promise<void>((resolve) => {
    signalled = resolve;
  });
  let sent = false;
  const call = client.callTool(
    { name: 'local__slow_operation', arguments: { steps, delay_ms: delayMs } },
    {
      timeout: 120_000,
      onprogress: () => {
        if (sent) return;
        sent = true;
        gateway.child.kill('SIGTERM');
        signalled();
      },
    },
  );
  await terminated;
  // In an object: an async function returning the promise itself would wait for it.
  return { call };
}

describe('/readyz', () => {
  it('is 503 while the first listing runs, 200 once it is done; /healthz is 200 throughout', async () => {
    await world.stopAll();
    const slow = await gatewayWorld({
      permission: 'yolo',
      mcpServers: {
        local: {
          command: process.execPath,
          args: [testServerPath],
          env: { MCPX_TEST_FAULT: 'slow-start', MCPX_TEST_SLOW_START_MS: '2500' },
        },
      },
    });
    try {
      const gateway = await slow.serve();
      expect(await status(`${base(gateway)}/readyz`)).toEqual({
        status: 503,
        body: { ready: false, reason: 'starting' },
      });
      expect(await status(`${base(gateway)}/healthz`)).toEqual({ status: 200, body: { ok: true } });
      await expect
        .poll(() => status(`${base(gateway)}/readyz`), { timeout: 20_000, interval: 100 })
        .toEqual({ status: 200, body: { ready: true } });
    } finally {
      await slow.close();
    }
  });
});

describe('SIGTERM drains', () => {
  it('flips readiness, refuses new work with 503 and Retry-After, finishes the call in flight, exits 0 leaving nothing running', async () => {
    const gateway = await world.serve(['--drain-timeout', '30']);
    const tree = trackProcessTree(gateway.child.pid as number);
    await expect
      .poll(() => status(`${base(gateway)}/readyz`), { timeout: 10_000, interval: 50 })
      .toEqual({ status: 200, body: { ready: true } });
    let finished = false;
    const { call } = await callThenTerminate(gateway, 25, 200);
    const result = call.then((r) => {
      finished = true;
      return r;
    });
    // The call runs 5 s; meanwhile the instance drains, and says so.
    await expect
      .poll(() => status(`${base(gateway)}/readyz`), { timeout: 4_000, interval: 50 })
      .toEqual({ status: 503, body: { ready: false, reason: 'draining' } });
    expect(await status(`${base(gateway)}/healthz`)).toEqual({ status: 200, body: { ok: true } });
    const late = await modernCall(gateway.url);
    expect(late.status).toBe(503);
    expect(late.headers.get('retry-after')).toBe('1');
    expect(await late.json()).toMatchObject({ error: { message: expect.stringMatching(/shutting down/) } });
    const initialize = await fetch(gateway.url, {
      method: 'POST',
      headers: sessionHeaders(undefined),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_VERSION,
          capabilities: {},
          clientInfo: { name: 'late', version: '0' },
        },
      }),
    });
    expect(initialize.status).toBe(503);
    expect(initialize.headers.get('retry-after')).toBe('1');
    await initialize.body?.cancel();
    expect(finished, 'the refusals came while the call was still in flight').toBe(false);
    const done = await result;
    expect(done.isError).toBeFalsy();
    expect(firstText(done)).toMatch(/25/);
    expect((await gateway.exited).code).toBe(0);
    await assertNoLeakedProcesses(tree);
  });

  it('stops at --drain-timeout a call that would run past it, and exits 0 leaving nothing running', async () => {
    const gateway = await world.serve(['--drain-timeout', '1']);
    const tree = trackProcessTree(gateway.child.pid as number);
    const { call } = await callThenTerminate(gateway, 100, 200);
    call.catch(() => {});
    const signalledAt = Date.now();
    const exit = await gateway.exited;
    expect(exit.code).toBe(0);
    // The call had 20 s to go; the gateway gave it the 1 s grace (and its own shutdown) only.
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    await assertNoLeakedProcesses(tree);
  });

  it("ends a session's standalone stream at once, while a call in flight still runs", async () => {
    const gateway = await world.serve(['--drain-timeout', '30']);
    const session = await openRawSession(gateway.url);
    const stream = await fetch(gateway.url, {
      headers: { ...sessionHeaders(session), accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    await expectStreamEndsBeforeCall(gateway, stream);
  });

  it("lets a call's cut stream be resumed during the drain, and refuses the session new work", async () => {
    const gateway = await world.serve(['--drain-timeout', '30']);
    const session = await openRawSession(gateway.url);
    const cut = new AbortController();
    const call = await postToolCall(gateway.url, session, {
      id: 7,
      name: 'local__slow_operation',
      arguments: { steps: 15, delay_ms: 200 },
      progressToken: 'p',
      signal: cut.signal,
    });
    let lastId: string | undefined;
    let seen = 0;
    const events = sseEvents(call);
    for await (const event of events) {
      if (event.id) lastId = event.id;
      if (messageOf(event)?.method === 'notifications/progress' && ++seen === 2) break;
    }
    // The client's connection drops (a proxy, a laptop asleep) just as the instance is told to stop.
    cut.abort();
    await events.return(undefined).catch(() => {});
    gateway.child.kill('SIGTERM');
    await expect
      .poll(() => status(`${base(gateway)}/readyz`), { timeout: 4_000, interval: 50 })
      .toMatchObject({ status: 503 });
    // New work in the session is refused; the resume of the call's stream is let through.
    const fresh = await fetch(gateway.url, {
      method: 'POST',
      headers: sessionHeaders(session),
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
    });
    expect(fresh.status).toBe(503);
    await fresh.body?.cancel();
    const resumed = await resumeStream(gateway.url, session, lastId as string);
    expect(resumed.status).toBe(200);
    let result: RawMessage | undefined;
    for await (const event of sseEvents(resumed)) {
      const message = messageOf(event);
      if (message?.id === 7) {
        result = message;
        break;
      }
    }
    expect(JSON.stringify(result?.result)).toMatch(/15/);
    expect((await gateway.exited).code).toBe(0);
  });

  it('ends a 2026-07-28 subscriptions/listen stream at once, while a call in flight still runs', async () => {
    const gateway = await world.serve(['--drain-timeout', '30']);
    const stream = await modernRequest(gateway.url, 'subscriptions/listen', {
      notifications: { toolsListChanged: true },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
    await expectStreamEndsBeforeCall(gateway, stream);
  });
});

/**
 * SIGTERM while a 15-step call runs: `stream` (a session's or a listen stream) ends at once, the
 * call still finishes without error, and the gateway exits cleanly after it.
 */
async function expectStreamEndsBeforeCall(gateway: RunningGateway, stream: Response): Promise<void> {
  const order: string[] = [];
  const ended = stream
    .text()
    .catch(() => '')
    .then(() => order.push('stream ended'));
  const { call } = await callThenTerminate(gateway, 15, 200);
  const done = call.then((r) => {
    order.push('call finished');
    return r;
  });
  await Promise.all([ended, done]);
  expect(order).toEqual(['stream ended', 'call finished']);
  expect((await done).isError).toBeFalsy();
  expect((await gateway.exited).code).toBe(0);
}
