import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * How much an {@link SseEventLog} keeps. A resumable stream is only as good as
 * what is still held when the client comes back, and a gateway serves many
 * clients: so every session has its own share and the whole instance a ceiling,
 * counted in events and in bytes (the JSON of each message). Past a bound the
 * oldest events go first: the session's own when its share is full, anyone's
 * when the instance's is.
 */
export interface SseEventLogBounds {
  readonly sessionEvents: number;
  readonly sessionBytes: number;
  readonly totalEvents: number;
  readonly totalBytes: number;
}

/** A call's progress and result fit many times over; a thousand idle sessions stay near 64 MiB at worst. */
export const DEFAULT_SSE_EVENT_LOG_BOUNDS: SseEventLogBounds = {
  sessionEvents: 1_000,
  sessionBytes: 4 * 1024 * 1024,
  totalEvents: 50_000,
  totalBytes: 64 * 1024 * 1024,
};

export interface SseEventLogUsage {
  readonly sessions: number;
  readonly events: number;
  readonly bytes: number;
}

/**
 * The SSE events of one gateway instance, kept so a client whose stream broke
 * (a proxy's idle cut, a laptop asleep, the gateway polling) resumes it with
 * `Last-Event-ID` and misses nothing still held.
 */
export interface SseEventLog {
  /**
   * The SDK `EventStore` of one session. It sees only that session's events:
   * an event id of another session is unknown to it (the SDK answers 400), so
   * no client can replay another's stream.
   */
  forSession(sessionId: string): Required<EventStore>;
  /** Forget a session's events (its transport closed). */
  dropSession(sessionId: string): void;
  usage(): SseEventLogUsage;
}

interface StoredEvent {
  readonly session: SessionEvents;
  readonly id: string;
  readonly streamId: string;
  readonly message: JSONRPCMessage;
  readonly bytes: number;
}

interface SessionEvents {
  /** By event id, oldest first (a Map keeps insertion order). */
  readonly events: Map<string, StoredEvent>;
  bytes: number;
  /** Dropped: a message sent after the session closed is not kept (it would leak). */
  dropped: boolean;
}

/** A bounded, in-memory {@link SseEventLog}; see {@link SseEventLogBounds}. */
export function createSseEventLog(bounds: SseEventLogBounds = DEFAULT_SSE_EVENT_LOG_BOUNDS): SseEventLog {
  const sessions = new Map<string, SessionEvents>();
  // Every stored event of every session, oldest first, for the instance-wide bounds.
  const all = new Set<StoredEvent>();
  let totalBytes = 0;
  let next = 0;

  const remove = (event: StoredEvent) => {
    all.delete(event);
    event.session.events.delete(event.id);
    event.session.bytes -= event.bytes;
    totalBytes -= event.bytes;
  };

  // Oldest first, always: what a session holds stays an unbroken tail of what it was sent, so a
  // held id replays everything after it, and one that is gone is refused (the SDK's 400). A
  // message larger than a whole share empties the log down to nothing rather than leave a gap.
  const evict = (session: SessionEvents) => {
    while (
      session.events.size > bounds.sessionEvents ||
      (session.bytes > bounds.sessionBytes && session.events.size > 0)
    )
      remove(session.events.values().next().value as StoredEvent);
    while (all.size > bounds.totalEvents || (totalBytes > bounds.totalBytes && all.size > 0))
      remove(all.values().next().value as StoredEvent);
  };

  const sessionStore = (sessionId: string): Required<EventStore> => {
    const session: SessionEvents = sessions.get(sessionId) ?? {
      events: new Map(),
      bytes: 0,
      dropped: false,
    };
    sessions.set(sessionId, session);
    return {
      async storeEvent(streamId, message) {
        const id = `${streamId}_${++next}`;
        if (session.dropped) return id;
        const event: StoredEvent = {
          session,
          id,
          streamId,
          message,
          bytes: Buffer.byteLength(JSON.stringify(message)),
        };
        session.events.set(id, event);
        session.bytes += event.bytes;
        all.add(event);
        totalBytes += event.bytes;
        evict(session);
        return id;
      },
      async getStreamIdForEventId(eventId) {
        return session.events.get(eventId)?.streamId;
      },
      async replayEventsAfter(lastEventId, { send }) {
        const events = session.events;
        const last = events.get(lastEventId);
        // The SDK asks getStreamIdForEventId first and refuses an unknown id; this is the backstop.
        if (!last) throw new Error(`no event ${lastEventId} in this session`);
        // Copied first: sending may store (and so evict) while the replay runs.
        const after: StoredEvent[] = [];
        let seen = false;
        for (const event of events.values()) {
          if (seen && event.streamId === last.streamId) after.push(event);
          if (event === last) seen = true;
        }
        // A priming event is stored as `{}`: it carries an id to resume from, nothing to send again.
        for (const event of after) if ('jsonrpc' in event.message) await send(event.id, event.message);
        return last.streamId;
      },
    };
  };

  return {
    forSession: sessionStore,
    dropSession(sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return;
      for (const event of session.events.values()) {
        all.delete(event);
        totalBytes -= event.bytes;
      }
      session.events.clear();
      session.bytes = 0;
      session.dropped = true;
      sessions.delete(sessionId);
    },
    usage: () => ({ sessions: sessions.size, events: all.size, bytes: totalBytes }),
  };
}
