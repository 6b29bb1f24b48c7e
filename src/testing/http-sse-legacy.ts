import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, Server, Transport } from '@modelcontextprotocol/server';

/**
 * The server side of the 2024-11-05 HTTP+SSE transport, for tests only
 * (`@modelcontextprotocol/server` 2.x ships none): a GET opens an
 * SSE stream whose first event, `endpoint`, names the URL to POST messages
 * to; every message from the server is an SSE `message` event.
 */
export class LegacySseServerTransport implements Transport {
  readonly sessionId = randomUUID();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The MCP server on this session (to announce list changes to it). */
  server?: Server;
  #closed = false;
  #sent = 0;

  /** `dropAfter`: cut the connection (socket destroyed) after this many messages, as a dying proxy would. */
  constructor(
    private readonly res: ServerResponse,
    private readonly endpointPath: string,
    private readonly dropAfter?: number,
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
    if (this.dropAfter !== undefined && ++this.#sent >= this.dropAfter) this.res.socket?.destroy();
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
