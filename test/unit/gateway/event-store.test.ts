import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createSseEventLog, type SseEventLogBounds } from '../../../src/gateway/http/event-store.js';

const WIDE: SseEventLogBounds = {
  sessionEvents: 1000,
  sessionBytes: 1 << 30,
  totalEvents: 1000,
  totalBytes: 1 << 30,
};

const progress = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: n },
});

/** What a GET with Last-Event-ID would be sent: [event id, progress] pairs, or the refusal. */
async function replay(store: ReturnType<ReturnType<typeof createSseEventLog>['forSession']>, after: string) {
  const sent: [string, unknown][] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, message) => {
      sent.push([id, (message as { params?: { progress?: unknown } }).params?.progress]);
    },
  });
  return { stream, sent };
}

describe('the gateway SSE event log', () => {
  it('replays what followed an event on its own stream only, without the priming event', async () => {
    const log = createSseEventLog(WIDE);
    const store = log.forSession('s1');
    const priming = await store.storeEvent('call-1', {} as JSONRPCMessage);
    const one = await store.storeEvent('call-1', progress(1));
    await store.storeEvent('call-2', progress(100));
    const two = await store.storeEvent('call-1', progress(2));
    const three = await store.storeEvent('call-1', progress(3));

    expect(await store.getStreamIdForEventId(one)).toBe('call-1');
    expect(await replay(store, priming)).toEqual({
      stream: 'call-1',
      sent: [
        [one, 1],
        [two, 2],
        [three, 3],
      ],
    });
    expect((await replay(store, two)).sent).toEqual([[three, 3]]);
    expect((await replay(store, three)).sent).toEqual([]);
  });

  it("never lets one session read another's events", async () => {
    const log = createSseEventLog(WIDE);
    const alice = log.forSession('alice');
    const bob = log.forSession('bob');
    const priming = await alice.storeEvent('stream', {} as JSONRPCMessage);
    await alice.storeEvent('stream', progress(1));

    // The SDK asks for the stream first and answers 400 when there is none.
    expect(await bob.getStreamIdForEventId(priming)).toBeUndefined();
    const sent: unknown[] = [];
    await expect(
      bob.replayEventsAfter(priming, { send: async (_id, message) => void sent.push(message) }),
    ).rejects.toThrow(/no event/);
    expect(sent).toEqual([]);
    expect((await replay(alice, priming)).sent).toHaveLength(1);
  });

  it("evicts a session's oldest events past its event and byte shares", async () => {
    const log = createSseEventLog({ ...WIDE, sessionEvents: 3 });
    const store = log.forSession('s');
    const ids = [];
    for (let n = 1; n <= 5; n++) ids.push(await store.storeEvent('call', progress(n)));
    expect(log.usage().events).toBe(3);
    // The first two are gone: resuming from them is refused, not silently partial.
    expect(await store.getStreamIdForEventId(ids[0] as string)).toBeUndefined();
    expect(await store.getStreamIdForEventId(ids[1] as string)).toBeUndefined();
    expect((await replay(store, ids[2] as string)).sent.map(([, p]) => p)).toEqual([4, 5]);

    const size = Buffer.byteLength(JSON.stringify(progress(1)));
    const bytes = createSseEventLog({ ...WIDE, sessionBytes: size * 2 });
    const small = bytes.forSession('s');
    const first = await small.storeEvent('call', progress(1));
    await small.storeEvent('call', progress(2));
    await small.storeEvent('call', progress(3));
    expect(bytes.usage()).toEqual({ sessions: 1, events: 2, bytes: size * 2 });
    expect(await small.getStreamIdForEventId(first)).toBeUndefined();
  });

  it('evicts the oldest events of any session past the instance total, in events and bytes', async () => {
    const log = createSseEventLog({ ...WIDE, totalEvents: 4 });
    const a = log.forSession('a');
    const b = log.forSession('b');
    const a1 = await a.storeEvent('x', progress(1));
    const b1 = await b.storeEvent('y', progress(1));
    await a.storeEvent('x', progress(2));
    await b.storeEvent('y', progress(2));
    await b.storeEvent('y', progress(3));
    expect(log.usage().events).toBe(4);
    expect(await a.getStreamIdForEventId(a1)).toBeUndefined();
    expect(await b.getStreamIdForEventId(b1)).toBe('y');

    const size = Buffer.byteLength(JSON.stringify(progress(1)));
    const bytes = createSseEventLog({ ...WIDE, totalBytes: size * 3 });
    for (const session of ['a', 'b', 'c', 'd']) await bytes.forSession(session).storeEvent('s', progress(1));
    expect(bytes.usage().bytes).toBeLessThanOrEqual(size * 3);
    expect(bytes.usage().events).toBe(3);
  });

  it('never leaves a gap: a message larger than a whole share takes the older ones with it', async () => {
    const log = createSseEventLog({ ...WIDE, sessionBytes: 64 });
    const store = log.forSession('s');
    const before = await store.storeEvent('call', progress(1));
    const big: JSONRPCMessage = { jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(200) } };
    const id = await store.storeEvent('call', big);
    // Resuming from `before` would miss the result: refused, as for any evicted id.
    expect(await store.getStreamIdForEventId(before)).toBeUndefined();
    expect(await store.getStreamIdForEventId(id)).toBeUndefined();
    expect(log.usage()).toEqual({ sessions: 1, events: 0, bytes: 0 });
  });

  it("drops a session's events with the session, and keeps nothing sent after", async () => {
    const log = createSseEventLog(WIDE);
    const gone = log.forSession('gone');
    const kept = log.forSession('kept');
    await gone.storeEvent('s', progress(1));
    await gone.storeEvent('s', progress(2));
    await kept.storeEvent('s', progress(1));
    log.dropSession('gone');
    expect(log.usage()).toEqual({
      sessions: 1,
      events: 1,
      bytes: Buffer.byteLength(JSON.stringify(progress(1))),
    });
    const late = await gone.storeEvent('s', progress(3));
    expect(await gone.getStreamIdForEventId(late)).toBeUndefined();
    expect(log.usage().events).toBe(1);
  });
});
