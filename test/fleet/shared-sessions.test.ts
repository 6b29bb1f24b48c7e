/**
 * 2025-11-25 sessions in the fleet's store (`mcpx serve --http --state redis://…`), two
 * instances and a real Redis: an event id replays only in its own session, wherever it is
 * asked; and with the store down, the sessions an instance holds go on (their streams still
 * resume there) while any other session is refused with a 404 that says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import {
  callCutAndResume,
  messageOf,
  openRawSession,
  postToolCall,
  resumeStream,
  sessionHeaders,
  sseEvents,
} from '../helpers/raw-session.js';
import { redisEachTest, stateKeyArgs } from '../helpers/redis.js';

let world: GatewayWorld;
const store = redisEachTest(() => world.stopAll());

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { test: { command: process.execPath, args: [testServerPath] } },
  });
});
afterAll(async () => world?.close());

async function twoInstances(): Promise<[string, string]> {
  const url = store().url;
  const [a, b] = await Promise.all(
    ['a', 'b'].map((id) =>
      world.serve(['--port', '0', '--instance-id', id, '--state', url, ...stateKeyArgs(world.dir)]),
    ),
  );
  return [(a as { url: string }).url, (b as { url: string }).url];
}

/** The event ids of a call's stream, read to its result. */
async function eventIdsOfCall(url: string, session: string): Promise<string[]> {
  const call = await postToolCall(url, session, {
    id: 3,
    name: 'test__slow_operation',
    arguments: { steps: 2, delay_ms: 10 },
    progressToken: 'p',
  });
  const ids: string[] = [];
  for await (const event of sseEvents(call)) {
    if (event.id) ids.push(event.id);
    if (messageOf(event)?.id === 3) break;
  }
  return ids;
}

describe('2025-11-25 sessions in the shared store', () => {
  it('replays an event id only in its own session, on any instance', async () => {
    const [a, b] = await twoInstances();
    const mine = await openRawSession(a);
    const other = await openRawSession(b);
    const ids = await eventIdsOfCall(a, mine);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const first = ids[0] as string;
    // Its own session, on the other instance: the rest of the stream.
    const own = await resumeStream(b, mine, first);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('"id":3');
    // Another session, on either instance: refused, nothing replayed.
    for (const url of [a, b]) {
      const foreign = await resumeStream(url, other, first);
      expect(foreign.status).toBe(400);
      expect(await foreign.text()).not.toContain('progress');
    }
  });

  it('keeps serving the sessions an instance holds while the store is down, and says why it refuses the others', async () => {
    const [a, b] = await twoInstances();
    const held = await openRawSession(a);
    const elsewhere = await openRawSession(b);
    await store().stop();
    await expect
      .poll(
        async () =>
          ((await (await fetch(new URL('/healthz', a))).json()) as { state: { up: boolean } }).state.up,
        { timeout: 15_000 },
      )
      .toBe(false);

    // Held here: a call whose stream is cut still resumes here, every event once.
    const cut = await callCutAndResume({
      url: a,
      session: held,
      tool: 'test__slow_operation',
      arguments: { steps: 5, delay_ms: 50 },
      cutAfter: 2,
      pauseMs: 400,
    });
    expect(cut.resumeStatus).toBe(200);
    expect(cut.progress).toEqual([1, 2, 3, 4, 5]);
    expect(firstText(cut.result?.result)).toMatch(/5/);

    // Held by b only: a cannot read it from the store, and says so.
    const refused = await fetch(a, {
      method: 'POST',
      headers: sessionHeaders(elsewhere),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(refused.status).toBe(404);
    const body = await refused.text();
    expect(body).toContain('Session not found');
    expect(body).toContain("the fleet's shared state cannot be read");
  });
});
