import type { DiscoverResult, PriorDiscovery } from '@modelcontextprotocol/client';
import { ErrorCode, isMcpxError } from '../errors/index.js';
import { createHomeFiles } from '../home/index.js';

/**
 * Remembers which protocol era each server spoke, so later starts skip the
 * 2026-07-28 `server/discover` probe (which costs a full timeout against a
 * legacy server that ignores unknown requests).
 */
export interface EraCache {
  get(key: string): PriorDiscovery | undefined;
  /**
   * Which era the server spoke when last seen, for as long as a legacy verdict is
   * kept (a week): also when its `server/discover` result may no longer be reused;
   * and how long ago the verdict was reached or last re-checked (`markChecked`).
   * A server known to speak 2026-07-28 gets a patient probe, and a legacy verdict
   * is re-checked once `checkedMsAgo` passes `ERA_RECHECK_MS`. A cache without it
   * gets neither.
   */
  lastSeen?(key: string): { readonly kind: 'modern' | 'legacy'; readonly checkedMsAgo: number } | undefined;
  /** A recheck asked about this verdict now (whatever it learns): the next waits its turn. */
  markChecked?(key: string): void;
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
  /** Epoch ms a background recheck last asked about it; the verdict's lifetime still runs from `at`. */
  readonly checkedAt?: number;
}

const ERA_FILE = 'era-cache.json';

// A verdict is a hint, not a contract: servers get upgraded. A week keeps
// repeated CLI runs fast while letting an upgrade be noticed.
const ERA_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A legacy verdict older than this is re-checked in the background while it is
 * used (`server-connection.ts`): a server upgraded to 2026-07-28 is noticed within
 * an hour of use rather than a week, at the cost of one extra start of it an hour.
 */
export const ERA_RECHECK_MS = 60 * 60 * 1000;

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

/**
 * Whether a fresh entry already says `verdict`. Every connect reports its era; one the cache
 * still holds is not news, so its date stays where it was reached: the week (or the server's
 * `ttlMs`) runs from there and an upgraded server is noticed, and an every-day call writes
 * nothing to the home before it can list and call.
 */
function holds(current: PriorDiscovery | undefined, verdict: PriorDiscovery): boolean {
  if (current?.kind !== verdict.kind) return false;
  if (current.kind === 'legacy') return true;
  return JSON.stringify(current.discover) === JSON.stringify((verdict as typeof current).discover);
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
  const get = (key: string): PriorDiscovery | undefined => {
    const entry = entries.get(key);
    if (!entry || now() - entry.at >= lifetimeMs(entry)) return undefined;
    if (entry.kind === 'modern' && entry.discover) return { kind: 'modern', discover: entry.discover };
    return entry.kind === 'legacy' ? { kind: 'legacy' } : undefined;
  };
  return {
    get,
    lastSeen(key) {
      const entry = entries.get(key);
      if (!entry || now() - entry.at >= ERA_TTL_MS) return undefined;
      return {
        kind: entry.kind,
        checkedMsAgo: Math.max(0, now() - Math.max(entry.at, entry.checkedAt ?? 0)),
      };
    },
    markChecked(key) {
      const entry = entries.get(key);
      if (entry) entries.set(key, { ...entry, checkedAt: now() });
    },
    set(key, verdict) {
      if (holds(get(key), verdict)) return;
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

/** The file's entries; a corrupt file has none. */
function parseEntries(text: string | undefined): Map<string, EraEntry> {
  const entries = new Map<string, EraEntry>();
  try {
    const parsed = JSON.parse(text ?? '{}') as { entries?: Record<string, EraEntry> };
    for (const [key, entry] of Object.entries(parsed.entries ?? {})) {
      if (entry && (entry.kind === 'legacy' || entry.kind === 'modern') && typeof entry.at === 'number') {
        entries.set(key, entry);
      }
    }
  } catch {
    // corrupt: start empty
  }
  return entries;
}

/**
 * A cache persisted as `<home>/era-cache.json`. A missing or corrupt file is
 * an empty cache: the cost of losing it is one probe per server. A symbolic
 * link (or a foreign file) in its place is refused with `HOME_UNSAFE`, as
 * everywhere in the mcpx home: writing through it would overwrite whatever
 * it points to.
 */
export async function openFileEraCache(home: string, now: () => number = Date.now): Promise<EraCache> {
  const files = createHomeFiles(home);
  const text = await files.readText(ERA_FILE).catch((error: unknown) => {
    // Unreadable costs a probe per server; a planted link or foreign file is refused.
    if (isMcpxError(error) && error.code === ErrorCode.HomeAccess) return undefined;
    throw error;
  });
  const entries = parseEntries(text);
  // What this process changed: a write merges just these into the file as it is then, under its
  // lock, so verdicts other mcpx processes learnt meanwhile (other servers) are kept.
  const changed = new Set<string>();
  // One write at a time, each taking the entries as they are when it starts: servers connect in
  // parallel and each flushes.
  let writing = Promise.resolve();
  const write = async () => {
    if (changed.size === 0) return;
    const keys = [...changed];
    changed.clear();
    await files.update(ERA_FILE, (text) => {
      const merged = parseEntries(text);
      for (const key of keys) {
        const entry = entries.get(key);
        if (entry) merged.set(key, entry);
        else merged.delete(key);
      }
      return JSON.stringify({ version: 1, entries: Object.fromEntries(merged) });
    });
  };
  const inner = memoryBacked(entries, now, () => {
    const next = writing.then(write);
    writing = next.catch(() => {});
    return next;
  });
  return {
    ...inner,
    set(key, verdict) {
      if (holds(inner.get(key), verdict)) return;
      inner.set(key, verdict);
      changed.add(key);
    },
    delete(key) {
      if (entries.delete(key)) changed.add(key);
    },
    markChecked(key) {
      inner.markChecked?.(key);
      if (entries.has(key)) changed.add(key);
    },
  };
}
