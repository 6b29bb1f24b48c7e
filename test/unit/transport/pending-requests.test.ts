import { describe, expect, it } from 'vitest';
import { PendingRequests } from '../../../src/transport/stdio/pending-requests.js';

const request = (id: number | string, method: string) => ({ jsonrpc: '2.0' as const, id, method });
const parse = (line: string): unknown => {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
};

function waitingOn(...requests: Array<[number | string, string]>): PendingRequests {
  const pending = new PendingRequests();
  for (const [id, method] of requests) pending.sent(request(id, method));
  return pending;
}

describe('PendingRequests: which request a malformed line answers', () => {
  it('the one whose id the line names, even when the JSON is cut short', () => {
    const pending = waitingOn([3, 'tools/list'], [4, 'tools/call']);
    const line = '{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"te';
    expect(pending.answeredBy(line, parse(line))).toEqual({ id: 4, method: 'tools/call' });
    const wrong = '{"jsonrpc":"2.0","id":"a\\"b","result":"not an object"}';
    pending.sent(request('a"b', 'prompts/list'));
    expect(pending.answeredBy(wrong, parse(wrong))).toEqual({ id: 'a"b', method: 'prompts/list' });
  });

  it('the only request waiting, when the line looks like a reply without an id', () => {
    const pending = waitingOn([1, 'tools/call'], [0, 'subscriptions/listen']);
    const line = '{"jsonrpc":"2.0","result":{"content":[]}}';
    expect(pending.answeredBy(line, parse(line))).toEqual({ id: 1, method: 'tools/call' });
    pending.sent(request(2, 'tools/list'));
    expect(pending.answeredBy(line, parse(line))).toBeUndefined(); // two waiting: cannot tell
  });

  it('never a log line (plain or JSON), a garbled notification, or a server/discover probe', () => {
    const pending = waitingOn([1, 'initialize']);
    const logs = [
      'Server running on stdio',
      '{"level":30,"msg":"ready","pid":7}',
      '{"level":"error","error":"boom"}',
      '[info] {"id": 1, "result": 2}',
      '{"jsonrpc":"2.0","method":"notifications/message","params":"not an object"}',
    ];
    for (const line of logs) expect(pending.answeredBy(line, parse(line)), line).toBeUndefined();
    const probe = waitingOn([0, 'server/discover']);
    const garbled = '{"jsonrpc":"2.0","id":0,"result":"?"}';
    expect(probe.answeredBy(garbled, parse(garbled))).toBeUndefined();
  });

  it('forgets a request once answered or cancelled', () => {
    const pending = waitingOn([1, 'tools/call'], [2, 'tools/call']);
    pending.received({ jsonrpc: '2.0', id: 1, result: {} });
    pending.sent({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    const line = '{"jsonrpc":"2.0","id":1,"result":1}';
    expect(pending.answeredBy(line, parse(line))).toBeUndefined();
    expect(pending.answeredBy('{"jsonrpc":"2.0",', undefined)).toBeUndefined();
  });

  it('takes an id-less error while a probe waits for a 2025 server refusing it, not a malformed reply', () => {
    const idless = '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"}}';
    expect(waitingOn([0, 'server/discover']).refusesProbe(idless, parse(idless))).toBe(true);
    expect(waitingOn([1, 'tools/call']).refusesProbe(idless, parse(idless))).toBe(false);
    const withId = '{"jsonrpc":"2.0","id":0,"error":{"code":-32601}}';
    expect(waitingOn([0, 'server/discover']).refusesProbe(withId, parse(withId))).toBe(false);
  });
});

describe('PendingRequests: which request a line too long to read answers, from its ends', () => {
  const big = 'x'.repeat(100);
  it('a reply with its id last (the TypeScript SDK) or first (pydantic), whatever its result holds', () => {
    const pending = waitingOn([3, 'tools/list'], [4, 'tools/call'], [0, 'subscriptions/listen']);
    // A schema with a `method` property, deep inside the result, is no request.
    const head = `{"result":{"tools":[{"name":"fetch","inputSchema":{"properties":{"method":{"type":"string"}}}},${big}`;
    expect(pending.answeredByOversized(head, `${big}"}]},"jsonrpc":"2.0","id":3}`)).toEqual({
      id: 3,
      method: 'tools/list',
    });
    expect(
      pending.answeredByOversized(`{"jsonrpc":"2.0","id":4,"result":{"content":[${big}`, `${big}]}}`),
    ).toEqual({
      id: 4,
      method: 'tools/call',
    });
  });

  it('the only request waiting when no id can be read; else none', () => {
    const one = waitingOn([7, 'tools/list'], [0, 'server/discover']);
    expect(one.answeredByOversized(`{"result":{${big}`, `${big}}}`)).toEqual({ id: 7, method: 'tools/list' });
    const two = waitingOn([7, 'tools/list'], [8, 'tools/call']);
    expect(two.answeredByOversized(`{"result":{${big}`, `${big}}}`)).toBeUndefined();
    // An id nobody waits on is no reply to pin.
    expect(two.answeredByOversized(`{"result":{${big}`, `${big}},"jsonrpc":"2.0","id":9}`)).toBeUndefined();
  });

  it('never a notification or a request from the server, nor text', () => {
    const pending = waitingOn([5, 'tools/list']);
    const cases: Array<[string, string]> = [
      [`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${big}`, `${big}"}}`],
      [`{"method":"sampling/createMessage","params":{${big}`, `${big}},"jsonrpc":"2.0","id":5}`],
      [`{"params":{${big}`, `${big}},"method":"elicitation/create","jsonrpc":"2.0","id":5}`],
      [`Starting server ${big}`, `${big} done`],
    ];
    for (const [head, tail] of cases) expect(pending.answeredByOversized(head, tail), head).toBeUndefined();
  });
});
