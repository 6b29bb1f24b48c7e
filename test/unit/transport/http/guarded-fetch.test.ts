import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { ErrorCode, McpxError } from '../../../../src/errors/index.js';
import {
  type FetchLike,
  GuardedHttp,
  parseBearerChallenge,
  type RetryInfo,
} from '../../../../src/transport/http/index.js';
import { SseScanner } from '../../../../src/transport/http/sse-scanner.js';

const resolver = async (): Promise<readonly LookupAddress[]> => [{ address: '127.0.0.1', family: 4 }];
const body = (method: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} });
const ok = () => Response.json({ jsonrpc: '2.0', id: 1, result: {} });

function harness(answers: (() => Response | Promise<Response>)[], extra: { maxRetries?: number } = {}) {
  const calls: string[] = [];
  const retries: RetryInfo[] = [];
  const fetch: FetchLike = async (_url, init) => {
    calls.push(String(init?.method));
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return next();
  };
  const http = new GuardedHttp({
    serverName: 's',
    fetch,
    resolver,
    maxRetries: extra.maxRetries ?? 3,
    retryBackoffMs: 1,
    sleep: async () => {},
    onRetry: (info) => retries.push(info),
  });
  const post = (method: string) => http.fetch('http://127.0.0.1/mcp', { method: 'POST', body: body(method) });
  return { http, calls, retries, post };
}

async function failure(promise: Promise<unknown>): Promise<McpxError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpxError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const reset = () => {
  throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', requestSent: true });
};

describe('GuardedHttp', () => {
  it('never re-sends a tools/call after a connection reset', async () => {
    const h = harness([reset, ok]);
    const error = await failure(h.post('tools/call'));
    expect(error.code).toBe(ErrorCode.HttpUnreachable);
    expect(error.context.attempts).toBe(1);
    expect(error.message).toContain('not retried because the tool may already have run');
    expect(h.calls).toHaveLength(1);
  });

  it('re-sends a tools/list after a connection reset', async () => {
    const h = harness([reset, ok]);
    expect((await h.post('tools/list')).status).toBe(200);
    expect(h.retries.map((r) => r.reason)).toEqual(['ECONNRESET']);
  });

  it('retries a tools/call answered 429 or 503, not 500', async () => {
    const h = harness([() => new Response('', { status: 429 }), () => new Response('', { status: 503 }), ok]);
    expect((await h.post('tools/call')).status).toBe(200);
    const g = harness([() => new Response('', { status: 500, statusText: 'Internal Server Error' }), ok]);
    const error = await failure(g.post('tools/call'));
    expect(error.code).toBe(ErrorCode.HttpStatus);
    expect(error.context.httpStatus).toBe(500);
    expect(error.message).toContain('not retried');
    expect(g.calls).toHaveLength(1);
  });

  it('stops after maxRetries and counts the attempts', async () => {
    const busy = () => new Response('', { status: 502, statusText: 'Bad Gateway' });
    const h = harness([busy, busy, busy], { maxRetries: 2 });
    const error = await failure(h.post('tools/list'));
    expect(error.context.attempts).toBe(3);
    expect(error.message).toContain('HTTP 502 Bad Gateway to tools/list after 3 attempts');
  });

  it('refuses redirects, naming the target', async () => {
    const h = harness([() => new Response(null, { status: 307, headers: { location: '/elsewhere' } })]);
    const error = await failure(h.post('tools/list'));
    expect(error.code).toBe(ErrorCode.RedirectRefused);
    expect(error.message).toContain('http://127.0.0.1/elsewhere');
  });

  it('turns 401 into AuthRequired unless an auth provider handles it', async () => {
    const h = harness([() => new Response('', { status: 401 })]);
    expect((await failure(h.post('tools/list'))).code).toBe(ErrorCode.AuthRequired);
  });

  it('caps JSON bodies', async () => {
    const http = new GuardedHttp({ serverName: 's', resolver, maxMessageBytes: 10, fetch: async () => ok() });
    const error = await failure(
      http.fetch('http://127.0.0.1/mcp', { method: 'POST', body: body('tools/list') }),
    );
    expect(error.code).toBe(ErrorCode.MessageTooLarge);
  });
});

