/**
 * The HTTP fast path of `mcpx serve --http` (gateway/fast-path.ts, http/listener.ts): a plain
 * `tools/call` skips the SDK's web Request/Response, its dispatch and (2026-07-28) the server
 * made per request, and runs the session server's own handler. A raw HTTP client talks to the
 * built CLI twice, once as it is and once with `MCPX_GATEWAY_FAST_PATH=0`; the JSON-RPC answers
 * must be the same (2026-07-28: the same status and body, byte for byte), and `--verbose` says
 * how many calls took the fast path.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';

const backendPath = join(repoRoot, 'dist/testing/conformance-backend.js');

type Message = { id?: unknown; method?: string; result?: unknown; error?: unknown; [key: string]: unknown };

let world: GatewayWorld;
let cancelLog: string;

beforeAll(async () => {
  world = await gatewayWorld({});
  cancelLog = join(world.dir, 'cancel.log');
  await writeFile(
    world.configFile,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: {
        local: {
          protocol: 'legacy',
          command: process.execPath,
          args: [testServerPath],
          env: { MCPX_TEST_CANCEL_LOG: cancelLog },
        },
        backend: { protocol: 'legacy', command: process.execPath, args: [backendPath] },
      },
    }),
  );
});

afterEach(async () => {
  await world.stopAll();
});

afterAll(async () => {
  await world?.close();
});

/** `mcpx --verbose serve --http ARGS`, the fast path on or off. */
function serve(fast: boolean, args: readonly string[] = ['--server', 'local']): Promise<RunningGateway> {
  return world.serve([...args, '--verbose'], { MCPX_GATEWAY_FAST_PATH: fast ? '1' : '0' });
}

/** Stop the gateway; the count of calls that took the fast path, from its `--verbose` line. */
async function stop(gateway: RunningGateway): Promise<number> {
  gateway.child.kill('SIGTERM');
  await gateway.exited;
  const match = /(\d+) call\(s\) took the fast path/.exec(gateway.stderr());
  if (!match) throw new Error(`no fast path count in stderr:\n${gateway.stderr()}`);
  return Number(match[1]);
}

const ACCEPT = 'application/json, text/event-stream';

/** The JSON-RPC messages of a response, whether one JSON body or an event stream. */
async function messagesOf(response: Response): Promise<Message[]> {
  const text = await response.text();
  if (!text) return [];
  if (response.headers.get('content-type')?.startsWith('application/json')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 'data: '.length)
    .map((line) => JSON.parse(line.slice('data: '.length)) as Message);
}

/** A 2025-11-25 session by hand: initialize, initialized, and its standalone GET stream read in the background. */
async function legacySession(url: string, capabilities: Record<string, unknown> = {}) {
  const post = (body: unknown, session?: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        accept: ACCEPT,
        'content-type': 'application/json',
        ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
      },
      body: JSON.stringify(body),
    });
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '0' } },
  });
  const session = init.headers.get('mcp-session-id') as string;
  await init.text();
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
  const standalone: Message[] = [];
  const stream = new AbortController();
  const get = await fetch(url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    signal: stream.signal,
  });
  void (async () => {
    const reader = (get.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += value;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines)
        if (line.startsWith('data: ') && line.length > 6) standalone.push(JSON.parse(line.slice(6)));
    }
  })().catch(() => {});
  let id = 1;
  return {
    standalone,
    /** A call's response: its status, its content type and its messages. */
    async call(name: string, args?: unknown) {
      const response = await post(
        {
          jsonrpc: '2.0',
          id: id++,
          method: 'tools/call',
          params: { name, ...(args === undefined ? {} : { arguments: args }) },
        },
        session,
      );
      return { status: response.status, messages: await messagesOf(response) };
    },
    /** A notification; its status. */
    async send(message: unknown) {
      const response = await post(message, session);
      await response.text();
      return response.status;
    },
    close: () => stream.abort(),
  };
}

/** One 2026-07-28 `tools/call` by hand: its status and body text. */
async function modernCall(
  url: string,
  id: number,
  name: string,
  args?: unknown,
  extraMeta = {},
  nameHeader = name,
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      accept: ACCEPT,
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': nameHeader,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name,
        ...(args === undefined ? {} : { arguments: args }),
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
          ...extraMeta,
        },
      },
    }),
  });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

/** The calls both eras make: plain ones, a tool error, refused arguments, none, a log, an unknown tool. */
const CALLS: ReadonlyArray<readonly [string, unknown?]> = [
  ['echo', { message: 'hello' }],
  ['echo', { message: 'x'.repeat(5_000) }],
  ['add', { a: 20, b: 22 }],
  ['fail', { message: 'it failed' }],
  ['echo', { message: 5 }],
  ['echo'],
  ['log', { message: 'logged' }],
  ['no_such_tool', {}],
  ['echo', { message: 'extra', extra: true }],
];

