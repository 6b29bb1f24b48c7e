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

  // The SDK client's key order: `{...request, jsonrpc, id}`.
  const sdk = (method: string, params: unknown, id: unknown) =>
    `{"method":${JSON.stringify(method)},"params":${JSON.stringify(params)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  /** The ids `lost()` answers after `lines`, each the method it names. */
  const lostAfter = (lines: string[]) => {
    const session = new ThinSession();
    for (const l of lines) session.fromClient(l);
    return session.lost().map((l) => {
      const m = JSON.parse(l) as { id: unknown; error: { message: string } };
      return [m.id, /this (\S+) request/.exec(m.error.message)?.[1]];
    });
  };

  it('waits on every request the daemon takes, however it is written', () => {
    const cases: [string, unknown, string][] = [
      [sdk('tools/call', { name: 'echo', arguments: { message: 'hi' } }, 3), 3, 'tools/call'],
      [sdk('tools/call', { name: 'echo' }, 'a b-1'), 'a b-1', 'tools/call'],
      [sdk('tools/list', {}, -4), -4, 'tools/list'],
      [
        sdk('tools/call', { name: 'x', arguments: { text: '}","jsonrpc":"2.0","id":9}' } }, 10),
        10,
        'tools/call',
      ],
      // An argument named "method": a full parse reads the top level's.
      [sdk('tools/call', { name: 'x', arguments: { method: 'initialize' } }, 11), 11, 'tools/call'],
      // A duplicate key wins in JSON: the later method and the later id are the request's.
      ['{"method":"tools/call","params":{},"method":"tools/list","jsonrpc":"2.0","id":12}', 12, 'tools/list'],
      ['{"method":"tools/call","params":{},"id":99,"jsonrpc":"2.0","id":13}', 13, 'tools/call'],
      // Other key orders, whitespace, escapes, ids the end pattern does not read.
      [line({ jsonrpc: '2.0', id: 14, method: 'tools/call', params: {} }), 14, 'tools/call'],
      ['{ "method" : "tools/call", "jsonrpc" : "2.0", "id" : 15 }', 15, 'tools/call'],
      ['{"method":"tools\\/call","params":{},"jsonrpc":"2.0","id":16}', 16, 'tools/call'],
      [sdk('tools/call', {}, 'q"uote'), 'q"uote', 'tools/call'],
      // Large arguments: parsed now rather than kept.
      [sdk('tools/call', { name: 'x', arguments: { text: 'y'.repeat(100_000) } }, 17), 17, 'tools/call'],
      [sdk('tools/call', {}, 1.5), 1.5, 'tools/call'],
      // Past the digits the end pattern reads: the parse rounds it, as the daemon's does.
      [
        '{"method":"tools/call","params":{},"jsonrpc":"2.0","id":12345678901234567}',
        Number('12345678901234567'),
        'tools/call',
      ],
    ];
    for (const [l, id, method] of cases) expect(lostAfter([l]), l).toEqual([[id, method]]);
  });

  it('waits on no line the daemon skips: not JSON, not JSON-RPC, a batch, a notification, an answer', () => {
    const skipped = [
      // The SDK's shape at both ends, broken in the middle.
      '{"method":"tools/call","params":{"name":,"jsonrpc":"2.0","id":1}',
      '{"method":"tools/call","params":{"name":"x\u0001"},"jsonrpc":"2.0","id":2}',
      '{"method":"tools/call","params":{"name":"x"}}},"jsonrpc":"2.0","id":3}',
      '{"method":"tools/call","params":{},"jsonrpc":"2.0","id":04}',
      `{"method":"tools/call","params":{"text":"${'y'.repeat(100_000)}"},,"jsonrpc":"2.0","id":18}`,
      // JSON, but not a request the daemon's transport takes.
      '{"method":"tools/call","params":[],"jsonrpc":"2.0","id":5}',
      '{"method":"tools/call","params":{},"jsonrpc":"1.0","id":6}',
      '{"method":"tools/call","params":{},"id":7}',
      line({ id: 8, method: 'tools/call', params: {} }),
      '{"jsonrpc":"2.0","id":1e999,"method":"tools/call"}',
      line([{ jsonrpc: '2.0', id: 9, method: 'tools/call', params: {} }]),
      line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
      line({ jsonrpc: '2.0', id: 10, result: {} }),
      'not json',
    ];
    for (const l of skipped) expect(lostAfter([l]), l).toEqual([]);
  });

  it('keeps the first of two requests with one id when the second is broken', () => {
    expect(
      lostAfter([
        sdk('tools/list', {}, 1),
        '{"method":"tools/call","params":{"name":,"jsonrpc":"2.0","id":1}',
      ]),
    ).toEqual([[1, 'tools/list']]);
  });

  it('reads the session’s own requests whole, in the SDK’s shape too', () => {
    const session = new ThinSession();
    session.fromClient(sdk('initialize', { protocolVersion: '2025-11-25', capabilities: {} }, 0));
    session.fromClient('{"method":"notifications/initialized","jsonrpc":"2.0"}');
    session.fromClient(sdk('logging/setLevel', { level: 'debug' }, 1));
    session.fromClient(sdk('resources/subscribe', { uri: 'a://1' }, 2));
    // Not JSON-RPC: the daemon skips it, so it is no subscription.
    session.fromClient('{"method":"resources/subscribe","params":{"uri":"a://2"},"id":3}');
    expect(session.replay().map((l) => JSON.parse(l) as { method: string; params?: unknown })).toMatchObject([
      { method: 'initialize', params: { protocolVersion: '2025-11-25' } },
      { method: 'notifications/initialized' },
      { method: 'logging/setLevel', params: { level: 'debug' } },
      { method: 'resources/subscribe', params: { uri: 'a://1' } },
    ]);
  });
});
