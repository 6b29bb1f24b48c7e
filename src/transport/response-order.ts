import type { JSONRPCMessage } from '@modelcontextprotocol/client';

/**
 * Hands messages to the SDK so that a response never overtakes the
 * notifications that came before it. The SDK runs notification handlers one
 * microtask after it receives them, but settles a request the moment its
 * response arrives, dropping the request's progress handler; a progress
 * notification and the result read in one chunk then lost the progress
 * ("unknown progress token"). A response is therefore delivered one
 * microtask later, after the handlers of what preceded it.
 */
export function inArrivalOrder<E>(
  deliver: (message: JSONRPCMessage, extra?: E) => void,
): (message: JSONRPCMessage, extra?: E) => void {
  return (message, extra) => {
    if (isResponse(message)) queueMicrotask(() => deliver(message, extra));
    else deliver(message, extra);
  };
}

function isResponse(message: JSONRPCMessage): boolean {
  return 'id' in message && !('method' in message);
}
