import { createHash } from 'node:crypto';
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { FleetState } from '../fleet/index.js';
import {
  createSseEventLog,
  DEFAULT_SSE_EVENT_LOG_BOUNDS,
  type SseEventLog,
  type SseEventLogBounds,
} from './event-store.js';

/**
 * The {@link SseEventLog} of a fleet: each 2025-11-25 session's events in one Redis Stream
 * (`<prefix>sse:{<session>}`, with a byte count beside it), so a client whose instance died
 * resumes with `Last-Event-ID` on any other. The SDK awaits `storeEvent` before it writes an
 * event to the wire, so whatever a client may have received is in the store.
 */
export interface SharedSseEventLog extends SseEventLog {
  /** End a session's events fleet-wide (its DELETE): `dropSession` only forgets this instance's part. */
  endSession(sessionId: string): Promise<void>;
  /** Renew the expiry of these sessions' events (they are still held somewhere). */
  touch(sessionIds: readonly string[]): void;
}

export interface SharedSseEventLogOptions {
  readonly bounds?: SseEventLogBounds;
  /** How long a session's events outlive its last event or renewal (its idle time, and a margin). */
  readonly ttlMs: number;
}

// Appends one event, then drops the oldest (of this session only) until the session is within
// its bounds again: what is held stays an unbroken tail, as in the in-memory log. Atomic, so two
// instances writing one session's events (a session continued elsewhere) never leave a gap.
const STORE_SCRIPT = `
local id = redis.call('XADD', KEYS[1], '*', 's', ARGV[1], 'm', ARGV[2], 'b', ARGV[3])
local bytes = redis.call('INCRBY', KEYS[2], ARGV[3])
local n = redis.call('XLEN', KEYS[1])
while n > 0 and (n > tonumber(ARGV[4]) or bytes > tonumber(ARGV[5])) do
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
  if #oldest == 0 then break end
  local fields = oldest[1][2]
  local size = 0
  for i = 1, #fields, 2 do if fields[i] == 'b' then size = tonumber(fields[i + 1]) or 0 end end
  redis.call('XDEL', KEYS[1], oldest[1][1])
  bytes = redis.call('DECRBY', KEYS[2], size)
  n = n - 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return id
`;

/** A Redis Stream entry id (`<ms>-<seq>`). */
const ENTRY_ID = /^\d{1,20}-\d{1,20}$/;
/** The SDK's stream ids: a UUID per POST, `_GET_stream` for the standalone stream. */
const STREAM_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface SharedEventId {
  readonly streamId: string;
  readonly tag: string;
  readonly entry: string;
}

/**
 * `<streamId>_<tag>_<entry>`: the tag is derived from the session id, so an id is globally
 * unique and names its session; a session's store refuses any other session's id before it
 * asks Redis (and only ever reads its own session's key anyway).
 */
function parseEventId(eventId: string): SharedEventId | undefined {
  if (eventId.length > 160) return undefined;
  const last = eventId.lastIndexOf('_');
  const middle = eventId.lastIndexOf('_', last - 1);
  if (middle <= 0) return undefined;
  const streamId = eventId.slice(0, middle);
  const tag = eventId.slice(middle + 1, last);
  const entry = eventId.slice(last + 1);
  if (!STREAM_ID.test(streamId) || !/^[0-9a-f]{16}$/.test(tag) || !ENTRY_ID.test(entry)) return undefined;
  return { streamId, tag, entry };
}

const sessionTag = (sessionId: string): string =>
  createHash('sha256').update(sessionId).digest('hex').slice(0, 16);

/** Keys of one session's events; the braces keep both in one cluster slot (the script uses both). */
export function sharedEventKeys(prefix: string, sessionId: string): readonly [string, string] {
  return [`${prefix}sse:{${sessionId}}`, `${prefix}sse:{${sessionId}}:bytes`];
}

/**
 * A {@link SharedSseEventLog} in the fleet's Redis. While the store cannot be written, a
 * session's events go to this instance's memory instead (the bounded in-memory log) and stay
 * there for the rest of the session on this instance: its stream then resumes here only, but
 * nothing a client was sent is ever missing from where it resumes.
 */
