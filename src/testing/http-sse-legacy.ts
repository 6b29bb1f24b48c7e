import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

/**
 * The server side of the 2024-11-05 HTTP+SSE transport, for tests only
 * (`@modelcontextprotocol/server` 2.x no longer ships one): a GET opens an
 * SSE stream whose first event, `endpoint`, names the URL to POST messages
 * to; every message from the server is an SSE `message` event.
 */
export class LegacySseServerTransport implements Transport {
  readonly sessionId = randomUUID();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #closed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly endpointPath: string,
  ) {
    res.once('close', () => {
      if (!this.#closed) {
        this.#closed = true;
        this.onclose?.();
      }
    });
  }

  /** The URL path (with `sessionId`) the client must POST to. */
  get endpoint(): string {
    return `${this.endpointPath}?sessionId=${this.sessionId}`;
  }

  async start(): Promise<void> {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    this.res.write(`event: endpoint\ndata: ${this.endpoint}\n\n`);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** A message POSTed to the endpoint. */
  receive(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.res.end();
    this.onclose?.();
  }
}
