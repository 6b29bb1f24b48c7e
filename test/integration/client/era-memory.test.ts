/**
 * A remembered era is a hint, never a trap: a stale verdict is dropped and the
 * era negotiated afresh, within the one connect budget.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryEraCache, type EraCache } from '../../../src/client/era-cache.js';
import { connectServer } from '../../../src/client/server-connection.js';
import { createServerTransport } from '../../../src/client/transport-factory.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';
import { tempDir } from '../../helpers/cli.js';
import { testServer, trackConnections } from '../../helpers/servers.js';

const { track, closeAll } = trackConnections();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await closeAll();
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

function connectWith(server: ServerConfig, eraCache: EraCache, connectTimeoutMs?: number) {
  return connectServer(server, {
    createTransport: () => createServerTransport(server, { hostEnv: process.env }),
    eraCache,
    ...(connectTimeoutMs ? { connectTimeoutMs } : {}),
  });
}

async function startLog() {
  const dir = await tempDir('mcpx-era-');
  cleanups.push(dir.remove);
  const file = join(dir.path, 'starts');
  return {
    file,
    count: async () => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean).length,
  };
}

describe('remembered eras', () => {
  it('a stale modern verdict is dropped and the era negotiated afresh, in the same command', async () => {
    const eraCache = createMemoryEraCache();
    const key = (s: ServerConfig) => `${s.name}\u0000${s.fingerprint}`;
    // Yesterday the server spoke 2026-07-28 and declared its discover result fresh for an hour…
    const modern = testServer('svc', { MCPX_TEST_DISCOVER_TTL_MS: '3600000' });
    const first = await connectWith(modern, eraCache);
    expect(first.era).toBe('modern');
    await first.close();
    expect(eraCache.get(key(modern))?.kind).toBe('modern');

    // …today the same entry runs a 2025-era build that exits on any request before initialize.
    const log = await startLog();
    const legacy = testServer('svc', {
      MCPX_TEST_FAULT: 'exit-before-initialize',
      MCPX_TEST_START_LOG: log.file,
    });
    expect(key(legacy)).toBe(key(modern));
    const c = await track(connectWith(legacy, eraCache));
    const tools = await c.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    expect(c.era).toBe('legacy');
    expect(c.closed).toBe(false);
    expect(eraCache.get(key(legacy))).toEqual({ kind: 'legacy' });
    // The remembered connect, the probe that killed it again, the 2025 start.
    expect(await log.count()).toBe(3);
    expect((await c.callTool('echo', { message: 'still here' })).content?.[0]).toMatchObject({
      text: 'still here',
    });
  });

  it('a connection whose remembered era works is not renegotiated when it fails later', async () => {
    const eraCache = createMemoryEraCache();
    const log = await startLog();
    const server = testServer('later', {
      MCPX_TEST_DISCOVER_TTL_MS: '3600000',
      MCPX_TEST_FAULT: 'crash-mid-call',
      MCPX_TEST_START_LOG: log.file,
    });
    await (await connectWith(server, eraCache)).close();
    const c = await track(connectWith(server, eraCache));
    expect((await c.listTools()).length).toBeGreaterThan(0);
    const error = await c.callTool('echo', { message: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpxError);
    expect((error as McpxError).code).toBe(ErrorCode.ServerCrashed);
    expect(await log.count()).toBe(2);
  });

  it('a stale legacy verdict and the fresh negotiation share one connect budget', async () => {
    const eraCache = createMemoryEraCache();
    const server = testServer('hangs', { MCPX_TEST_FAULT: 'hang-before-initialize' });
    eraCache.set(`${server.name}\u0000${server.fingerprint}`, { kind: 'legacy' });
    const started = Date.now();
    const error = await connectWith(server, eraCache, 3_000).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect((error as McpxError).code).toBe(ErrorCode.ConnectTimeout);
    expect((error as McpxError).message).toContain('within 3000 ms');
    // Two full attempts would take 6 s; one budget ends at 3 s (plus closing the process).
    expect(elapsed).toBeLessThan(5_500);
    expect(eraCache.get(`${server.name}\u0000${server.fingerprint}`)).toBeUndefined();
  });

  it('nothing is remembered from a failed connect', async () => {
    const eraCache = createMemoryEraCache();
    const server = testServer('broken', { MCPX_TEST_FAULT: 'stderr-exit' });
    await expect(connectWith(server, eraCache)).rejects.toMatchObject({ code: ErrorCode.ServerCrashed });
    expect(eraCache.get(`${server.name}\u0000${server.fingerprint}`)).toBeUndefined();
  });
});
