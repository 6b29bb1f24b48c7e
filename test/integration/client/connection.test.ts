import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryEraCache } from '../../../src/client/era-cache.js';
import { connectServer } from '../../../src/client/server-connection.js';
import { createServerTransport } from '../../../src/client/transport-factory.js';
import type { ServerLogEvent } from '../../../src/client/types.js';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';
import { connect, testServer, trackConnections } from '../../helpers/servers.js';

const { track, closeAll } = trackConnections();
afterEach(closeAll);

async function failure(promise: Promise<unknown>): Promise<McpxError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpxError);
    return error as McpxError;
  }
  throw new Error('expected a failure');
}

describe('connection to the mcpx test server', () => {
  it('lists 250 extra tools served 7 per page', async () => {
    const c = await track(connect(testServer('paged', { MCP_TOOL_COUNT: '250', MCP_PAGE_SIZE: '7' })));
    const tools = await c.listTools();
    const extra = tools.filter((t) => /^tool_\d{4}$/.test(t.name));
    expect(extra).toHaveLength(250);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it('lists resources, templates and prompts', async () => {
    const c = await track(connect(testServer()));
    expect((await c.listResources()).map((r) => r.uri)).toEqual(
      expect.arrayContaining(['test://readme.txt', 'test://config.json', 'test://users.csv']),
    );
    expect((await c.listResourceTemplates()).map((t) => t.uriTemplate)).toContain('test://users/{id}');
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(
      expect.arrayContaining(['greeting', 'code_review', 'summarize']),
    );
    expect(await c.ping()).toBeGreaterThanOrEqual(0);
  });

  it('keeps a host secret from the server unless it is passed through', async () => {
    const hostEnv = { ...process.env, MCPX_SECRET_TOKEN: 's3cr3t' };
    const closed = await track(connect(testServer('closed'), { hostEnv }));
    const hidden = await closed.callTool('env', { name: 'MCPX_SECRET_TOKEN' });
    expect(hidden.content?.[0]).toMatchObject({ text: '(unset)' });
    const passing = await track(
      connect(testServer('open', {}, { envPassthrough: ['MCPX_SECRET_TOKEN'] }), { hostEnv }),
    );
    const shown = await passing.callTool('env', { name: 'MCPX_SECRET_TOKEN' });
    expect(shown.content?.[0]).toMatchObject({ text: 's3cr3t' });
  });

  it('delivers server log messages to the injected logger', async () => {
    const logs: ServerLogEvent[] = [];
    const c = await track(connect(testServer(), { onLog: (e) => logs.push(e) }));
    await c.setLoggingLevel('debug');
    await c.callTool('echo', { message: 'x' });
    await expect.poll(() => logs.length).toBeGreaterThan(0);
    expect(logs[0]).toMatchObject({ server: 'test', level: expect.any(String) });
  });

  it('reports progress and a cancellation as a cancellation', async () => {
    const c = await track(connect(testServer()));
    const controller = new AbortController();
    const progress: number[] = [];
    const call = c.callTool(
      'slow_operation',
      { steps: 50, delay_ms: 50 },
      {
        signal: controller.signal,
        onProgress: (e) => {
          progress.push(e.progress);
          if (progress.length === 2) controller.abort();
        },
      },
    );
    const error = await failure(call);
    expect(error.code).toBe(ErrorCode.Cancelled);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    // the connection is still usable after a cancelled request
    const echo = await c.callTool('echo', { message: 'still here' });
    expect(echo.content?.[0]).toMatchObject({ text: 'still here' });
  });

  it('times out a request with a RequestTimeout naming the limit', async () => {
    const c = await track(connect(testServer()));
    const error = await failure(
      c.callTool('slow_operation', { steps: 1, delay_ms: 2000 }, { timeoutMs: 300 }),
    );
    expect(error.code).toBe(ErrorCode.RequestTimeout);
    expect(error.message).toContain('300 ms');
  });

  it('handles 2,000 concurrent calls without a process warning', async () => {
    const c = await track(connect(testServer()));
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const results = await Promise.all(
        Array.from({ length: 2000 }, (_, i) =>
          c.callTool('echo', { message: `m${i}` }, { signal: controller.signal }),
        ),
      );
      expect(results[1999]?.content?.[0]).toMatchObject({ text: 'm1999' });
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).toEqual([]);
  });

  it('remembers the negotiated era so the next connect skips the probe', async () => {
    const eraCache = createMemoryEraCache();
    // A modern verdict is kept only as long as the server declares its server/discover result fresh.
    const server = testServer('era', { MCPX_TEST_DISCOVER_TTL_MS: '60000' });
    const make = () =>
      connectServer(server, {
        createTransport: () => createServerTransport(server, { hostEnv: process.env }),
        eraCache,
      });
    const first = await track(make());
    const remembered = eraCache.get(`era\u0000${server.fingerprint}`);
    expect(remembered?.kind).toBe(first.era);
    const second = await track(make());
    expect(second.era).toBe(first.era);
    expect(second.protocolVersion).toBe(first.protocolVersion);
  });

  it('speaks the 2025 handshake when pinned to legacy', async () => {
    const c = await track(connect(testServer('legacy', {}, { protocol: 'legacy' })));
    expect(c.era).toBe('legacy');
    expect(c.protocolVersion).toMatch(/^2025-/);
    expect((await c.callTool('echo', { message: 'old' })).content?.[0]).toMatchObject({ text: 'old' });
  });
});

describe('misbehaving servers', () => {
  it('crash mid-call: ServerCrashed with exit code and stderr tail', async () => {
    const c = await track(connect(testServer('crashy', { MCPX_TEST_FAULT: 'crash-mid-call' })));
    const error = await failure(c.callTool('echo', { message: 'x' }));
    expect(error.code).toBe(ErrorCode.ServerCrashed);
    expect(error.context).toMatchObject({ server: 'crashy', exitCode: 3 });
    expect(error.context.stderrTail?.join('\n')).toContain('fatal: simulated crash');
    expect(error.message).toContain('crashy');
  });

  it('hang before initialize: ConnectTimeout at the configured timeout', async () => {
    const started = Date.now();
    const error = await failure(
      connect(testServer('hang', { MCPX_TEST_FAULT: 'hang-before-initialize' }), { connectTimeoutMs: 1500 }),
    );
    const elapsed = Date.now() - started;
    expect(error.code).toBe(ErrorCode.ConnectTimeout);
    expect(error.context).toMatchObject({ server: 'hang', timeoutMs: 1500 });
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(10_000);
  });

  it('stderr noise then exit 1: ServerCrashed with the last 20 stderr lines and a hint', async () => {
    const error = await failure(connect(testServer('noisy', { MCPX_TEST_FAULT: 'stderr-exit' })));
    expect(error.code).toBe(ErrorCode.ServerCrashed);
    expect(error.context.exitCode).toBe(1);
    expect(error.context.stderrTail).toHaveLength(20);
    expect(error.context.stderrTail?.at(-1)).toContain('API key missing');
    expect(error.causes.join(' ')).toMatch(/API key|EXAMPLE_API_KEY/);
  });

  it('garbage on stdout: reported, and the server still works', async () => {
    const invalid: string[] = [];
    const server = testServer('garbage', { MCPX_TEST_FAULT: 'garbage-stdout' });
    const c = await track(
      connectServer(server, {
        createTransport: () =>
          createServerTransport(server, {
            hostEnv: process.env,
            onInvalidLine: (line) => invalid.push(line),
          }),
      }),
    );
    expect((await c.callTool('echo', { message: 'ok' })).content?.[0]).toMatchObject({ text: 'ok' });
    expect(invalid.join('\n')).toContain('this is not json');
  });

  it('a 20 MB line: MessageTooLarge naming the limit, memory bounded', async () => {
    const c = await track(connect(testServer('huge', { MCPX_TEST_FAULT: 'huge-line' })));
    const before = process.memoryUsage().rss;
    const error = await failure(c.callTool('echo', { message: 'x' }));
    const growth = process.memoryUsage().rss - before;
    expect(error.code).toBe(ErrorCode.MessageTooLarge);
    expect(error.message).toMatch(/10 ?MB|10485760/);
    expect(growth).toBeLessThan(3 * 10 * 1024 * 1024);
  });
});
