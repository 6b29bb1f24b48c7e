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
} from '@modelcontextprotocol/client';
import { carriedError, carryError, ErrorCode, type McpxError, toMcpxError } from '../errors/index.js';

/** Signs the person in at the caller's terminal, for the scope the daemon names (the CLI's own sign-in). */
export type CallerSignIn = (scope: string | undefined) => Promise<void>;

interface Held {
  readonly request: JSONRPCRequest;
  readonly signedIn: boolean;
}

/**
 * The CLI's end of a link to the daemon (its socket, or the in-process link of
 * a command the daemon runs) when a person can sign in: a request the held
 * server refused because its token needs a new sign-in (an AUTH_REQUIRED the
 * daemon carries with a `signIn` scope) is held back, the person signs in at
 * the caller's terminal, and the request goes to the daemon again, which picks
 * the new token up from the store. One sign-in serves every request refused
 * meanwhile; a request is sent again once, never twice.
 */
export class CallerSignInRelay {
  readonly #inFlight = new Map<RequestId, Held>();
  #signingIn: Promise<void> | undefined;

  constructor(
    private readonly signIn: CallerSignIn,
    /** Sends a held request again; false when the link has closed meanwhile. */
    private readonly resend: (request: JSONRPCRequest) => boolean,
  ) {}

  /** Every message the CLI sends, before it goes out. */
  sent(message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message)) this.#inFlight.set(message.id, { request: message, signedIn: false });
    else if ('method' in message && message.method === 'notifications/cancelled')
      this.#inFlight.delete((message.params as { requestId?: RequestId } | undefined)?.requestId ?? '');
  }

  /** Every message the daemon sends: false when it is held back for a sign-in (`deliver` gets it later if at all). */
  received(message: JSONRPCMessage, deliver: (message: JSONRPCMessage) => void): boolean {
    if (!isJSONRPCResponse(message) && !isJSONRPCErrorResponse(message)) return true;
    const id = message.id as RequestId;
    const sent = this.#inFlight.get(id);
    this.#inFlight.delete(id);
    const refusal = isJSONRPCErrorResponse(message) ? carriedError(message.error.data) : undefined;
    if (!sent || sent.signedIn || refusal?.code !== ErrorCode.AuthRequired || !refusal.context.signIn)
      return true;
    const held: Held = { request: sent.request, signedIn: true };
    this.#inFlight.set(id, held);
    void this.#signInThenResend(held, refusal.context.signIn.scope, message as JSONRPCErrorResponse, deliver);
    return false;
  }

  async #signInThenResend(
    held: Held,
    scope: string | undefined,
    refusal: JSONRPCErrorResponse,
    deliver: (message: JSONRPCMessage) => void,
  ): Promise<void> {
    const { request } = held;
    try {
      this.#signingIn ??= this.signIn(scope).finally(() => {
        this.#signingIn = undefined;
      });
      await this.#signingIn;
    } catch (error) {
      // Why the sign-in did not happen (cancelled, refused, timed out) is the request's answer.
      const failure = toMcpxError(error);
      this.#inFlight.delete(request.id);
      deliver({
        ...refusal,
        error: { ...refusal.error, message: failure.message, data: carryError(failure) },
      });
      return;
    }
    // Cancelled while the person signed in (Ctrl-C, a timeout): it is not sent again.
    if (this.#inFlight.get(request.id) !== held) return;
    if (!this.resend(request)) this.#inFlight.delete(request.id);
  }
}

/** An McpxError the daemon carried in a JSON-RPC error (see `errors/carried.ts`): reported as it is. */
export function daemonFailure(error: unknown): McpxError | undefined {
  return error instanceof ProtocolError ? carriedError(error.data) : undefined;
}
