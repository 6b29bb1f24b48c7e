import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DiscoverResult, PriorDiscovery } from '@modelcontextprotocol/client';

/**
 * Remembers which protocol era each server spoke, so later starts skip the
 * 2026-07-28 `server/discover` probe (which costs a full timeout against a
 * legacy server that ignores unknown requests).
 */
export interface EraCache {
  get(key: string): PriorDiscovery | undefined;
  set(key: string, verdict: PriorDiscovery): void;
  delete(key: string): void;
  /** Persist changes, if backed by a file. */
  flush(): Promise<void>;
}

interface EraEntry {
  readonly kind: 'modern' | 'legacy';
  readonly discover?: DiscoverResult;
  /** Epoch ms the verdict was reached. */
  readonly at: number;
}

// A verdict is a hint, not a contract: servers get upgraded. A week keeps
// repeated CLI runs fast while letting an upgrade be noticed.
const ERA_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * How long an entry may be used. A modern verdict carries the server's
 * `server/discover` result (its capabilities, instructions), which the server
 * declared fresh for `ttlMs` only (2026-07-28 caching: 0, the usual value,
 * means "ask again"); using it longer would hide, say, prompts the server has
 * added since.
 */
function lifetimeMs(entry: EraEntry): number {
  if (entry.kind === 'legacy') return ERA_TTL_MS;
  const ttl = entry.discover?.ttlMs;
  return typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? Math.min(ttl, ERA_TTL_MS) : 0;
}

/** An in-memory cache, for library users who manage persistence themselves. */
export function createMemoryEraCache(now: () => number = Date.now): EraCache {
  const entries = new Map<string, EraEntry>();
  return memoryBacked(entries, now, async () => {});
}

function memoryBacked(
  entries: Map<string, EraEntry>,
  now: () => number,
  flush: () => Promise<void>,
): EraCache {
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry || now() - entry.at >= lifetimeMs(entry)) return undefined;
      if (entry.kind === 'modern' && entry.discover) return { kind: 'modern', discover: entry.discover };
      return entry.kind === 'legacy' ? { kind: 'legacy' } : undefined;
    },
    set(key, verdict) {
      entries.set(
        key,
        verdict.kind === 'modern'
          ? { kind: 'modern', discover: verdict.discover, at: now() }
          : { kind: 'legacy', at: now() },
      );
    },
    delete(key) {
      entries.delete(key);
    },
    flush,
  };
}

/**
 * A cache persisted as `<home>/era-cache.json`. A missing or corrupt file is
 * an empty cache: the cost of losing it is one probe per server.
 */
export async function openFileEraCache(home: string, now: () => number = Date.now): Promise<EraCache> {
  const file = join(home, 'era-cache.json');
  const entries = new Map<string, EraEntry>();
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { entries?: Record<string, EraEntry> };
    for (const [key, entry] of Object.entries(parsed.entries ?? {})) {
      if (entry && (entry.kind === 'legacy' || entry.kind === 'modern') && typeof entry.at === 'number') {
        entries.set(key, entry);
      }
    }
  } catch {
    // absent or unreadable: start empty
  }
  let dirty = false;
  const inner = memoryBacked(entries, now, async () => {
    if (!dirty) return;
    dirty = false;
    await mkdir(home, { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify({ version: 1, entries: Object.fromEntries(entries) }), {
      mode: 0o600,
    });
    await rename(temp, file);
  });
  return {
    ...inner,
    set(key, verdict) {
      inner.set(key, verdict);
      dirty = true;
    },
    delete(key) {
      dirty = entries.delete(key) || dirty;
    },
  };
}
