/** Seconds a client refused for having too many requests in flight is told to wait (`Retry-After`). */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

/** A request's slot: release it once its body is in (or it ended); undefined when the client is at its limit. */
export type ClientSlot = (() => void) | undefined;

/**
 * Requests per client (a 2025-11-25 session by its id, else the remote address) whose bodies are
 * being read, so one client cannot make the gateway buffer and scan without bound. `enter` returns
 * the release, or undefined when the client is at `max`, at once (a fleet's, `fleet-client-limit.ts`,
 * also without waiting on its store).
 */
export interface ClientLimit {
  enter(client: string): ClientSlot;
}

/** {@link ClientLimit} counted in this instance's memory: synchronous. */
export function createClientLimit(max: number): ClientLimit {
  const inFlight = new Map<string, number>();
  return {
    enter(client) {
      const now = inFlight.get(client) ?? 0;
      if (now >= max) return undefined;
      inFlight.set(client, now + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (inFlight.get(client) ?? 1) - 1;
        if (left > 0) inFlight.set(client, left);
        else inFlight.delete(client);
      };
    },
  };
}
