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

/**
 * Wraps `transport.onmessage` (whoever sets it later, the SDK included) so results that
 * lack `resultType` get `"complete"` while `isModern()` holds.
 */
export function acceptResultsWithoutResultType(transport: Transport, isModern: () => boolean): void {
  let handler = transport.onmessage;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Transport['onmessage']) => {
      handler = next && ((message, extra) => next(isModern() ? withResultType(message) : message, extra));
    },
  });
  if (handler) transport.onmessage = handler;
}

function withResultType(message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message) || !('id' in message)) return message;
  const result = message.result as unknown;
  if (typeof result !== 'object' || result === null || Array.isArray(result) || 'resultType' in result)
    return message;
  return { ...message, result: { ...result, resultType: 'complete' } } as JSONRPCMessage;
}
