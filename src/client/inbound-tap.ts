/**
 * One wrapper around a transport's `onmessage`, shared by everything in mcpx that
 * must see (or mend, or drop) a message before the SDK does: `result-type.ts` and
 * `probe-witness.ts`. Each tap is added once; whoever sets `onmessage` later (the
 * SDK's probe window, then its Protocol) is wrapped with every tap, in order.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/** Sees an incoming message; returns it (changed or not), or `undefined` to drop it. */
export type InboundTap = (message: JSONRPCMessage) => JSONRPCMessage | undefined;

const tapsOf = new WeakMap<Transport, InboundTap[]>();
/** Handlers already wrapped: one saved and set back (the SDK's probe window does) is not wrapped twice. */
const wrapped = new WeakSet<NonNullable<Transport['onmessage']>>();

/** Adds `tap` to the messages `transport` delivers from now on. */
export function tapInbound(transport: Transport, tap: InboundTap): void {
  const taps = tapsOf.get(transport);
  if (taps) {
    taps.push(tap);
    return;
  }
  const all = [tap];
  tapsOf.set(transport, all);
  let handler = transport.onmessage;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Transport['onmessage']) => {
      if (!next || wrapped.has(next)) {
        handler = next;
        return;
      }
      const tapped: NonNullable<Transport['onmessage']> = (message, extra) => {
        const seen = throughAll(all, message);
        if (seen !== undefined) next(seen, extra);
      };
      wrapped.add(tapped);
      handler = tapped;
    },
  });
  if (handler) transport.onmessage = handler;
}

/**
 * `message` through every tap of `transport`, in order, for a message it delivers beside
 * `onmessage` (a relayed call's reply, `relayed-call.ts`): what the SDK would have been given,
 * or `undefined` when a tap dropped it. So a request traced on its way out ends its span.
 */
export function throughTaps(transport: Transport, message: JSONRPCMessage): JSONRPCMessage | undefined {
  const taps = tapsOf.get(transport);
  return taps ? throughAll(taps, message) : message;
}

function throughAll(taps: readonly InboundTap[], message: JSONRPCMessage): JSONRPCMessage | undefined {
  let seen: JSONRPCMessage | undefined = message;
  for (const each of taps) {
    seen = each(seen);
    if (seen === undefined) return undefined;
  }
  return seen;
}
