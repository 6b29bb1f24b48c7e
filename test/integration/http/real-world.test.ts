/**
 * Remote servers as they really behave: slow to answer, busy, not there,
 * behind a header-rewriting proxy, dropping their streams. Each scenario
 * drives the HTTP test server's misbehaviour through the library.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { connectServer, type ListKind } from '../../../src/client/server-connection.js';
import type { ServerConnection } from '../../../src/client/types.js';
import { ErrorCode } from '../../../src/errors/index.js';
import { createHttpTransport } from '../../../src/transport/http/index.js';
import { failure, Resources, remoteServer, retries } from './helpers.js';

const resources = new Resources();
afterEach(() => resources.closeAll());

/** Wait until `check` holds, polling; fails after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(25);
  }
}

describe('connecting within one budget', () => {
  it('connects to a server whose first answer comes after 5 s, with default settings', async () => {
    const http = await resources.server({ era: 'modern', faults: { firstAnswerDelayMs: 5_000 } });
    const connection = await resources.connect(remoteServer('cold', http.url));
    expect(connection.era).toBe('modern');
    expect((await connection.listTools()).map((t) => t.name)).toContain('echo');
  }, 60_000);

  it('waits out 503 + Retry-After: 1 twice on the first request', async () => {
    const http = await resources.server({ faults: { unavailable: 2, retryAfterSeconds: 1 } });
    const seen = retries();
    const connection = await resources.connect(remoteServer('busy', http.url), { onRetry: seen.onRetry });
    expect(connection.era).toBe('modern');
    expect(seen.list.map((r) => [r.status, r.delayMs])).toEqual([
      [503, 1000],
      [503, 1000],
    ]);
  }, 60_000);

  it('keeps retrying a rate-limited first request past http_max_retries while the budget lasts', async () => {
    const http = await resources.server({ faults: { rateLimited: 6, retryAfterSeconds: 0 } });
    const seen = retries();
    const connection = await resources.connect(remoteServer('limited', http.url), { onRetry: seen.onRetry });
    expect(connection.era).toBe('modern');
    expect(seen.list.filter((r) => r.status === 429)).toHaveLength(6);
  }, 60_000);

  it('a Retry-After longer than the connect budget fails at once, saying so', async () => {
    const http = await resources.server({ faults: { unavailable: 100, retryAfterSeconds: 120 } });
    const started = performance.now();
    const error = await failure(
      resources.connect(remoteServer('swamped', http.url), {}, { connectTimeoutMs: 10_000 }),
    );
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(error.code).toBe(ErrorCode.HttpStatus);
    expect(error.message).toMatch(/503.*asked to wait 120 s, more than the .* left of the connect timeout/);
    expect(error.causes.join('\n')).toContain('asked to wait 120 s');
    expect(error.fixes.join('\n')).toContain('connect_timeout');
  });
});

describe('a server that is not there', () => {
  it('connection refused: nothing is listening on host:port, with fixes for a URL', async () => {
    const http = await resources.server();
    const url = http.url;
    await http.close();
    const error = await failure(resources.connect(remoteServer('gone', url, { httpMaxRetries: 0 })));
    expect(error.code).toBe(ErrorCode.HttpUnreachable);
    expect(error.message).toContain(`nothing is listening on 127.0.0.1:${http.port}`);
    expect(error.context.origin?.file).toBe('/test/mcp.json');
    expect(error.fixes.join('\n')).toMatch(/start the server/);
    expect(error.fixes.join('\n')).not.toMatch(/npx|command/);
  });

  it('DNS: the host name was not found, tried once', async () => {
    const resolver = async (host: string) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    };
    const error = await failure(
      resources.connect(remoteServer('typo', 'http://mcp.example.invalid/mcp'), { resolver }),
    );
    expect(error.code).toBe(ErrorCode.HttpUnreachable);
    expect(error.message).toContain('the host name mcp.example.invalid was not found');
    expect(error.context.attempts).toBe(1);
  });
});

describe('2026-07-28 refusals in a 400', () => {
  it('a -32020 header mismatch on the probe is reported as such, not as a legacy server', async () => {
    const http = await resources.server({ era: 'modern', faults: { modernRefusal: 'header-mismatch' } });
    const error = await failure(resources.connect(remoteServer('proxied', http.url)));
    expect(error.message).toMatch(/-32020/);
    expect(error.message).toMatch(/Header mismatch/);
    expect(error.message).not.toMatch(/HTTP\+SSE/);
    expect(error.causes.join('\n')).toMatch(/proxy/);
    // No HTTP+SSE fallback was tried.
    expect(http.requests.filter((r) => r.startsWith('GET'))).toEqual([]);
  });

  it('a server that supports only a later revision says which', async () => {
    const http = await resources.server({ era: 'modern', faults: { modernRefusal: 'future-only' } });
    const error = await failure(resources.connect(remoteServer('future', http.url)));
    expect(error.message).toContain('2099-01-01');
    expect(error.message).not.toMatch(/HTTP\+SSE/);
    expect(http.requests.filter((r) => r.startsWith('GET'))).toEqual([]);
  });

  it('a -32022 naming 2026-07-28 is a corrective answer: the probe is sent again and connects', async () => {
    const http = await resources.server({ era: 'modern', faults: { modernRefusal: 'corrective' } });
    const connection = await resources.connect(remoteServer('picky', http.url));
    expect(connection.era).toBe('modern');
    expect(http.requests.filter((r) => r === 'POST server/discover')).toHaveLength(2);
  });
});

describe('legacy HTTP+SSE: the event stream dies', () => {
  it('fails every request waiting on it at once, not after the request timeout', async () => {
    const http = await resources.server({ era: 'sse', faults: { sseDropAfter: 3 } });
    const connection = await resources.connect(
      remoteServer('old', http.url, { transport: 'sse' }),
      {},
      { requestTimeoutMs: 60_000 },
    );
    const started = performance.now();
    const [first, second] = await Promise.all([
      failure(connection.callTool('slow_operation', { steps: 100, delay_ms: 100 })),
      failure(connection.callTool('slow_operation', { steps: 100, delay_ms: 100 })),
    ]);
    expect(performance.now() - started).toBeLessThan(20_000);
    for (const error of [first, second]) {
      expect(error.code).toBe(ErrorCode.ConnectionClosed);
      expect(error.message).toMatch(/event stream .* closed/);
    }
  }, 60_000);
});

describe('list-change notifications keep coming', () => {
  async function listening(
    http: { url: string },
    extra: Parameters<typeof remoteServer>[2] = {},
  ): Promise<{ connection: ServerConnection; changes: ListKind[] }> {
    const changes: ListKind[] = [];
    const server = remoteServer('watched', http.url, extra);
    const connection = await connectServer(server, {
      createTransport: () => createHttpTransport(server),
      onListChanged: (kind) => changes.push(kind),
    });
    resources.add(() => connection.close());
    return { connection, changes };
  }

  it('2026-07-28: a listen stream dropped five times is opened again each time, with a new id', async () => {
    const http = await resources.server({ era: 'modern', faults: { dropListen: 5 } });
    const { connection, changes } = await listening(http);
    expect(connection.era).toBe('modern');
    await until(() => http.listenIds.length >= 6, 'the sixth subscriptions/listen');
    // Each drop was followed by a change the client could not hear: it is told once it listens again.
    await until(() => changes.length >= 5, 'a change signal after each re-listen');
    expect(new Set(http.listenIds).size).toBe(http.listenIds.length);
    const before = changes.length;
    await delay(300);
    await http.announceToolListChanged();
    await until(() => changes.length > before, 'the change announced on the sixth stream');
    expect(changes.every((kind) => kind === 'tools')).toBe(true);
  }, 90_000);

  it('2025-11-25: after the session is renewed, notifications arrive on the new session', async () => {
    const http = await resources.server({ era: 'legacy' });
    const { connection, changes } = await listening(http, { protocol: 'legacy' });
    await until(() => http.requests.includes('GET'), 'the GET stream');
    await http.announceToolListChanged();
    await until(() => changes.length === 1, 'a change on the first session');
    http.expireSessions();
    expect((await connection.listTools()).length).toBeGreaterThan(0);
    await until(
      () => http.requests.filter((r) => r === 'GET').length >= 2,
      'a GET stream on the new session',
    );
    await delay(300);
    await http.announceToolListChanged();
    await until(() => changes.length >= 2, 'a change on the renewed session');
  }, 60_000);
});
