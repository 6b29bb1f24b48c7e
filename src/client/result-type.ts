/**
 * Results without `resultType` from a 2026-07-28 server, accepted as complete.
 *
 * 2026-07-28 makes `resultType` required, and the SDK 2.4.0 client enforces it: a result
 * without one fails with `INVALID_RESULT … missing required resultType` (the "absent
 * means complete" bridge only applies to earlier revisions). Servers that left it out
 * answer correctly in every other way, and a missing discriminator can only mean an
 * ordinary result: the spec's other kinds (`input_required`) always name themselves.
 * So, once a connection speaks the modern era, a result that lacks the field is given
 * `resultType: "complete"` before the SDK sees it.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { tapInbound } from './inbound-tap.js';

/**
 * Taps `transport`'s incoming messages (whoever sets `onmessage` later, the SDK included)
 * so results that lack `resultType` get `"complete"` while `isModern()` holds.
 */
export function acceptResultsWithoutResultType(transport: Transport, isModern: () => boolean): void {
  tapInbound(transport, (message) => (isModern() ? withResultType(message) : message));
}

function withResultType(message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message) || !('id' in message)) return message;
  const result = message.result as unknown;
  if (typeof result !== 'object' || result === null || Array.isArray(result) || 'resultType' in result)
    return message;
  return { ...message, result: { ...result, resultType: 'complete' } } as JSONRPCMessage;
}
