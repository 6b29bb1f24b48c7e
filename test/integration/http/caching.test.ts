/** 2026-07-28 caching hints: a tools/list result is reused while its `ttlMs` says it is fresh. */
import { afterEach, describe, expect, it } from 'vitest';
import { Resources, remoteServer } from './helpers.js';

const res = new Resources();
afterEach(() => res.closeAll());

const listings = (requests: readonly string[]) => requests.filter((r) => r === 'POST tools/list').length;

describe('list caching (ttlMs)', () => {
  it('serves tools/list from the cache while it is fresh', async () => {
    const server = await res.server({ era: 'modern', cacheHints: { 'tools/list': { ttlMs: 60_000 } } });
    const c = await res.connect(remoteServer('cached', server.url));
    expect(c.era).toBe('modern');
    const first = await c.listTools();
    const before = listings(server.requests);
    const second = await c.listTools();
    expect(second.map((t) => t.name)).toEqual(first.map((t) => t.name));
    expect(listings(server.requests)).toBe(before);
    expect(before).toBeGreaterThan(0);
  });

  it('asks again every time when the server says ttlMs 0', async () => {
    const server = await res.server({ era: 'modern' });
    const c = await res.connect(remoteServer('uncached', server.url));
    await c.listTools();
    const before = listings(server.requests);
    await c.listTools();
    expect(listings(server.requests)).toBe(before + 1);
  });

  it('asks again once a short ttlMs has passed', async () => {
    const server = await res.server({ era: 'modern', cacheHints: { 'tools/list': { ttlMs: 200 } } });
    const c = await res.connect(remoteServer('expiring', server.url));
    await c.listTools();
    const before = listings(server.requests);
    await c.listTools();
    expect(listings(server.requests)).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await c.listTools();
    expect(listings(server.requests)).toBe(before + 1);
  });
});
