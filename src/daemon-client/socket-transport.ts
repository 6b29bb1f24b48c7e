import type { Socket } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/client';
import type { ManagedTransport } from '../client/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { inArrivalOrder } from '../transport/index.js';
import { type CallerSignIn, CallerSignInRelay, daemonFailure } from './caller-sign-in.js';

export type { CallerSignIn } from './caller-sign-in.js';

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
  readonly #signIn: CallerSignInRelay | undefined;

  /**
   * `signIn`: where a person can sign in (a terminal): a request refused for
   * want of a sign-in is sent again after it (`CallerSignInRelay`). Without it
   * the refusal is reported as it is.
   */
  constructor(
    socket: Socket,
    readonly server: string,
    readonly relayedProtocolVersion?: string,
    signIn?: CallerSignIn,
  ) {
    this.#socket = socket;
    this.#signIn =
      signIn &&
      new CallerSignInRelay(signIn, (request) => {
        if (this.#closed) return false;
        this.#socket.write(serializeMessage(request));
        return true;
      });
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
        this.#receive(message);
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
    this.#signIn?.sent(message);
    this.#socket.write(serializeMessage(message));
  }

  #receive(message: JSONRPCMessage): void {
    if (!this.#signIn || this.#signIn.received(message, this.#deliver)) this.#deliver(message);
  }

  // A call's last progress and its result often share one chunk of the socket (see inArrivalOrder).
  readonly #deliver = inArrivalOrder((m: JSONRPCMessage) => this.onmessage?.(m));

  failureFor(error: unknown): McpxError | undefined {
    return daemonFailure(error);
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
