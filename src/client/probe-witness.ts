/**
 * What became of the 2026-07-28 `server/discover` probe on one connect, seen on the
 * wire, so that only a verdict the server itself gave is remembered.
 *
 * The SDK decides the era and says which (`getProtocolEra()`), not why. On stdio, a
 * probe that times out counts as "legacy" (a silent legacy server on a pipe), and so
 * does a server that is merely slow: one still starting on a busy machine reads the
 * probe late and answers it as the 2026-07-28 server it is. The witness tells these
 * apart. Its one assumption: a stdio server reads its requests in order, so by the
 * time the fallback `initialize` is answered it has read the probe sent before it, and
 * answered it first if it ever will.
 */
import {
  type DiscoverResult,
  isSpecType,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { tapInbound } from './inbound-tap.js';

/**
 * - `none`: no probe went out (a remembered or configured era).
 * - `answered`: the probe was answered in time; the SDK's verdict rests on that answer.
 * - `late-modern`: it timed out, then the server answered as a 2026-07-28 server.
 * - `late-legacy`: it timed out, then the server answered with an error.
 * - `ignored`: it timed out and is unanswered, though the request sent after it was not.
 * - `unanswered`: it timed out and nothing since says why (read before the connect ends).
 */
export type ProbeOutcome = 'none' | 'answered' | 'late-modern' | 'late-legacy' | 'ignored' | 'unanswered';

export interface ProbeWitness {
  /** The outcome so far; once the connect has completed, `unanswered` reads as `ignored`. */
  outcome(connected: boolean): ProbeOutcome;
  /** A late answer's `server/discover` result, when it was one. */
  readonly lateDiscover: DiscoverResult | undefined;
}

const DISCOVER = 'server/discover';

/**
 * Watches `transport` (before the client connects): the probe requests it sends, and the
 * answers to them, in time or late. A late answer is dropped once seen: the SDK has moved
 * on, and would report it as a reply to a request it never sent.
 */
export function witnessEraProbe(transport: Transport, modernVersion: string): ProbeWitness {
  const probes = new Set<string | number>();
  let state: 'idle' | 'waiting' | 'answered' | 'timed-out' = 'idle';
  let late: 'modern' | 'legacy' | undefined;
  let lateDiscover: DiscoverResult | undefined;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && 'id' in message) {
      if (message.method === DISCOVER && state !== 'timed-out') {
        probes.add(message.id);
        state = 'waiting';
        const sent = send(message, options);
        // Over HTTP, a status (400, 404) is the server's answer, delivered as a failed send.
        sent.catch(() => {
          if (state === 'waiting') state = 'answered';
        });
        return sent;
      }
      // The SDK gave up waiting and sent the 2025 `initialize` instead.
      if (state === 'waiting') state = 'timed-out';
    }
    return send(message, options);
  };
  tapInbound(transport, (message) => {
    if (!('id' in message) || message.id === undefined || !probes.has(message.id)) return message;
    if (state !== 'timed-out') {
      state = 'answered';
      return message;
    }
    if (late === undefined) {
      lateDiscover = discoverResult(message, modernVersion);
      late = lateDiscover ? 'modern' : 'legacy';
    }
    return undefined;
  });
  return {
    outcome(connected) {
      if (state === 'idle') return 'none';
      if (state !== 'timed-out') return 'answered';
      if (late) return late === 'modern' ? 'late-modern' : 'late-legacy';
      return connected ? 'ignored' : 'unanswered';
    },
    get lateDiscover() {
      return lateDiscover;
    },
  };
}

/** The reply's result, if it is a `server/discover` result offering `modernVersion`. */
function discoverResult(message: JSONRPCMessage, modernVersion: string): DiscoverResult | undefined {
  if (!('result' in message)) return undefined;
  // Results of 2026-07-28 name their type; a server that leaves it out means a complete one.
  const result = { resultType: 'complete', ...(message.result as Record<string, unknown>) };
  if (!isSpecType.DiscoverResult(result)) return undefined;
  return result.supportedVersions.includes(modernVersion) ? (result as DiscoverResult) : undefined;
}
