import { describe, expect, it } from 'vitest';
import { ThinSession } from '../../../../src/cli/daemon-handoff/thin-session.js';

const line = (message: unknown) => JSON.stringify(message);

describe('ThinSession', () => {
  it('replays a 2025 client’s session: its initialize, initialized, logging level and live subscriptions', () => {
    const session = new ThinSession();
    const initialize = {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    };
    session.fromClient(line({ jsonrpc: '2.0', id: 0, method: 'initialize', params: initialize }));
    session.fromClient(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    session.fromClient(
      line({ jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'debug' } }),
    );
    session.fromClient(
      line({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'a://1' } }),
    );
    session.fromClient(
      line({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'a://2' } }),
    );
    session.fromClient(
      line({ jsonrpc: '2.0', id: 4, method: 'resources/unsubscribe', params: { uri: 'a://1' } }),
    );
    const replay = session
      .replay()
      .map((l) => JSON.parse(l) as { id?: string; method: string; params?: unknown });
    expect(replay.map((m) => m.method)).toEqual([
      'initialize',
      'notifications/initialized',
      'logging/setLevel',
      'resources/subscribe',
    ]);
    expect(replay[0]?.params).toEqual(initialize);
    expect(replay[3]?.params).toEqual({ uri: 'a://2' });
    // Their answers are the bridge's, never the client's.
    for (const m of replay.filter((r) => r.id !== undefined)) {
      expect(session.fromDaemon(line({ jsonrpc: '2.0', id: m.id, result: {} }))).toBe(false);
    }
    expect(session.fromDaemon(line({ jsonrpc: '2.0', id: 4, result: {} }))).toBe(true);
  });

  it('answers the requests the old daemon took with it, once; answered ones are not among them', () => {
    const session = new ThinSession();
    session.fromClient(line({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } }));
    session.fromClient(
      line({ jsonrpc: '2.0', id: 'r-8', method: 'resources/read', params: { uri: 'a://' } }),
    );
    session.fromClient(line({ jsonrpc: '2.0', id: 9, method: 'tools/list' }));
    expect(session.fromDaemon(line({ result: {}, jsonrpc: '2.0', id: 9 }))).toBe(true);
    // A request of the daemon's with a clashing id is not an answer.
    session.fromDaemon(line({ jsonrpc: '2.0', id: 7, method: 'elicitation/create', params: {} }));
    const lost = session.lost().map((l) => JSON.parse(l) as { id: unknown; error: { message: string } });
    expect(lost.map((m) => m.id)).toEqual([7, 'r-8']);
    expect(lost[0]?.error.message).toMatch(/tools\/call request ran.*may or may not have run/);
    expect(session.lost()).toEqual([]);
    expect(session.replay()).toEqual([]);
  });

  it('finds the id of an answer too long to parse at either end', () => {
    const session = new ThinSession();
    session.fromClient(line({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: {} }));
    session.fromClient(line({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: {} }));
    const big = 'x'.repeat(100_000);
    // The SDK writes the id last; others (Python's) first.
    session.fromDaemon(`{"result":{"content":[{"type":"text","text":"${big}"}]},"jsonrpc":"2.0","id":11}`);
    session.fromDaemon(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"${big}"}]}}`);
    expect(session.lost()).toEqual([]);
  });

  it('reads the id of an answer written in the SDK’s key order from its end, and only a real one', () => {
    const session = new ThinSession();
    for (const id of [7, 8, 'r-9'])
      session.fromClient(line({ jsonrpc: '2.0', id, method: 'tools/call', params: {} }));
    // A result whose text ends in what looks like another id: escaped, so not the answer's.
    const text = 'x","jsonrpc":"2.0","id":7}';
    expect(
      session.fromDaemon(line({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id: 8 })),
    ).toBe(true);
    // A request of the daemon's, in the same key order, with a clashing id: not an answer.
    session.fromDaemon(line({ method: 'elicitation/create', params: {}, jsonrpc: '2.0', id: 7 }));
    expect(session.fromDaemon(line({ result: {}, jsonrpc: '2.0', id: 'r-9' }))).toBe(true);
    expect(session.lost().map((l) => (JSON.parse(l) as { id: unknown }).id)).toEqual([7]);
  });
});
