import type { FleetState } from '../fleet/index.js';
import { storeError } from '../fleet/store-error.js';
import {
  keptUri,
  loggingLevelOf,
  MAX_KEPT_SUBSCRIPTIONS,
  type SessionSettings,
  type SettingChange,
} from './session-settings.js';

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
  | { readonly found: SessionRecord; readonly settings: SessionSettings }
  | { readonly missing: true }
  | { readonly unavailable: string };

/** A setting kept (`kept`), or not: the session is not in the store (`gone`), or has its most subscriptions (`full`). */
export type SettingKept = 'kept' | 'gone' | 'full';

/**
 * The fleet's 2025-11-25 sessions in Redis (`<prefix>session:<id>`, expiring after the idle
 * time unless renewed), so any instance can continue one, and a DELETE on any ends it on all.
 * What the client set in the session since (its log level, its subscriptions) is kept beside it
 * (`<prefix>session-settings:<id>`, a hash: `level`, and `s:<uri>` per subscription).
 */
export interface SharedSessions {
  save(sessionId: string, record: SessionRecord): Promise<void>;
  load(sessionId: string): Promise<SessionLookup>;
  /** Keep a setting the session's client changed; rejects when the store fails. */
  change(sessionId: string, change: SettingChange): Promise<SettingKept>;
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

// One setting changed, in one step, only while the session is in the store; a new subscription
// only while the session has fewer than its most (the `level` field is not one).
const CHANGE_SCRIPT = `
if redis.call('EXISTS', KEYS[2]) == 0 then return 'gone' end
if ARGV[2] == 'level' then
  redis.call('HSET', KEYS[1], 'level', ARGV[3])
elseif ARGV[2] == 'subscribe' then
  local field = 's:' .. ARGV[3]
  if redis.call('HEXISTS', KEYS[1], field) == 0 then
    local held = redis.call('HLEN', KEYS[1]) - redis.call('HEXISTS', KEYS[1], 'level')
    if held >= tonumber(ARGV[4]) then return 'full' end
    redis.call('HSET', KEYS[1], field, '1')
  end
else
  redis.call('HDEL', KEYS[1], 's:' .. ARGV[3])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 'kept'
`;

/** {@link SharedSessions} in the fleet's store; `ttlMs` is the idle time a session survives unused. */
export function createSharedSessions(fleet: FleetState, ttlMs: number): SharedSessions {
  const { redis, prefix } = fleet;
  const ttl = Math.max(1_000, Math.round(ttlMs));
  const key = (id: string) => `${prefix}session:${id}`;
  const settingsKey = (id: string) => `${prefix}session-settings:${id}`;
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
      let fields: Record<string, string>;
      try {
        [text, fields] = await Promise.all([
          redis.get(key(sessionId)),
          redis.hgetall(settingsKey(sessionId)),
        ]);
      } catch (error) {
        return { unavailable: storeError(error) };
      }
      const record = text === null ? undefined : parseRecord(text);
      return record ? { found: record, settings: parseSettings(fields) } : { missing: true };
    },
    async change(sessionId, change) {
      const [what, value] =
        'logLevel' in change
          ? ['level', change.logLevel]
          : 'subscribe' in change
            ? ['subscribe', change.subscribe]
            : ['unsubscribe', change.unsubscribe];
      const kept = await redis.eval(
        CHANGE_SCRIPT,
        2,
        settingsKey(sessionId),
        key(sessionId),
        ttl,
        what,
        value,
        MAX_KEPT_SUBSCRIPTIONS,
      );
      return kept === 'kept' || kept === 'full' ? kept : 'gone';
    },
    touch(sessionIds) {
      if (sessionIds.length === 0 || !fleet.status().up) return;
      const pipeline = redis.pipeline();
      for (const id of sessionIds) pipeline.pexpire(key(id), ttl).pexpire(settingsKey(id), ttl);
      pipeline.exec().catch(() => {});
    },
    async end(sessionId) {
      await redis.del(key(sessionId), settingsKey(sessionId));
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

/** A session's settings as the store holds them: only a level that is one, only URIs in bounds, at most the most. */
function parseSettings(fields: Record<string, string>): SessionSettings {
  const subscriptions: string[] = [];
  for (const field of Object.keys(fields)) {
    if (subscriptions.length >= MAX_KEPT_SUBSCRIPTIONS) break;
    const uri = field.startsWith('s:') ? keptUri(field.slice(2)) : undefined;
    if (uri !== undefined) subscriptions.push(uri);
  }
  const logLevel = loggingLevelOf(fields.level);
  return { ...(logLevel ? { logLevel } : {}), subscriptions };
}
