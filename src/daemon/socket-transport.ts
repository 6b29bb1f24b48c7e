import type { Socket } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/client';
import type { ManagedTransport } from '../client/server-connection.js';
import { ErrorCode, McpxError } from '../errors/index.js';

/**
 * The CLI's side of a `serve` connection: MCP as newline JSON over the daemon's
 * socket, so the ordinary client (era, progress, cancellation, the server's
 * questions) works unchanged, as it would over a server's stdio.
 */
export class DaemonSocketTransport implements ManagedTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #socket: Socket;
  readonly #buffer = new ReadBuffer();
  #closing = false;
  #closed = false;
  #reason: McpxError | undefined;

  constructor(
    socket: Socket,
    readonly server: string,
    readonly relayedProtocolVersion?: string,
  ) {
    this.#socket = socket;
  }

  async start(): Promise<void> {
    this.#socket.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    this.#socket.on('error', (error) => this.onerror?.(error));
    this.#socket.once('close', () => {
      this.#closed = true;
      if (!this.#closing)
        this.#reason = new McpxError(
          ErrorCode.ConnectionClosed,
          `the mcpx daemon closed the connection to '${this.server}'`,
          {
            server: this.server,
            causes: ['the daemon was stopped (mcpx daemon stop) or killed'],
            fixes: ['run the command again: a new daemon starts on demand'],
          },
        );
      this.onclose?.();
    });
    this.#socket.resume();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed)
      throw this.#reason ?? new McpxError(ErrorCode.ConnectionClosed, 'the daemon connection is closed');
    this.#socket.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closing = true;
    await new Promise<void>((resolve) => {
      this.#socket.once('close', () => resolve());
      this.#socket.end();
      // A daemon that does not hang up its side within a moment is not waited for.
      setTimeout(() => this.#socket.destroy(), 500).unref();
    });
  }

  closeReason(): McpxError | undefined {
    return this.#reason;
  }
}