describe('mcpx serve --http, fast path', () => {
  it('2025-11-25: takes plain calls and answers each as the full path does', async () => {
    const seen: Record<string, { replies: Message[]; notifications: string[]; calls: number }> = {};
    // The full path first: the fast path's log messages come on the session's own stream, which
    // may deliver the last of them after the last answer, so they are waited for up to its count.
    for (const fast of [false, true]) {
      const gateway = await serve(fast);
      const session = await legacySession(gateway.url);
      const replies: Message[] = [];
      const onCallStreams: Message[] = [];
      for (const [name, args] of CALLS) {
        const { status, messages } = await session.call(name, args);
        expect(status).toBe(200);
        replies.push(...messages.filter((m) => m.method === undefined));
        onCallStreams.push(...messages.filter((m) => m.method !== undefined));
      }
      // A log message reaches the client on the call's stream (full path) or the session's (fast).
      const expected = seen.false?.notifications.length ?? 1;
      await expect
        .poll(() => [...onCallStreams, ...session.standalone].length, { timeout: 5_000 })
        .toBeGreaterThanOrEqual(expected);
      const notifications = [...onCallStreams, ...session.standalone]
        .filter((m) => m.method === 'notifications/message')
        .map((m) => JSON.stringify(m))
        .sort();
      session.close();
      seen[String(fast)] = { replies, notifications, calls: await stop(gateway) };
    }
    expect(seen.false?.calls).toBe(0);
    expect(seen.true?.calls).toBe(CALLS.length);
    expect(seen.true?.replies).toEqual(seen.false?.replies);
    expect(seen.true?.notifications).toEqual(seen.false?.notifications);
    expect(seen.true?.notifications.length).toBeGreaterThan(0);
    expect(seen.true?.replies[0]).toMatchObject({ id: 1, result: { content: [{ text: 'hello' }] } });
  });

  it('2026-07-28: the same status, content type and body, byte for byte', async () => {
    const seen: Record<string, { answers: unknown[]; calls: number }> = {};
    for (const fast of [true, false]) {
      const gateway = await serve(fast);
      const answers: unknown[] = [];
      let id = 1;
      for (const [name, args] of CALLS) answers.push(await modernCall(gateway.url, id++, name, args));
      seen[String(fast)] = { answers, calls: await stop(gateway) };
    }
    expect(seen.false?.calls).toBe(0);
    expect(seen.true?.calls).toBe(CALLS.length);
    expect(seen.true?.answers).toEqual(seen.false?.answers);
    expect(seen.true?.answers[0]).toMatchObject({ status: 200, type: 'application/json' });
    const first = seen.true?.answers[0] as { body: string };
    expect(JSON.parse(first.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: 'hello' }],
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'local', version: expect.any(String) } },
      },
    });
  });

  it('requests that need more than a plain call take the full path', async () => {
    const gateway = await serve(true, []);
    // A 2026-07-28 request asking for log messages, and one whose header names another tool.
    const logged = await modernCall(
      gateway.url,
      1,
      'local__echo',
      { message: 'a' },
      {
        'io.modelcontextprotocol/logLevel': 'debug',
      },
    );
    expect(logged.status).toBe(200);
    const mismatch = await modernCall(gateway.url, 2, 'local__echo', { message: 'b' }, {}, 'local__add');
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatch(/disagree/);
    // A 2025 client that can be asked things (its server's questions belong on the call's stream).
    const asking = await legacySession(gateway.url, { elicitation: { form: {} } });
    const reply = await asking.call('backend__test_simple_text');
    expect(reply.messages[0]).toMatchObject({ result: { content: [{ type: 'text' }] } });
    asking.close();
    expect(await stop(gateway)).toBe(0);
  });

  it('a cancelled fast call reaches the server as a cancellation and gets no answer', async () => {
    const gateway = await serve(true, ['--server', 'local']);
    const session = await legacySession(gateway.url);
    const slow = session.call('slow_operation', { steps: 100, delay_ms: 100 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelled = await session.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'changed my mind' },
    });
    expect(cancelled).toBe(202);
    await expect
      .poll(() => readFile(cancelLog, 'utf8').catch(() => ''), { timeout: 10_000 })
      .toContain('slow_operation cancelled');
    // Its stream ends without an answer; the next call is answered.
    expect((await slow).messages).toEqual([]);
    const after = await session.call('echo', { message: 'after' });
    expect(after.messages[0]).toMatchObject({ id: 2, result: { content: [{ text: 'after' }] } });
    session.close();
    expect(await stop(gateway)).toBe(2);
  });
});
