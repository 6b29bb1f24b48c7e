import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/index.js';
import { type FetchLike, systemResolver } from '../../../src/transport/http/index.js';
import { failure, Resources, remoteServer, retries, textOf } from './helpers.js';

const res = new Resources();
afterEach(() => res.closeAll());

/** A fetch and resolver that record every URL and host name they are asked for. */
function recordingNetwork() {
  const urls: string[] = [];
  const hosts: string[] = [];
  const fetch: FetchLike = (url, init) => {
    urls.push(String(url));
    return globalThis.fetch(url, init);
  };
  const resolver = (host: string): Promise<readonly LookupAddress[]> => {
    hosts.push(host);
    return systemResolver(host);
  };
  return { urls, hosts, fetch, resolver };
}

describe('HTTP faults', () => {
  it('retries 503 answers, honouring Retry-After, and reports each retry', async () => {
    const server = await res.server({ era: 'legacy', faults: { unavailable: 2, retryAfterSeconds: 1 } });
    const log = retries();
    const sleeps: number[] = [];
    const c = await res.connect(remoteServer('busy', server.url), {
      onRetry: log.onRetry,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    expect(textOf(await c.callTool('echo', { message: 'hi' }))).toContain('hi');
    expect(log.list.map((r) => [r.attempt, r.status, r.delayMs])).toEqual([
      [1, 503, 1000],
      [2, 503, 1000],
    ]);
    expect(sleeps).toEqual([1000, 1000]);
  });

  it('gives up after http_max_retries and says how many attempts were made', async () => {
    const server = await res.server({ era: 'legacy', faults: { unavailable: 1000 } });
    const log = retries();
    const error = await failure(
      res.connect(remoteServer('down', server.url, { httpMaxRetries: 2 }), { onRetry: log.onRetry }),
    );
    expect(error.code).toBe(ErrorCode.HttpStatus);
    expect(error.context.attempts).toBe(3);
    expect(error.context.httpStatus).toBe(503);
    expect(error.context.server).toBe('down');
    expect(error.message).toMatch(/HTTP 503.*after 3 attempts/);
    expect(log.list).toHaveLength(2);
  });

  it('refuses a redirect to the metadata address without any request reaching it', async () => {
    const server = await res.server({ era: 'legacy', faults: { redirect: true } });
    const net = recordingNetwork();
    const error = await failure(
      res.connect(remoteServer('redir', server.url), { fetch: net.fetch, resolver: net.resolver }),
    );
    expect(error.code).toBe(ErrorCode.RedirectRefused);
    expect(error.message).toContain('http://169.254.169.254/latest/meta-data/');
    expect(net.urls.length).toBeGreaterThan(0);
    expect(net.urls.every((u) => new URL(u).hostname === '127.0.0.1')).toBe(true);
    expect(net.hosts.every((h) => h === '127.0.0.1')).toBe(true);
  });

  it.each([
    'http://169.254.169.254/mcp',
    'http://2852039166/mcp',
    'http://0xA9FEA9FE/mcp',
    'http://[::ffff:169.254.169.254]/mcp',
    'http://metadata.google.internal/mcp',
    'http://[fe80::1]/mcp',
  ])('refuses %s before any request', async (url) => {
    const net = recordingNetwork();
    const error = await failure(
      res.connect(remoteServer('meta', url), { fetch: net.fetch, resolver: net.resolver }),
    );
    expect(error.code).toBe(ErrorCode.SsrfBlocked);
    expect(net.urls).toEqual([]);
  });

  it('refuses a host name that resolves to a link-local address, with the pinned fetch too', async () => {
    const resolver = async (): Promise<readonly LookupAddress[]> => [{ address: '169.254.10.1', family: 4 }];
    const error = await failure(res.connect(remoteServer('dns', 'http://evil.example/mcp'), { resolver }));
    expect(error.code).toBe(ErrorCode.SsrfBlocked);
    expect(error.message).toContain('169.254.10.1');
  });

  it('starts a new session when the server forgets the old one, and retries the request once', async () => {
    const server = await res.server({ era: 'legacy', faults: { expireSessionAfter: 3 } });
    const log = retries();
    const c = await res.connect(remoteServer('expiry', server.url, { protocol: 'legacy' }), {
      onRetry: log.onRetry,
    });
    for (let i = 0; i < 6; i++)
      expect(textOf(await c.callTool('echo', { message: `m${i}` }))).toContain(`m${i}`);
    expect(log.list.some((r) => r.reason.includes('session expired'))).toBe(true);
    expect(server.requests.filter((r) => r === 'POST initialize').length).toBeGreaterThanOrEqual(2);
  });

  it('recovers from a session expired on demand', async () => {
    const server = await res.server({ era: 'legacy' });
    const c = await res.connect(remoteServer('expire-now', server.url, { protocol: 'legacy' }));
    await c.listTools();
    server.expireSessions();
    expect((await c.listTools()).length).toBeGreaterThan(0);
  });

  it('resumes a broken SSE stream with Last-Event-ID and receives the missing events', async () => {
    const server = await res.server({
      era: 'legacy',
      faults: { dropStream: 1, dropAfterProgress: 1 },
      retryIntervalMs: 50,
    });
    const c = await res.connect(remoteServer('resume', server.url, { protocol: 'legacy' }));
    const seen: number[] = [];
    const result = await c.callTool(
      'slow_operation',
      { steps: 4, delay_ms: 50 },
      { onProgress: (p) => seen.push(p.progress), timeoutMs: 10_000 },
    );
    expect(textOf(result)).toContain('completed 4 steps');
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(server.requests).toContain('GET');
  });

  it('re-sends a safe request whose 2026-era response stream dropped', async () => {
    const server = await res.server({
      era: 'modern',
      responseMode: 'sse',
      faults: { dropStream: 1, dropAfterProgress: 0 },
    });
    const log = retries();
    const c = await res.connect(remoteServer('redo', server.url), { onRetry: log.onRetry });
    expect(c.era).toBe('modern');
    expect(log.list.map((r) => r.reason)).toContain('response stream dropped');
    expect((await c.listTools()).length).toBeGreaterThan(0);
  });

  it('fails a tools/call whose 2026-era stream dropped at once, without re-sending it', async () => {
    const server = await res.server({ era: 'modern', faults: { dropStream: 1, dropAfterProgress: 1 } });
    const c = await res.connect(remoteServer('nocall', server.url));
    const started = Date.now();
    const error = await failure(
      c.callTool('slow_operation', { steps: 3, delay_ms: 50 }, { onProgress: () => {}, timeoutMs: 20_000 }),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe(ErrorCode.ConnectionClosed);
    expect(error.message).toContain('not re-sent');
    expect(server.requests.filter((r) => r === 'POST tools/call')).toHaveLength(1);
  });

  it('times out a slow response', async () => {
    const server = await res.server({ era: 'modern', faults: { slowMs: 400 } });
    const c = await res.connect(remoteServer('slow', server.url));
    const error = await failure(c.callTool('echo', { message: 'x' }, { timeoutMs: 100 }));
    expect(error.code).toBe(ErrorCode.RequestTimeout);
  });

  it('refuses a session id with characters outside visible ASCII', async () => {
    const server = await res.server({ era: 'legacy', faults: { badSessionId: true } });
    const error = await failure(res.connect(remoteServer('badsid', server.url, { protocol: 'legacy' })));
    expect(error.code).toBe(ErrorCode.InvalidSessionId);
    expect(error.message).toContain('visible ASCII');
  });

  it('deletes the session on close', async () => {
    const server = await res.server({ era: 'legacy' });
    const c = await res.connect(remoteServer('bye', server.url, { protocol: 'legacy' }));
    await c.listTools();
    await c.close();
    expect(server.requests).toContain('DELETE');
  });

  it.each(['modern', 'legacy'] as const)('caps message size (%s)', async (era) => {
    const server = await res.server({ era });
    const c = await res.connect(remoteServer(`big-${era}`, server.url), { maxMessageBytes: 4_000 });
    const error = await failure(c.callTool('echo', { message: 'x'.repeat(10_000) }));
    expect(error.code).toBe(ErrorCode.MessageTooLarge);
  });

  it('falls back to HTTP+SSE when POST initialize is refused, and speaks it for type sse', async () => {
    const server = await res.server({ era: 'sse' });
    const c = await res.connect(remoteServer('old', server.url));
    expect(textOf(await c.callTool('echo', { message: 'old' }))).toContain('old');
    expect(server.requests.slice(0, 3)).toEqual(['POST /mcp', 'POST /mcp', 'GET /mcp']);
    const d = await res.connect(remoteServer('old-sse', server.url, { transport: 'sse' }));
    expect(textOf(await d.callTool('echo', { message: 'sse' }))).toContain('sse');
  });

  it('says what was tried when neither transport answers', async () => {
    const server = await res.server({ era: 'legacy' });
    const error = await failure(res.connect(remoteServer('nowhere', server.url.replace('/mcp', '/nope'))));
    expect(error.code).toBe(ErrorCode.HttpStatus);
    expect(error.message).toMatch(/neither a Streamable HTTP server .*nor an HTTP\+SSE one/);
  });
});
