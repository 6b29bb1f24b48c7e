import type { Client, Transport } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, type McpxError } from '../errors/index.js';
import type { ManagedTransport } from './connect-options.js';
import { ERA_RECHECK_MS, type EraCache } from './era-cache.js';
import type { ProbeWitness } from './probe-witness.js';

// The server/discover probe only decides the era; a stdio legacy server that
// ignores it must not cost the whole connect budget on every start. After this
// the 2025 `initialize` is sent on the same pipe, and the slow server answers
// whichever it reads.
export const ERA_PROBE_TIMEOUT_MS = 2_000;

export function eraCacheKey(server: ServerConfig): string {
  return `${server.name}\u0000${server.fingerprint}`;
}

/** A legacy verdict not asked about for long enough (reached or last re-checked an hour ago). */
export function isRecheckDue(server: ServerConfig, eraCache: EraCache | undefined): boolean {
  const seen = eraCache?.lastSeen?.(eraCacheKey(server));
  return seen?.kind === 'legacy' && seen.checkedMsAgo >= ERA_RECHECK_MS;
}

/**
 * How long the `server/discover` probe may wait. The SDK falls back to
 * `initialize` after a probe timeout only on what it recognises as stdio (a
 * transport with `stderr` and `pid`); elsewhere a probe timeout is fatal (and
 * a 2025 HTTP server answers the probe at once, with 400), so a slow or busy
 * remote server gets the whole remaining budget to give its first answer.
 * A stdio server last seen speaking 2026-07-28 is not a silent legacy server
 * when it is slow (a busy machine, a cold start): its probe may wait half the
 * budget, the other half left for the fallback should it have been replaced.
 */
export function probeTimeoutMs(transport: Transport, remainingMs: number, spokeModern: boolean): number {
  const stdio = 'stderr' in transport && 'pid' in transport;
  if (!stdio) return remainingMs;
  return Math.min(
    remainingMs,
    spokeModern ? Math.max(ERA_PROBE_TIMEOUT_MS, remainingMs / 2) : ERA_PROBE_TIMEOUT_MS,
  );
}

/**
 * Remembers the era a connect reached, when the server gave it (see
 * `probe-witness.ts`): a probe that timed out is no verdict, and a late
 * 2026-07-28 answer to it is remembered as what it is. `restamp` re-dates a
 * legacy verdict the server confirmed (a background recheck).
 */
export function rememberEra(
  cache: EraCache,
  key: string,
  client: Client,
  witness: ProbeWitness | undefined,
  restamp: boolean,
): void {
  const discover = client.getDiscoverResult();
  if (client.getProtocolEra?.() === 'modern' && discover) {
    cache.set(key, { kind: 'modern', discover });
    return;
  }
  const outcome = witness?.outcome(true) ?? 'none';
  // A remembered or configured era was used: nothing learnt (and a recheck beside this
  // connection may have learnt better meanwhile).
  if (outcome === 'none') return;
  if (outcome === 'late-modern') {
    const late = witness?.lateDiscover;
    if (late) cache.set(key, { kind: 'modern', discover: late });
    else cache.delete(key);
    return;
  }
  if (restamp) cache.delete(key);
  cache.set(key, { kind: 'legacy' });
}

/**
 * The server went away during the era probe, and the probe may be what made
 * it exit: some SDKs end the process on any request before `initialize`.
 * Never when it exited before mcpx's first message reached it, and never when
 * its last words name another reason: a server that crashes at start ("API
 * key missing") is reported, not started a second time. A probe casualty
 * either says nothing or complains about the handshake or the method.
 */
export function isProbeCasualty(error: McpxError): boolean {
  if (error.context.exitedBeforeInput === true) return false;
  if (error.code !== ErrorCode.ServerCrashed && error.code !== ErrorCode.ConnectionClosed) return false;
  const stderr = error.context.stderrTail ?? [];
  return stderr.length === 0 || stderr.some((line) => PROBE_COMPLAINT.test(line));
}

// What servers built on strict SDKs print when the first request is not `initialize`.
const PROBE_COMPLAINT =
  /initiali[sz]|server\/discover|unknown method|method not found|unexpected (request|message)|not (yet )?connected/i;

// JSON-RPC errors a 2025-era server gives a 2026-07-28 request it cannot take:
// method not found, invalid request ("not initialized"), unsupported version.
const OTHER_ERA_CODES = new Set([-32601, -32600, -32022]);

/** The failure a server of the other era would cause: an error code above, or the server went away. */
export function looksLikeOtherEra(error: unknown, transport: ManagedTransport): boolean {
  if (transport.closeReason?.()) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && OTHER_ERA_CODES.has(code);
}
