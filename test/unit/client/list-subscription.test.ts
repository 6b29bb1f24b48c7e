import type { Client, McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepListening } from '../../../src/client/list-subscription.js';

type Cause = 'local' | 'remote' | 'graceful';

/** A subscription the test ends by hand. */
function subscription(): McpSubscription & { end: (cause: Cause) => void } {
  let end: (cause: Cause) => void = () => {};
  const closed = new Promise<Cause>((resolve) => {
    end = resolve;
  });
  return {
    honoredFilter: { toolsListChanged: true },
    close: async () => end('local'),
    closed: closed as McpSubscription['closed'],
    end: (cause) => end(cause),
  };
}

/** A Client whose listen() answers with the next scripted outcome. */
function fakeClient(outcomes: (() => McpSubscription | Error)[]) {
  const listens: number[] = [];
  const client = {
    listen: vi.fn(async (_filter: SubscriptionFilter) => {
      listens.push(Date.now());
      const next = outcomes.shift();
      if (!next) throw new SdkError(SdkErrorCode.NotConnected, 'Not connected');
      const outcome = next();
      if (outcome instanceof Error) throw outcome;
      return outcome;
    }),
  };
  return { client: client as unknown as Client, listens };
}

const filter = { toolsListChanged: true };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('keepListening', () => {
  it('listens again after every drop, any number of times, and says the lists may have changed', async () => {
    const streams = Array.from({ length: 20 }, () => subscription());
    const first = subscription();
    const { client } = fakeClient(streams.map((s) => () => s));
    const reopened: SubscriptionFilter[] = [];
    const stop = keepListening(client, first, {
      filter,
      ackTimeoutMs: 1000,
      onReopened: (honored) => reopened.push(honored),
      random: () => 0.5,
    });
    let current = first;
    for (const next of streams) {
      current.end('remote');
      await vi.advanceTimersByTimeAsync(31_000);
      current = next;
    }
    expect(client.listen).toHaveBeenCalledTimes(20);
    expect(reopened).toHaveLength(20);
    expect(reopened[0]).toEqual({ toolsListChanged: true });
    stop();
  });

  it('backs off with jitter while listens fail, never waiting more than 30 s', async () => {
    const failures = Array.from({ length: 12 }, () => () => new Error('stream dropped before the ack'));
    const { client, listens } = fakeClient(failures);
    const started = Date.now();
    const stop = keepListening(client, undefined, { filter, ackTimeoutMs: 1000, onReopened: () => {} });
    await vi.advanceTimersByTimeAsync(12 * 30_000);
    // Twelve failures, then a thirteenth listen finds the connection gone and stops.
    expect(listens).toHaveLength(13);
    const waits = listens.map((at, i) => at - (i === 0 ? started : (listens[i - 1] as number)));
    expect(waits[0]).toBeLessThanOrEqual(250);
    expect(Math.max(...waits)).toBeLessThanOrEqual(30_000);
    // It grows: the last waits are far longer than the first.
    expect(waits.at(-1)).toBeGreaterThanOrEqual(15_000);
    stop();
  });

  it('stops when told, and when the server will never listen', async () => {
    const first = subscription();
    const { client } = fakeClient([
      () => new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found'),
      () => subscription(),
    ]);
    const stop = keepListening(client, first, { filter, ackTimeoutMs: 1000, onReopened: () => {} });
    first.end('remote');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(client.listen).toHaveBeenCalledTimes(1);
    stop();

    const again = fakeClient([() => subscription()]);
    const dropped = subscription();
    const stopAgain = keepListening(again.client, dropped, {
      filter,
      ackTimeoutMs: 1000,
      onReopened: () => {},
    });
    stopAgain();
    dropped.end('remote');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(again.client.listen).not.toHaveBeenCalled();
  });

  it('does not listen again after a local close', async () => {
    const first = subscription();
    const { client } = fakeClient([() => subscription()]);
    const stop = keepListening(client, first, { filter, ackTimeoutMs: 1000, onReopened: () => {} });
    await first.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(client.listen).not.toHaveBeenCalled();
    stop();
  });
});
