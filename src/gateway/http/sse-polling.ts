import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type RequestId,
  type WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/**
 * SSE polling (SEP-1699, 2025-11-25): a request still running `afterMs` after
 * it arrived has its response stream ended, once, after the priming event;
 * the client comes back after the priming event's `retry` with `Last-Event-ID`,
 * the session's event store replays what it missed, and the rest (progress,
 * server requests, the result) follows on the resumed stream, which stays open
 * until the result. The call itself goes on upstream, untouched: only the
 * downstream connection changes. Once, not periodically: a client resumes the
 * stream it lost, and a simple one (the conformance suite's) resumes only once.
 *
 * The SDK offers a stream's close (`closeSSEStream`) only to a request whose
 * client can resume (an event store, 2025-11-25 or later); other requests are
 * left alone. Call after `server.connect(transport)`: it wraps the handlers
 * connect installed.
 */
export function pollCallStreams(transport: WebStandardStreamableHTTPServerTransport, afterMs: number): void {
  const timers = new Map<RequestId, NodeJS.Timeout>();
  const stop = (id: RequestId) => {
    clearTimeout(timers.get(id));
    timers.delete(id);
  };

  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const close = extra?.closeSSEStream;
    if (close && isJSONRPCRequest(message)) {
      const id = message.id;
      stop(id);
      timers.set(
        id,
        setTimeout(() => {
          timers.delete(id);
          close();
        }, afterMs).unref(),
      );
    }
    deliver?.(message, extra);
  };

  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined)
      stop(message.id);
    return send(message, options);
  };

  const closed = transport.onclose;
  transport.onclose = () => {
    for (const id of [...timers.keys()]) stop(id);
    closed?.();
  };
}
