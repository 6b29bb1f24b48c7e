/**
 * docs/deploy-nginx.md, shown working: two `mcpx serve --http --instance-id`
 * processes behind a real nginx (Debian's; `.ci/run` installs it) with the
 * documented routing — round robin for everything without a session id,
 * sticky by the session id's instance prefix for 2025-11-25 sessions, and a
 * 2026-07-28 upstream's input round started on one instance and finished on
 * the other (`--state-key-file` shared).
 * nginx runs as the current user from a private prefix, and every process the
 * test starts is gone at the end.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConformanceBackend, startConformanceBackend } from '../../src/testing/conformance-backend.js';
import { testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { documentedHttpBlock, findNginx, type RunningNginx, startNginx } from '../helpers/nginx.js';
import { callCutAndResume, openRawSession } from '../helpers/raw-session.js';

const INSTANCES = ['a', 'b'] as const;
const TOKEN = 'one-token-shared-by-every-instance-0123456789';
const PUBLIC_HOST = 'mcp.example.test';
let world: GatewayWorld;
const gateways = new Map<string, RunningGateway & { port: number; log: string }>();
let nginx: RunningNginx | undefined;
let prefix: string;
let url: string;
const clients: Client[] = [];
let asking: ConformanceBackend | undefined;

beforeAll(async () => {
  findNginx();
  // One 2026-07-28 upstream that asks its client questions, shared by both instances.
  asking = await startConformanceBackend();
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: {
      test: { command: process.execPath, args: [testServerPath] },
      asking: { url: asking.url, protocol: 'modern' },
    },
  });
  const stateKey = join(world.dir, 'state.key');
  await writeFile(stateKey, randomBytes(32), { mode: 0o600 });
  for (const id of INSTANCES) {
    const log = join(world.dir, `access-${id}.log`);
    const gateway = await world.serve([
      ...['--port', '0', '--instance-id', id, '--access-log', log],
      ...['--token', TOKEN, '--allowed-host', PUBLIC_HOST, '--state-key-file', stateKey],
    ]);
    gateways.set(id, { ...gateway, port: Number(new URL(gateway.url).port), log });
  }
  prefix = join(world.dir, 'nginx');
  nginx = await startNginx({ prefix, http: httpBlock });
  url = nginx.url;
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  const workersLeft = (await nginx?.stop()) ?? [];
  await world?.close();
  await asking?.close();
  // The workers are nginx's children, not ours: the master must have taken them down.
  expect(workersLeft, 'nginx workers that outlived the test').toEqual([]);
});

describe('several mcpx serve --http behind nginx (docs/deploy-nginx.md)', () => {
  it('round-robins 2026-07-28 requests over both instances', async () => {
    const modern = await Promise.all(Array.from({ length: 8 }, () => connect('modern')));
    const results = await Promise.all(
      modern.flatMap(({ client }, i) =>
        [0, 1, 2].map((j) => client.callTool({ name: 'test__echo', arguments: { message: `m${i}.${j}` } })),
      ),
    );
    expect(results.map(firstText).sort()).toEqual(
      modern.flatMap((_, i) => [0, 1, 2].map((j) => `m${i}.${j}`)).sort(),
    );
    // Each instance's own access log shows it served some of the calls, and together they served all.
    // The logs are written behind the replies, so their last lines may land just after them.
    const calls = () => INSTANCES.map((id) => accessLog(id).filter((e) => e.method === 'tools/call').length);
    await expect.poll(() => calls()[0]! + calls()[1]!, { timeout: 5_000 }).toBe(24);
    for (const count of calls()) expect(count).toBeGreaterThan(0);
  });

  it('keeps every 2025-11-25 session on the instance that minted it, and spreads the sessions', async () => {
    const legacy: { client: Client; transport: StreamableHTTPClientTransport }[] = [];
    for (let i = 0; i < 6; i++) legacy.push(await connect('legacy'));
    await Promise.all(
      legacy.map(async ({ client }, i) => {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('test__echo');
        for (const j of [0, 1]) {
          const result = await client.callTool({ name: 'test__echo', arguments: { message: `s${i}.${j}` } });
          expect(firstText(result)).toBe(`s${i}.${j}`);
        }
      }),
    );
    const ids = legacy.map(({ transport }) => transport.sessionId as string);
    for (const id of ids) expect(id).toMatch(/^[ab]\.[0-9a-f-]{36}$/);
    // Spread: initialize went round robin, so both instances hold sessions.
    expect(new Set(ids.map((id) => id[0]))).toEqual(new Set(INSTANCES));
    // Sticky: every request of a session reached the instance that minted it, none the other.
    // Each session's tools/list and two calls are in the logs once the writes behind them landed.
    const logged = () =>
      INSTANCES.flatMap((id) => accessLog(id)).filter((e) => ids.includes(e.client)).length;
    await expect.poll(logged, { timeout: 5_000 }).toBeGreaterThanOrEqual(legacy.length * 3);
    for (const id of INSTANCES) {
      const seen = new Set(accessLog(id).map((e) => e.client));
      for (const session of ids)
        expect(seen.has(session), `${session} in ${id}'s log`).toBe(session[0] === id);
    }
    // Ending a session (DELETE) is routed the same way.
    await Promise.all(legacy.map(({ transport }) => transport.terminateSession()));
    // nginx's own log: no request through it was answered 404, and each session-carrying
    // request went to its instance's port.
    const lines = readFileSync(join(prefix, 'logs/access.log'), 'utf8').trim().split('\n');
    const withSession = lines.map((l) => l.split(' ')).filter(([, , session]) => session !== '-');
    expect(withSession.length).toBeGreaterThanOrEqual(6 * 4);
    for (const [status, upstream, session] of withSession) {
      expect(status).not.toBe('404');
      expect(upstream).toBe(`127.0.0.1:${gateways.get((session as string)[0] as string)?.port}`);
    }
    expect(lines.filter((l) => l.startsWith('404 '))).toEqual([]);
  });

  it('finishes on one instance the input round the other started (2026-07-28, shared state key)', async () => {
    const client = new Client(
      { name: 'nginx-rounds', version: '0.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        capabilities: { elicitation: { form: {} } },
        inputRequired: { autoFulfill: false },
      },
    );
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const calls = () => INSTANCES.map((id) => accessLog(id).filter((e) => e.method === 'tools/call').length);
    const tool = 'asking__test_input_required_result_elicitation';
    const ask = (retry?: { requestState: string; inputResponses: Record<string, unknown> }) =>
      client.request(
        { method: 'tools/call', params: { name: tool, arguments: {}, ...retry } },
        { allowInputRequired: true },
      ) as Promise<{ requestState?: string; inputRequests?: object; content?: { text?: string }[] }>;
    const before = calls();
    const first = await ask();
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['user_name']);
    const done = await ask({
      requestState: first.requestState as string,
      inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(done.content?.[0]?.text).toBe('Hello, Ada!');
    // Round robin sent the two requests to different instances: one call each in their logs.
    await expect
      .poll(() => calls().map((n, i) => n - (before[i] as number)), { timeout: 5_000 })
      .toEqual([1, 1]);
  });

  it('resumes a 2025-11-25 stream cut mid-call on the instance that holds its session', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const session = await openRawSession(url, auth);
    const cut = await callCutAndResume({
      url,
      session,
      tool: 'test__slow_operation',
      arguments: { steps: 6, delay_ms: 100 },
      cutAfter: 2,
      pauseMs: 250,
      headers: auth,
    });
    expect(cut.resumeStatus).toBe(200);
    expect(cut.progress).toEqual([1, 2, 3, 4, 5, 6]);
    expect(firstText(cut.result?.result)).toMatch(/6/);
  });

  it('answers an unknown session id with the gateway 404 (the client starts a new session)', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKEN}`,
        'mcp-session-id': 'a.00000000-0000-0000-0000-000000000000',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('Session not found');
  });

  it('passes the public Host name and the bearer token through to the instances’ guard', async () => {
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const ok = await raw({ host: PUBLIC_HOST, ...bearer }, init);
    expect(ok.status).toBe(200);
    expect(ok.session).toMatch(/^[ab]\./);
    expect((await raw({ host: 'rebound.example', ...bearer }, init)).status).toBe(403);
    expect((await raw({ host: PUBLIC_HOST }, init)).status).toBe(401);
  });
});

/** A raw POST through nginx, so Host can be anything (fetch refuses to set it). */
function raw(headers: Record<string, string>, body: string): Promise<{ status: number; session?: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ...(typeof res.headers['mcp-session-id'] === 'string'
              ? { session: res.headers['mcp-session-id'] }
              : {}),
          }),
        );
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

async function connect(era: 'legacy' | 'modern') {
  const client = new Client(
    { name: 'nginx-test', version: '0.0.0' },
    { versionNegotiation: era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } } },
  );
  clients.push(client);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

function accessLog(id: string): { client: string; method: string }[] {
  const log = gateways.get(id)?.log as string;
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { client: string; method: string });
}

/** The documented http block (docs/nginx.conf) with this test's ports, and nginx's access log of routing. */
function httpBlock(port: number): string {
  const upstream = (id: string) => `127.0.0.1:${gateways.get(id)?.port}`;
  return `  log_format routing '$status $upstream_addr $http_mcp_session_id $request_method';
  access_log ${join(prefix, 'logs/access.log')} routing;
${documentedHttpBlock(join(import.meta.dirname, '../../docs/nginx.conf'))
  .replaceAll('127.0.0.1:8801', upstream('a'))
  .replaceAll('127.0.0.1:8802', upstream('b'))
  .replace('listen 8800;', `listen 127.0.0.1:${port};`)}`;
}
