import type { FleetState } from '../fleet/index.js';

/**
 * What a 2025-11-25 session's server needs to continue it on another instance: what the
 * client said in its `initialize` (the version it asked for, its capabilities, who it is).
 */
export interface SessionRecord {
  readonly protocolVersion: string;
  readonly capabilities: Record<string, unknown>;
  readonly clientInfo: { readonly name: string; readonly version: string } & Record<string, unknown>;
}

/** A session the store was asked for: its record, none (never begun, expired or ended), or the store's failure. */
export type SessionLookup =
  | { readonly found: SessionRecord }
  | { readonly missing: true }
  | { readonly unavailable: string };

/**
 * The fleet's 2025-11-25 sessions in Redis (`<prefix>session:<id>`, expiring after the idle
 * time unless renewed), so any instance can continue one, and a DELETE on any ends it on all.
 */
export interface SharedSessions {
  save(sessionId: string, record: SessionRecord): Promise<void>;
  load(sessionId: string): Promise<SessionLookup>;
  /** Renew these sessions' expiry (still held here); never waits, never throws. */
  touch(sessionIds: readonly string[]): void;
  /** End a session fleet-wide: its record goes, and every instance is told to close its copy. */
  end(sessionId: string): Promise<void>;
  /** Told the id of each session ended elsewhere in the fleet; returns the unsubscribe. */
  onEnded(listener: (sessionId: string) => void): () => void;
}

/** A record's JSON is small (an initialize's params); anything larger is not one of ours. */
const MAX_RECORD_BYTES = 64 * 1024;
/** What the gateway mints (`<instance>.<uuid>`, or a bare uuid); anything else is never looked up. */
const SESSION_ID = /^[A-Za-z0-9_.-]{1,128}$/;

/** {@link SharedSessions} in the fleet's store; `ttlMs` is the idle time a session survives unused. */
export function createSharedSessions(fleet: FleetState, ttlMs: number): SharedSessions {
  const { redis, prefix } = fleet;
  const ttl = Math.max(1_000, Math.round(ttlMs));
  const key = (id: string) => `${prefix}session:${id}`;
  const channel = `${prefix}session-ended`;
  const listeners = new Set<(sessionId: string) => void>();
  let subscribed = false;
  const onMessage = (from: string, message: string) => {
    if (from !== channel || !SESSION_ID.test(message)) return;
    for (const listener of listeners) listener(message);
  };
  return {
    async save(sessionId, record) {
      await redis.set(key(sessionId), JSON.stringify(record), 'PX', ttl);
    },
    async load(sessionId) {
      if (!SESSION_ID.test(sessionId)) return { missing: true };
      if (!fleet.status().up) return { unavailable: fleet.status().error ?? 'not connected' };
      let text: string | null;
      try {
        text = await redis.get(key(sessionId));
      } catch (error) {
        return { unavailable: error instanceof Error ? (error.message.split('\n')[0] ?? '') : 'failed' };
      }
      const record = text === null ? undefined : parseRecord(text);
      return record ? { found: record } : { missing: true };
    },
    touch(sessionIds) {
      if (sessionIds.length === 0 || !fleet.status().up) return;
      const pipeline = redis.pipeline();
      for (const id of sessionIds) pipeline.pexpire(key(id), ttl);
      pipeline.exec().catch(() => {});
    },
    async end(sessionId) {
      await redis.del(key(sessionId));
      await redis.publish(channel, sessionId);
    },
    onEnded(listener) {
      listeners.add(listener);
      if (!subscribed) {
        subscribed = true;
        const subscriber = fleet.subscriber();
        subscriber.on('message', onMessage);
        subscriber.subscribe(channel).catch(() => {
          subscribed = false;
        });
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && subscribed) {
          subscribed = false;
          const subscriber = fleet.subscriber();
          subscriber.off('message', onMessage);
          subscriber.unsubscribe(channel).catch(() => {});
        }
      };
    },
  };
}

/** A record as an `initialize` request's params give it, or undefined when they are not one. */
export function sessionRecordOf(params: unknown): SessionRecord | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const { protocolVersion, capabilities, clientInfo } = params as Record<string, unknown>;
  if (typeof protocolVersion !== 'string' || protocolVersion.length > 32) return undefined;
  if (!capabilities || typeof capabilities !== 'object' || Array.isArray(capabilities)) return undefined;
  if (!clientInfo || typeof clientInfo !== 'object' || Array.isArray(clientInfo)) return undefined;
  const info = clientInfo as Record<string, unknown>;
  if (typeof info.name !== 'string' || typeof info.version !== 'string') return undefined;
  return {
    protocolVersion,
    capabilities: capabilities as Record<string, unknown>,
    clientInfo: info as SessionRecord['clientInfo'],
  };
}

function parseRecord(text: string): SessionRecord | undefined {
  if (text.length > MAX_RECORD_BYTES) return undefined;
  try {
    return sessionRecordOf(JSON.parse(text));
  } catch {
    return undefined;
  }
}
