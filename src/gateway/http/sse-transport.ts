import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';

/** What an SSE session transport is told when it ends its session for a reader that fell too far behind. */
export interface SseOverflow {
  readonly sessionId: string;
  /** The bytes written but not yet taken by the client when the session was ended. */
  readonly buffered: number;
  /** The bound they passed. */
  readonly limit: number;
}

export interface SseServerTransportOptions {
  readonly sessionId: string;
  /** The URL (path and query) the client POSTs its messages to, sent as the stream's first event. */
  readonly endpoint: string;
  /** The stream's response, its headers not yet written. */
  readonly res: ServerResponse;
  /**
   * Bytes the client may leave unread on the stream: past it the session is ended (a client
   * that keeps posting calls but never reads their answers must not grow the gateway's memory).
   */
  readonly maxBufferedBytes: number;
  readonly onOverflow?: (overflow: SseOverflow) => void;
}

/**
 * The server's end of the deprecated HTTP+SSE transport (MCP 2024-11-05): one long-lived `GET`
 * whose first event, `endpoint`, names where the client POSTs; every answer, request and
 * notification of the server is an `event: message` on the stream. The v2 SDK dropped its own
 * (`SSEServerTransport` of the v1 SDK); this is the same wire, with what the gateway needs beside:
 *
 * - backpressure: a message written past the socket's high-water mark settles once it drains
 *   (one wait shared by every message written meanwhile, as `ServingStdioTransport`'s), and a
 *   reader more than `maxBufferedBytes` behind ends the session rather than be buffered for;
 * - what one turn of the event loop writes leaves in one system call (the socket corked until
 *   the turn's callbacks are done), as the Streamable HTTP streams' writes do (`node-glue.ts`);
 * - the messages the client POSTs are handed over by the listener (`deliver`), already parsed.
 *
 * The stream closing (the client gone, or `close()`) closes the transport, and with it the
 * session's server.
 */
export class SseServerTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport['onmessage'];
  readonly sessionId: string;

  readonly #options: SseServerTransportOptions;
  readonly #res: ServerResponse;
  #started = false;
  #closed = false;
  #corked = false;
  /** The wait for the stream to drain, shared by every message written while it is full. */
  #drain: Promise<void> | undefined;

  constructor(options: SseServerTransportOptions) {
    this.#options = options;
    this.#res = options.res;
    this.sessionId = options.sessionId;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('SseServerTransport already started');
    this.#started = true;
    const res = this.#res;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx would otherwise hold the events back in its buffer.
      'x-accel-buffering': 'no',
    });
    res.write(`event: endpoint\ndata: ${this.#options.endpoint}\n\n`);
    res.once('close', () => void this.close());
    // A client that hung up before the stream began: its 'close' may have come and gone.
    if (res.destroyed) setImmediate(() => void this.close());
    // A write to a connection the client dropped fails late: the 'close' above ends the session.
    res.on('error', () => {});
  }

  /** A message the client POSTed, parsed and checked by the listener. */
  deliver(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (this.#closed) return;
    try {
      this.onmessage?.(message, extra);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Whether the stream is still open. */
  get open(): boolean {
    return !this.#closed;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the SSE stream is closed'));
    const res = this.#res;
    const buffered = res.writableLength;
    if (buffered > this.#options.maxBufferedBytes) {
      this.#options.onOverflow?.({
        sessionId: this.sessionId,
        buffered,
        limit: this.#options.maxBufferedBytes,
      });
      // Ended, not flushed: what it buffered is freed now, not when (if ever) the client reads.
      res.destroy();
      void this.close();
      return Promise.reject(new Error('the SSE stream is closed: its client fell too far behind'));
    }
    this.#cork();
    // JSON.stringify escapes every line break, so one message is one `data:` line.
    if (res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)) return Promise.resolve();
    return this.#drained();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#res.writableEnded) this.#res.end();
    this.onclose?.();
  }

  /** Hold the socket's writes until this turn's callbacks are done: many answers, one write. */
  #cork(): void {
    if (this.#corked) return;
    const target = this.#res.socket;
    if (!target) return;
    this.#corked = true;
    target.cork();
    setImmediate(() => {
      this.#corked = false;
      target.uncork();
    });
  }

  #drained(): Promise<void> {
    this.#drain ??= new Promise((resolve) => {
      const done = () => {
        this.#drain = undefined;
        this.#res.off('drain', done);
        this.#res.off('close', done);
        resolve();
      };
      this.#res.once('drain', done);
      this.#res.once('close', done);
    });
    return this.#drain;
  }
}
