/**
 * Resumable streams through `mcpx serve --http` (2025-11-25, SEP-1699): a client
 * whose SSE stream is cut mid-call comes back with Last-Event-ID and gets every
 * progress notification and the result, while the upstream call runs on; another
 * client cannot replay that stream; `--sse-poll` ends a call's stream itself and
 * the SDK client resumes it without losing anything.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { cancelLoggingWorld, firstText, type GatewayWorld } from '../helpers/gateway.js';
import {
  callCutAndResume,
  LEGACY_VERSION,
  messageOf,
  openRawSession,
  postToolCall,
  resumeStream,
  sseEvents,
} from '../helpers/raw-session.js';

let world: GatewayWorld;
let cancellations: () => Promise<number>;

beforeAll(async () => {
  ({ world, cancellations } = await cancelLoggingWorld());
}, 60_000);

afterEach(() => world.stopAll());
afterAll(() => world?.close());

describe('a 2025-11-25 stream cut mid-call', () => {
  it('resumes with Last-Event-ID: every progress notification and the result, the call untouched', async () => {
    const gateway = await world.serve();
    const session = await openRawSession(gateway.url);
    const before = await cancellations();
    const cut = await callCutAndResume({
      url: gateway.url,
      session,
      tool: 'local__slow_operation',
      arguments: { steps: 8, delay_ms: 100 },
      cutAfter: 2,
      pauseMs: 350,
    });
    expect(cut.retry).toBe(1000);
    expect(cut.resumeStatus).toBe(200);
    expect(cut.progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(firstText(cut.result?.result)).toMatch(/8/);
    // The upstream never heard of the cut: no cancellation reached it.
    expect(await cancellations()).toBe(before);
  });

  it('takes the stream over from a connection the server still believes alive', async () => {
    const gateway = await world.serve();
    const session = await openRawSession(gateway.url);
    // The first connection is never closed by the client: it stops reading, as a client that woke
    // up on another network would, whose old connection the server cannot tell is dead.
    const stale = await postToolCall(gateway.url, session, {
      id: 9,
      name: 'local__slow_operation',
      arguments: { steps: 6, delay_ms: 100 },
      progressToken: 'p',
    });
    const progress: number[] = [];
    let lastId: string | undefined;
    const events = sseEvents(stale);
    for await (const event of events) {
      if (event.id) lastId = event.id;
      const message = messageOf(event);
      if (message?.method === 'notifications/progress') progress.push(message.params?.progress as number);
      if (progress.length === 1) break;
    }
    const resumed = await resumeStream(gateway.url, session, lastId as string);
    expect(resumed.status).toBe(200);
    let result: unknown;
    for await (const event of sseEvents(resumed)) {
      const message = messageOf(event);
      if (message?.method === 'notifications/progress') progress.push(message.params?.progress as number);
      if (message?.id === 9) {
        result = message.result;
        break;
      }
    }
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
    expect(firstText(result)).toMatch(/6/);
    // The old connection was ended by the gateway, not left to hang: reading it comes to its end.
    for await (const _ of events) {
      // whatever it still had buffered
    }
  });

  it('cannot be replayed by another session, nor without one', async () => {
    const gateway = await world.serve();
    const owner = await openRawSession(gateway.url);
    const call = await postToolCall(gateway.url, owner, {
      id: 1,
      name: 'local__echo',
      arguments: { message: 'secret of the owner' },
      progressToken: 1,
    });
    let firstId: string | undefined;
    for await (const event of sseEvents(call)) firstId ??= event.id;
    expect(firstId).toBeDefined();

    const other = await openRawSession(gateway.url);
    const stolen = await resumeStream(gateway.url, other, firstId as string);
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).not.toContain('secret of the owner');
    const sessionless = await fetch(gateway.url, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        'mcp-protocol-version': LEGACY_VERSION,
        'last-event-id': firstId as string,
      },
    });
    expect(sessionless.status).toBe(400);
    expect(await sessionless.text()).not.toContain('secret of the owner');

    // The owner still can.
    const own = await resumeStream(gateway.url, owner, firstId as string);
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
});

describe("serve's stream options", () => {
  it.each([
    ['--sse-poll', '0', /--sse-poll takes a positive number of milliseconds, got '0'/, '100'],
    ['--session-idle', '1.5', /--session-idle takes a positive number of seconds, got '1\.5'/, '60'],
  ])('%s takes a positive whole number, with --http only', async (option, bad, said, good) => {
    const refused = await runCli(['--config', world.configFile, 'serve', '--http', option, bad], {
      cwd: world.dir,
      home: world.home,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(said);
    const stdio = await runCli(['--config', world.configFile, 'serve', option, good], {
      cwd: world.dir,
      home: world.home,
    });
    expect(stdio.code).toBe(1);
    expect(stdio.stderr).toMatch(new RegExp(`${option} goes with --http`));
  });
});
