import type { EventStore, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { refusal } from './guard.js';

/**
 * Seconds a client refused during a drain is told to wait (`Retry-After`): the
 * other instances answer at once, and by then a load balancer that polls
 * `/readyz` has taken this one out.
 */
export const DRAIN_RETRY_AFTER_SECONDS = 1;

/** An instance going away: new work is refused while the work in flight finishes. */
export interface DrainState {
  readonly draining: boolean;
  /** Aborted when the drain begins: the long-lived streams listen to it and end. */
  readonly signal: AbortSignal;
  begin(): void;
}

export function createDrainState(): DrainState {
  const controller = new AbortController();
  return {
    get draining() {
      return controller.signal.aborted;
    },
    signal: controller.signal,
    begin: () => controller.abort(),
  };
}

/**
 * `GET /readyz`: 200 once the instance is ready to take work and not draining, else 503 with the
 * reason, so a balancer (Kubernetes' readiness probe) sends work elsewhere. `/healthz` stays the
 * liveness check: a draining instance is alive.
 */
export function readinessResponse(ready: boolean, draining: boolean): Response {
  if (draining) return Response.json({ ready: false, reason: 'draining' }, { status: 503 });
  if (!ready) return Response.json({ ready: false, reason: 'starting' }, { status: 503 });
  return Response.json({ ready: true });
}

/** The answer to new work during a drain: 503, come back (to another instance) in a second. */
export function drainRefusal(): Response {
  return refusal(
    503,
    'this gateway instance is shutting down; retry the request (another instance answers it)',
    {
      'retry-after': String(DRAIN_RETRY_AFTER_SECONDS),
      // A proxy's kept-alive connection to a draining instance is worth nothing: let it go.
      connection: 'close',
    },
  );
}

/**
 * Whether a body starts new work (a JSON-RPC request: it has a method and an id). Responses and
 * notifications serve the work in flight — an answer to a question a running call asked, a
 * cancellation — and pass during a drain.
 */
export function startsWork(parsed: unknown): boolean {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.some(
    (m) => typeof m === 'object' && m !== null && 'method' in m && 'id' in m && m.id !== undefined,
  );
}

/** The SDK transport's private name for its standalone GET stream (read as `takeOverStream` reads its map). */
interface StandaloneStream {
  readonly _standaloneSseStreamId?: string;
}

/**
 * During a drain, whether a session's `GET` with `Last-Event-ID` resumes a call's stream (a
 * call in flight, whose result the client still needs: it passes) rather than the session's
 * standalone stream, which the drain ended so that the client goes elsewhere.
 */
export async function resumesCallStream(
  transport: WebStandardStreamableHTTPServerTransport,
  store: Pick<Required<EventStore>, 'getStreamIdForEventId'>,
  lastEventId: string,
): Promise<boolean> {
  const streamId = await store.getStreamIdForEventId(lastEventId);
  const standalone = (transport as unknown as StandaloneStream)._standaloneSseStreamId ?? '_GET_stream';
  return streamId !== undefined && streamId !== standalone;
}
