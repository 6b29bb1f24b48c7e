import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DiscoverResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createMemoryEraCache, openFileEraCache } from '../../../src/client/era-cache.js';

const DAY = 24 * 60 * 60 * 1000;

function discover(ttlMs: number): DiscoverResult {
  return {
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {} },
    ttlMs,
    cacheScope: 'public',
    resultType: 'complete',
  } as DiscoverResult;
}

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('the era cache', () => {
  it('keeps a legacy verdict for a week', () => {
    const c = clock();
    const cache = createMemoryEraCache(c.now);
    cache.set('k', { kind: 'legacy' });
    c.advance(7 * DAY - 1);
    expect(cache.get('k')).toEqual({ kind: 'legacy' });
    c.advance(1);
    expect(cache.get('k')).toBeUndefined();
  });

  it('keeps a modern verdict only as long as the server declared its server/discover result fresh', () => {
    const c = clock();
    const cache = createMemoryEraCache(c.now);
    cache.set('k', { kind: 'modern', discover: discover(60_000) });
    c.advance(59_999);
    expect(cache.get('k')?.kind).toBe('modern');
    c.advance(1);
    expect(cache.get('k')).toBeUndefined();
  });

  it('says which era a server was last seen speaking, and how long ago, for a week', () => {
    const c = clock();
    const cache = createMemoryEraCache(c.now);
    cache.set('m', { kind: 'modern', discover: discover(0) });
    cache.set('l', { kind: 'legacy' });
    c.advance(DAY);
    // The discover result of `m` may not be reused, but the era it spoke is known.
    expect(cache.get('m')).toBeUndefined();
    expect(cache.lastSeen?.('m')).toEqual({ kind: 'modern', checkedMsAgo: DAY });
    expect(cache.lastSeen?.('l')).toEqual({ kind: 'legacy', checkedMsAgo: DAY });
    // A recheck asked: the next one waits its turn, but the verdict still dates from when it was reached.
    cache.markChecked?.('l');
    c.advance(1000);
    expect(cache.lastSeen?.('l')).toEqual({ kind: 'legacy', checkedMsAgo: 1000 });
    c.advance(6 * DAY - 1000);
    expect(cache.get('l')).toBeUndefined();
    expect(cache.lastSeen?.('l')).toBeUndefined();
    expect(cache.lastSeen?.('m')).toBeUndefined();
    expect(cache.lastSeen?.('nothing')).toBeUndefined();
  });

  it('does not reuse a server/discover result with ttlMs 0 (ask again) at all', () => {
    const cache = createMemoryEraCache(clock().now);
    cache.set('k', { kind: 'modern', discover: discover(0) });
    expect(cache.get('k')).toBeUndefined();
  });

  it('caps a long ttlMs at a week', () => {
    const c = clock();
    const cache = createMemoryEraCache(c.now);
    cache.set('k', { kind: 'modern', discover: discover(365 * DAY) });
    c.advance(7 * DAY);
    expect(cache.get('k')).toBeUndefined();
  });

  it('persists verdicts and deletions in era-cache.json', async () => {
    const home = await mkdtemp(join(tmpdir(), 'mcpx-era-'));
    try {
      const first = await openFileEraCache(home);
      first.set('a', { kind: 'legacy' });
      first.set('b', { kind: 'modern', discover: discover(60_000) });
      await first.flush();
      const second = await openFileEraCache(home);
      expect(second.get('a')).toEqual({ kind: 'legacy' });
      expect(second.get('b')?.kind).toBe('modern');
      second.delete('a');
      await second.flush();
      expect(await readFile(join(home, 'era-cache.json'), 'utf8')).not.toContain('"a"');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('keeps every verdict when servers connecting in parallel each flush', async () => {
    const home = await mkdtemp(join(tmpdir(), 'mcpx-era-'));
    try {
      const cache = await openFileEraCache(home);
      const names = Array.from({ length: 20 }, (_, i) => `server-${i}`);
      const flushes: Promise<void>[] = [];
      for (const name of names) {
        cache.set(name, { kind: 'legacy' });
        flushes.push(cache.flush());
      }
      await Promise.all(flushes);
      const reopened = await openFileEraCache(home);
      expect(names.filter((name) => reopened.get(name) === undefined)).toEqual([]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('keeps the verdicts other mcpx processes wrote meanwhile (two commands on different servers)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'mcpx-era-'));
    try {
      // Both opened before either wrote, as two commands started together are.
      const one = await openFileEraCache(home);
      const other = await openFileEraCache(home);
      one.set('a', { kind: 'legacy' });
      other.set('b', { kind: 'legacy' });
      await Promise.all([one.flush(), other.flush()]);
      const kinds = async () => {
        const reopened = await openFileEraCache(home);
        return ['a', 'b'].map((k) => reopened.get(k)?.kind);
      };
      expect(await kinds()).toEqual(['legacy', 'legacy']);
      // A deletion takes out its own key only, not the verdict the other process wrote.
      other.delete('b');
      await other.flush();
      expect(await kinds()).toEqual(['legacy', undefined]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('keeps the date a verdict was reached when a connect confirms it, so it still ends a week later', () => {
    const c = clock();
    const cache = createMemoryEraCache(c.now);
    cache.set('k', { kind: 'legacy' });
    c.advance(6 * DAY);
    cache.set('k', { kind: 'legacy' });
    c.advance(DAY);
    expect(cache.get('k')).toBeUndefined();
  });

  it('dates a changed verdict afresh', () => {
    const c = clock();
    const cache = createMemoryEraCache(c.now);
    cache.set('k', { kind: 'modern', discover: discover(7 * DAY) });
    c.advance(6 * DAY);
    cache.set('k', { kind: 'legacy' });
    c.advance(DAY);
    expect(cache.get('k')).toEqual({ kind: 'legacy' });
  });

  it('writes nothing when a connect only confirms what the file holds', async () => {
    const home = await mkdtemp(join(tmpdir(), 'mcpx-era-'));
    try {
      const c = clock();
      const first = await openFileEraCache(home, c.now);
      first.set('a', { kind: 'legacy' });
      await first.flush();
      const written = await readFile(join(home, 'era-cache.json'), 'utf8');
      c.advance(DAY);
      const second = await openFileEraCache(home, c.now);
      second.set('a', { kind: 'legacy' });
      await rm(join(home, 'era-cache.json'));
      await second.flush();
      await expect(readFile(join(home, 'era-cache.json'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
      expect(JSON.parse(written).entries.a.at).toBe(1_000_000);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