describe('GuardedHttp: the connect budget', () => {
  const busy = (retryAfter: string) => () =>
    new Response('busy', { status: 503, headers: { 'retry-after': retryAfter } });

  function budgeted(answers: (() => Response)[], maxRetries?: number) {
    const waits: number[] = [];
    const http = new GuardedHttp({
      serverName: 's',
      resolver,
      fetch: async () => {
        const next = answers.shift();
        if (!next) throw new Error('no more answers');
        return next();
      },
      ...(maxRetries === undefined ? {} : { maxRetries }),
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const post = (method: string) =>
      http.fetch('http://127.0.0.1/mcp', { method: 'POST', body: body(method) });
    return { http, waits, post };
  }

  it('retries a busy first exchange past maxRetries while the budget lasts, then only maxRetries times', async () => {
    const { http, waits, post } = budgeted([
      ...Array.from({ length: 6 }, () => busy('1')),
      ok,
      ...Array.from({ length: 5 }, () => busy('1')),
    ]);
    http.beginConnect(30_000);
    expect((await post('server/discover')).status).toBe(200);
    expect(waits).toEqual([1000, 1000, 1000, 1000, 1000, 1000]);
    const later = await failure(post('tools/list'));
    expect(later.context.attempts).toBe(4);
  });

  it('does not wait for a Retry-After the budget cannot cover', async () => {
    const { http, waits, post } = budgeted([busy('60')]);
    http.beginConnect(5_000);
    const error = await failure(post('initialize'));
    expect(waits).toEqual([]);
    expect(error.message).toMatch(/asked to wait 60 s, more than the .* left of the connect timeout/);
  });

  it('an explicit http_max_retries still bounds the connect', async () => {
    const { http, post } = budgeted([busy('0'), busy('0'), busy('0')], 1);
    http.beginConnect(30_000);
    expect((await failure(post('initialize'))).context.attempts).toBe(2);
  });
});

describe('SseScanner', () => {
  it('yields whole events across chunks and CRLF line ends', () => {
    const scanner = new SseScanner(1000);
    const enc = new TextEncoder();
    expect(scanner.push(enc.encode('id: 1\r\nretry: 50\r\ndata: {"a"'))).toEqual([]);
    const [event] = scanner.push(enc.encode(':1}\r\n\r\nda'));
    expect(event).toMatchObject({ id: '1', retry: 50, data: '{"a":1}' });
    expect(scanner.push(enc.encode('ta: x\n\n'))).toMatchObject([{ data: 'x' }]);
  });

  it('throws once an event passes the limit', () => {
    const scanner = new SseScanner(100);
    expect(() => scanner.push(new TextEncoder().encode(`data: ${'x'.repeat(500)}`))).toThrow(
      /exceeded 100 bytes/,
    );
  });
});

describe('SseScanner: linear in the input', () => {
  it('finds an event boundary split across chunks, and a CRLF split at a chunk end', () => {
    const scanner = new SseScanner(1000);
    const enc = new TextEncoder();
    expect(scanner.push(enc.encode('data: a\n'))).toEqual([]);
    expect(scanner.push(enc.encode('\ndata: b\r'))).toMatchObject([{ data: 'a' }]);
    expect(scanner.push(enc.encode('\n\r'))).toEqual([]);
    expect(scanner.push(enc.encode('\ndata: c\r\r\n'))).toMatchObject([{ data: 'b' }, { data: 'c' }]);
  });

  it('fails a 50 MB event at the 16 MB cap, without reading the rest', () => {
    const cap = 16 * 1024 * 1024;
    const scanner = new SseScanner(cap);
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    const total = 50 * 1024 * 1024;
    let fed = 0;
    const started = performance.now();
    const heapBefore = process.memoryUsage().heapUsed;
    expect(() => {
      scanner.push(new TextEncoder().encode('data: '));
      for (; fed < total; fed += chunk.length) scanner.push(chunk);
    }).toThrow(/exceeded 16777216 bytes/);
    // It stops at the cap (the old scanner re-normalised the whole buffer on every chunk: ~11 s).
    expect(fed).toBeGreaterThan(cap - 2 * chunk.length);
    expect(fed).toBeLessThanOrEqual(cap);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(150 * 1024 * 1024);
  });
});

describe('GuardedHttp: URLs a server hands out', () => {
  const addresses: Record<string, string> = {
    'mcp.example.com': '93.184.216.34',
    'auth.example.com': '93.184.216.35',
    'intranet.example': '10.0.0.7',
  };
  function serverSide(extra: { allowHosts?: string[] } = {}) {
    const seen: { url: string; headers: Headers }[] = [];
    const http = new GuardedHttp({
      serverName: 's',
      serverUrl: 'https://mcp.example.com/mcp',
      serverOnlyHeaders: ['x-api-key'],
      fetch: async (url, init) => {
        seen.push({ url: String(url), headers: new Headers(init?.headers) });
        const initialize = typeof init?.body === 'string' && init.body.includes('"initialize"');
        return Response.json(
          { jsonrpc: '2.0', id: 1, result: {} },
          { headers: initialize ? { 'mcp-session-id': 'session-1' } : {} },
        );
      },
      resolver: async (host) => {
        const address = addresses[host];
        if (!address) throw Object.assign(new Error('nxdomain'), { code: 'ENOTFOUND' });
        return [{ address, family: 4 }];
      },
      ...extra,
    });
    return { http, seen };
  }

  it('refuses a more private address than the server, and plain http, before sending anything', async () => {
    const { http, seen } = serverSide();
    const privateTarget = await failure(http.fetch('https://intranet.example/token', { method: 'POST' }));
    expect(privateTarget.code).toBe(ErrorCode.SsrfBlocked);
    expect(privateTarget.message).toContain('more private');
    const literal = await failure(http.fetch('https://127.0.0.1/token', { method: 'POST' }));
    expect(literal.code).toBe(ErrorCode.SsrfBlocked);
    const plain = await failure(http.fetch('http://auth.example.com/token', { method: 'POST' }));
    expect(plain.message).toContain('must use https');
    expect(seen).toEqual([]);
    // The server's own URL is the user's: any address class but metadata and link-local.
    expect((await http.fetch('https://auth.example.com/token', { method: 'POST' })).status).toBe(200);
  });

  it('lets an allowed host through whatever its address class', async () => {
    const { http } = serverSide({ allowHosts: ['intranet.example'] });
    expect((await http.fetch('http://intranet.example/token', { method: 'POST' })).status).toBe(200);
  });

  it('keeps the session id and the config headers on the MCP server origin only', async () => {
    const { http, seen } = serverSide();
    const headers = { 'x-api-key': 'secret-key', 'content-type': 'application/json' };
    await http.fetch('https://mcp.example.com/mcp', { method: 'POST', headers, body: body('initialize') });
    await http.fetch('https://mcp.example.com/mcp', { method: 'POST', headers, body: body('tools/list') });
    await http.fetch('https://auth.example.com/token', { method: 'POST', headers, body: 'grant_type=x' });
    const [, own, other] = seen;
    expect(own?.headers.get('mcp-session-id')).toBe('session-1');
    expect(own?.headers.get('x-api-key')).toBe('secret-key');
    expect(other?.headers.get('mcp-session-id')).toBeNull();
    expect(other?.headers.get('x-api-key')).toBeNull();
    expect(other?.headers.get('content-type')).toBe('application/json');
  });
});

describe('parseBearerChallenge', () => {
  it('reads quoted and bare parameters', () => {
    expect(
      parseBearerChallenge(
        'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://x/.well-known/oauth-protected-resource"',
      ),
    ).toEqual({
      error: 'insufficient_scope',
      scope: 'files:read files:write',
      resourceMetadata: 'https://x/.well-known/oauth-protected-resource',
    });
    expect(parseBearerChallenge('Bearer error=invalid_token, scope="a \\"b\\""')).toEqual({
      error: 'invalid_token',
      scope: 'a "b"',
    });
    expect(parseBearerChallenge('Bearer')).toEqual({});
  });
});