export function createSharedSseEventLog(
  fleet: FleetState,
  options: SharedSseEventLogOptions,
): SharedSseEventLog {
  const bounds = options.bounds ?? DEFAULT_SSE_EVENT_LOG_BOUNDS;
  const ttl = String(Math.max(1_000, Math.round(options.ttlMs)));
  const local = createSseEventLog(bounds);
  // Sessions whose events went to memory at least once (the store was down).
  const inMemory = new Set<string>();
  const { redis, prefix } = fleet;

  const sessionStore = (sessionId: string): Required<EventStore> => {
    const [key, bytesKey] = sharedEventKeys(prefix, sessionId);
    const tag = sessionTag(sessionId);
    const memory = local.forSession(sessionId);
    // The event of an id of this session, read back and checked: what Redis holds is not trusted.
    const lookup = async (eventId: string): Promise<SharedEventId | undefined> => {
      const id = parseEventId(eventId);
      if (!id || id.tag !== tag) return undefined;
      const entries = (await redis.xrange(key, id.entry, id.entry)) as [string, string[]][];
      const stored = entries[0] ? entryOf(entries[0], bounds.sessionBytes) : undefined;
      return stored?.streamId === id.streamId ? id : undefined;
    };
    return {
      async storeEvent(streamId, message) {
        if (!inMemory.has(sessionId) && fleet.status().up) {
          const json = JSON.stringify(message);
          try {
            const entry = (await redis.eval(
              STORE_SCRIPT,
              2,
              key,
              bytesKey,
              streamId,
              json,
              String(Buffer.byteLength(json)),
              String(bounds.sessionEvents),
              String(bounds.sessionBytes),
              ttl,
            )) as string;
            return `${streamId}_${tag}_${entry}`;
          } catch {
            // Down: this session continues in memory (below), on this instance.
          }
        }
        inMemory.add(sessionId);
        return memory.storeEvent(streamId, message);
      },
      async getStreamIdForEventId(eventId) {
        if (!parseEventId(eventId)) return memory.getStreamIdForEventId(eventId);
        try {
          return (await lookup(eventId))?.streamId;
        } catch {
          return undefined;
        }
      },
      async replayEventsAfter(lastEventId, { send }) {
        if (!parseEventId(lastEventId)) return memory.replayEventsAfter(lastEventId, { send });
        const last = await lookup(lastEventId);
        if (!last) throw new Error(`no event ${lastEventId} in this session`);
        // At most the session's bound of entries: the script keeps no more.
        const entries = (await redis.xrange(key, `(${last.entry}`, '+', 'COUNT', bounds.sessionEvents)) as [
          string,
          string[],
        ][];
        for (const raw of entries) {
          const event = entryOf(raw, bounds.sessionBytes);
          if (!event || event.streamId !== last.streamId) continue;
          // A priming event is stored as `{}`: an id to resume from, nothing to send again.
          if ('jsonrpc' in event.message)
            await send(`${event.streamId}_${tag}_${event.entry}`, event.message);
        }
        return last.streamId;
      },
    };
  };

  return {
    forSession: sessionStore,
    dropSession(sessionId) {
      inMemory.delete(sessionId);
      local.dropSession(sessionId);
    },
    async endSession(sessionId) {
      await redis.del(...sharedEventKeys(prefix, sessionId));
    },
    touch(sessionIds) {
      if (sessionIds.length === 0 || !fleet.status().up) return;
      const pipeline = redis.pipeline();
      for (const id of sessionIds) for (const key of sharedEventKeys(prefix, id)) pipeline.pexpire(key, ttl);
      pipeline.exec().catch(() => {});
    },
    usage: () => local.usage(),
  };
}

interface SharedEvent {
  readonly entry: string;
  readonly streamId: string;
  readonly message: JSONRPCMessage;
}

/** One stream entry as Redis returned it, validated: anything malformed or oversized is skipped. */
function entryOf(raw: unknown, maxBytes: number): SharedEvent | undefined {
  if (!Array.isArray(raw) || typeof raw[0] !== 'string' || !Array.isArray(raw[1])) return undefined;
  const [entry, fields] = raw as [string, unknown[]];
  let streamId: unknown;
  let json: unknown;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 's') streamId = fields[i + 1];
    else if (fields[i] === 'm') json = fields[i + 1];
  }
  if (typeof streamId !== 'string' || !STREAM_ID.test(streamId)) return undefined;
  if (typeof json !== 'string' || json.length > maxBytes) return undefined;
  try {
    const message: unknown = JSON.parse(json);
    if (!message || typeof message !== 'object' || Array.isArray(message)) return undefined;
    if (Object.keys(message).length > 0 && (message as { jsonrpc?: unknown }).jsonrpc !== '2.0')
      return undefined;
    return { entry, streamId, message: message as JSONRPCMessage };
  } catch {
    return undefined;
  }
}
