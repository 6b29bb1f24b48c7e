import type { Socket } from 'node:net';
import type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCRequest,
  RequestId,
} from '@modelcontextprotocol/client';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResponse,
  ProtocolError,
  ReadBuffer,
  serializeMessage,
} from '@modelcontextprotocol/client';
import type { ManagedTransport } from '../client/server-connection.js';
import { carriedError, carryError, ErrorCode, McpxError, toMcpxError } from '../errors/index.js';

/** Signs the person in at the caller's terminal, for the scope the daemon names (the CLI's own sign-in). */
export type CallerSignIn = (scope: string | undefined) => Promise<void>;

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
  /** Requests sent and not answered yet: one the daemon refuses for want of a sign-in is sent again. */
  readonly #inFlight = new Map<RequestId, { request: JSONRPCRequest; signedIn: boolean }>();
  #signingIn: Promise<void> | undefined;

  /**
   * `signIn`: where a person can sign in (a terminal). A request the held
   * server refused because its token needs a new sign-in (an AUTH_REQUIRED the
   * daemon carries with a `signIn` scope) is then held back, the person signs
   * in here, and the request goes to the daemon again, which picks the new
   * token up from the store. Without it the refusal is reported as it is.
   */
  constructor(
    socket: Socket,
    readonly server: string,
    readonly relayedProtocolVersion?: string,
    readonly signIn?: CallerSignIn,
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
    if (this.signIn) {
      if (isJSONRPCRequest(message)) this.#inFlight.set(message.id, { request: message, signedIn: false });
      else if ('method' in message && message.method === 'notifications/cancelled')
        this.#inFlight.delete((message.params as { requestId?: RequestId } | undefined)?.requestId ?? '');
    }
    this.#socket.write(serializeMessage(message));
  }

  #receive(message: JSONRPCMessage): void {
    if (this.signIn && (isJSONRPCResponse(message) || isJSONRPCErrorResponse(message))) {
      const id = message.id as RequestId;
      const sent = this.#inFlight.get(id);
      this.#inFlight.delete(id);
      const refusal = isJSONRPCErrorResponse(message) ? carriedError(message.error.data) : undefined;
      if (sent && !sent.signedIn && refusal?.code === ErrorCode.AuthRequired && refusal.context.signIn) {
        const held = { request: sent.request, signedIn: true };
        this.#inFlight.set(id, held);
        void this.#signInThenResend(held, refusal.context.signIn.scope, message as JSONRPCErrorResponse);
        return;
      }
    }
    this.onmessage?.(message);
  }

  /** One sign-in for every request refused meanwhile; a request is sent again once, never twice. */
  async #signInThenResend(
    held: { request: JSONRPCRequest; signedIn: boolean },
    scope: string | undefined,
    refusal: JSONRPCErrorResponse,
  ): Promise<void> {
    const { request } = held;
    try {
      this.#signingIn ??= (this.signIn as CallerSignIn)(scope).finally(() => {
        this.#signingIn = undefined;
      });
      await this.#signingIn;
    } catch (error) {
      // Why the sign-in did not happen (cancelled, refused, timed out) is the request's answer.
      const failure = toMcpxError(error);
      this.#inFlight.delete(request.id);
      this.onmessage?.({
        ...refusal,
        error: { ...refusal.error, message: failure.message, data: carryError(failure) },
      });
      return;
    }
    // Cancelled while the person signed in (Ctrl-C, a timeout): it is not sent again.
    if (this.#closed || this.#inFlight.get(request.id) !== held) return;
    this.#socket.write(serializeMessage(request));
  }

  /** An McpxError the daemon carried in a JSON-RPC error (see `errors/carried.ts`): reported as it is. */
  failureFor(error: unknown): McpxError | undefined {
    return error instanceof ProtocolError ? carriedError(error.data) : undefined;
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
