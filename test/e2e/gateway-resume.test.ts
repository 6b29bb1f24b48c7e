/**
 * Resumable streams through `mcpx serve --http` (2025-11-25, SEP-1699): a client
 * whose SSE stream is cut mid-call comes back with Last-Event-ID and gets every
 * progress notification and the result, while the upstream call runs on; another
 * client cannot replay that stream; `--sse-poll` ends a call's stream itself and
 * the SDK client resumes it without losing anything.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const VERSION = '2025-11-25';
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
          command: process.execPath,
          args: [testServerPath],
          env: { MCPX_TEST_CANCEL_LOG: cancelLog },
        },
      },
    }),
  );
}, 60_000);

afterEach(() => world.stopAll());
afterAll(() => world?.close());

interface SseEvent {
  readonly id?: string;
  readonly retry?: number;
  readonly data: string;
}

/** The events of an SSE body as they arrive (a minimal parser: `id`, `retry`, `data` fields). */
async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | undefined;
      let retry: number | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        const [field, ...rest] = line.split(':');
        const text = rest.join(':').replace(/^ /, '');
        if (field === 'id') id = text;
        else if (field === 'retry') retry = Number(text);
        else if (field === 'data') data.push(text);
      }
      yield {
        ...(id !== undefined ? { id } : {}),
        ...(retry !== undefined ? { retry } : {}),
        data: data.join('\n'),
      };
    }
  }
}

interface RawMessage {
  readonly id?: number;
  readonly method?: string;
  readonly params?: { readonly progress?: number };
  readonly result?: unknown;
}

const parse = (event: SseEvent): RawMessage | undefined =>
  event.data.trim() === '' ? undefined : (JSON.parse(event.data) as RawMessage);

/** A raw 2025-11-25 session: initialize, initialized; returns its id. */
async function openSession(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  });
  expect(response.status).toBe(200);
  const session = response.headers.get('mcp-session-id') as string;
  expect(session).toBeTruthy();
  await response.arrayBuffer();
  const initialized = await fetch(url, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return session;
}

function headers(session: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': session,
    'mcp-protocol-version': VERSION,
    ...extra,
  };
}

async function cancellations(): Promise<number> {
  const text = await readFile(cancelLog, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l.includes('cancelled')).length;
}

describe('a 2025-11-25 stream cut mid-call', () => {
  it('resumes with Last-Event-ID: every progress notification and the result, the call untouched', async () => {
    const gateway = await world.serve();
    const session = await openSession(gateway.url);
    const before = await cancellations();
    const cut = new AbortController();
    const call = await fetch(gateway.url, {
      method: 'POST',
      headers: headers(session),
      signal: cut.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'local__slow_operation',
          arguments: { steps: 8, delay_ms: 100 },
          _meta: { progressToken: 'p' },
        },
      }),
    });
    expect(call.headers.get('content-type')).toMatch(/text\/event-stream/);
    const progress: number[] = [];
    let lastId: string | undefined;
    let retry: number | undefined;
    const events = sseEvents(call);
    for await (const event of events) {
      retry ??= event.retry;
      if (event.id) lastId = event.id;
      const message = parse(event);
      if (message?.method === 'notifications/progress') progress.push(message.params?.progress as number);
      if (progress.length === 2) break;
    }
    // The connection drops (as a proxy's cut or a sleeping laptop would) while the call runs on.
    cut.abort();
    await events.return(undefined).catch(() => {});
    expect(retry).toBe(1000);
    expect(lastId).toBeDefined();
    await delay(350);

    const resumed = await fetch(gateway.url, {
      method: 'GET',
      headers: headers(session, { accept: 'text/event-stream', 'last-event-id': lastId as string }),
    });
    expect(resumed.status).toBe(200);
    let result: RawMessage | undefined;
    for await (const event of sseEvents(resumed)) {
      const message = parse(event);
      if (message?.method === 'notifications/progress') progress.push(message.params?.progress as number);
      if (message?.id === 7) {
        result = message;
        break;
      }
    }
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(firstText(result?.result)).toMatch(/8/);
    // The upstream never heard of the cut: no cancellation reached it.
    expect(await cancellations()).toBe(before);
  });

  it('cannot be replayed by another session, nor without one', async () => {
    const gateway = await world.serve();
    const owner = await openSession(gateway.url);
    const call = await fetch(gateway.url, {
      method: 'POST',
      headers: headers(owner),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'local__echo',
          arguments: { message: 'secret of the owner' },
          _meta: { progressToken: 1 },
        },
      }),
    });
    let firstId: string | undefined;
    for await (const event of sseEvents(call)) firstId ??= event.id;
    expect(firstId).toBeDefined();

    const other = await openSession(gateway.url);
    const stolen = await fetch(gateway.url, {
      method: 'GET',
      headers: headers(other, { accept: 'text/event-stream', 'last-event-id': firstId as string }),
    });
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).not.toContain('secret of the owner');
    const sessionless = await fetch(gateway.url, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        'mcp-protocol-version': VERSION,
        'last-event-id': firstId as string,
      },
    });
    expect(sessionless.status).toBe(400);
    expect(await sessionless.text()).not.toContain('secret of the owner');

    // The owner still can.
    const own = await fetch(gateway.url, {
      method: 'GET',
      headers: headers(owner, { accept: 'text/event-stream', 'last-event-id': firstId as string }),
    });
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('secret of the owner');
  });
});

describe('mcpx serve --http --sse-poll', () => {
  it("ends a running call's stream and the SDK client resumes it, missing nothing", async () => {
    const gateway = await world.serve(['--sse-poll', '150']);
    const resumes: string[] = [];
    const client = new Client(
      { name: 'poll-test', version: '0' },
      { versionNegotiation: { mode: 'legacy' } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), {
        fetch: (input, init) => {
          const lastEventId = new Headers(init?.headers).get('last-event-id');
          if (init?.method === 'GET' && lastEventId) resumes.push(lastEventId);
          return fetch(input, init);
        },
      }),
    );
    try {
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'local__slow_operation', arguments: { steps: 6, delay_ms: 100 } },
        { onprogress: (p) => void progress.push(p.progress) },
      );
      expect(resumes.length).toBeGreaterThanOrEqual(1);
      expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toMatch(/6/);
    } finally {
      await client.close();
    }
  });

  it('takes a positive number of milliseconds, with --http only', async () => {
    const bad = await runCli(['--config', world.configFile, 'serve', '--http', '--sse-poll', '0'], {
      cwd: world.dir,
      home: world.home,
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--sse-poll takes a positive number of milliseconds, got '0'/);
    const stdio = await runCli(['--config', world.configFile, 'serve', '--sse-poll', '100'], {
      cwd: world.dir,
      home: world.home,
    });
    expect(stdio.code).toBe(1);
    expect(stdio.stderr).toMatch(/--sse-poll goes with --http/);
  });
});
