import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import {
  type CallerSignIn,
  CallerSignInRelay,
  daemonFailure,
  type LinkedTransport,
} from '../daemon-client/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { inArrivalOrder, isRelayId } from '../transport/index.js';

/**
 * Two transports joined in memory: a command the daemon runs for a light
 * caller reaches the held server's session server through them, with no
 * socket, hello or serialization to a stream. Each message is copied as JSON
 * (the two ends never share an object, and what arrives is what a wire would
 * carry) and delivered on a later turn of the event loop, as a socket's bytes
 * are: neither end is re-entered from its own `send`, and a chain of messages
 * (a session connecting to every held server: the handshake, the listings)
 * leaves the daemon's sockets their turn between hops. On microtasks such a
 * chain ran to its end before the daemon read anything else, and a thin
 * serve's `initialize` waited behind its own session's listings.
 *
 * The fast path's messages (a line relay's `tools/call`, its reply and its
 * cancellation: ids `RELAY_ID_PREFIX`) cross uncopied: the relay builds each
 * request afresh from values that came off a JSON line and never touches it
 * again, and the held server's fast path builds each reply from what came off
 * its server's line and keeps nothing of it, so no end can see the other's
 * change and what arrives is still what a wire would carry. They go on a
 * microtask, within the turn (after the sender's own code, so still never from
 * its `send`): each ends at a pipe (the server's) or a socket (the caller's),
 * so no chain of them can keep the daemon from its sockets, and a call no
 * longer waits two turns of the loop to cross. One behind a message still on
 * its way waits with it, so nothing overtakes what was sent before it. The
 * messages sent in one turn arrive together on the next (one `setImmediate`,
 * not one each). A relay's `tools/call` with nothing before it is offered to the
 * daemon's end as it is sent (`intercept`): its held calls (`gateway/held-calls.ts`)
 * run it from the held server's core there and then, so a call crosses the link
 * without a second gateway handler; one it leaves goes on the microtask.
 */
export function linkedPair(
  server: string,
  options: {
    /** The held server's own version (the link itself is 2025-11-25, like the socket). */
    readonly relayedProtocolVersion?: string;
    /** The link closed, from either end (once). */
    readonly onClosed?: () => void;
  } = {},
): [client: LinkedTransport, daemon: DaemonLinkEnd] {
  const client = new LinkEnd(server, options.relayedProtocolVersion);
  const daemon = new LinkEnd(server);
  client.peer = daemon;
  daemon.peer = client;
  client.onClosedOnce = options.onClosed;
  return [client, daemon];
}

/** The daemon's end of a link: a transport whose messages a fast path may take first. */
export interface DaemonLinkEnd extends Transport {
  intercept?: ((message: JSONRPCMessage) => boolean) | undefined;
}

class LinkEnd implements LinkedTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * The daemon's end: sees each message before the session server does and may keep it
   * (returns true): the gateway's fast path (`gateway/fast-path.ts`), as on a socket.
   */
  intercept?: ((message: JSONRPCMessage) => boolean) | undefined;
  /**
   * The caller's end: the replies to its line relay's calls (`client/relayed-call.ts`), which
   * its SDK client never sent, as a stdio transport hands them over.
   */
  onrelayreply?: ((reply: JSONRPCMessage) => void) | undefined;
  readonly relaysLines = true;
  peer: LinkEnd | undefined;
  onClosedOnce: (() => void) | undefined;
  #closed = false;
  #closedByPeer = false;
  #signIn: CallerSignInRelay | undefined;
  /** Messages that arrived before `start()`. */
  #queue: JSONRPCMessage[] | undefined = [];

  constructor(
    readonly server: string,
    readonly relayedProtocolVersion?: string,
  ) {}

  async start(): Promise<void> {
    const queued = this.#queue ?? [];
    this.#queue = undefined;
    for (const message of queued) this.onmessage?.(message);
  }

  useSignIn(signIn: CallerSignIn): void {
    this.#signIn = new CallerSignInRelay(signIn, (request) => this.#post(request));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || !this.peer)
      throw (
        this.closeReason() ?? new McpxError(ErrorCode.ConnectionClosed, 'the daemon connection is closed')
      );
    this.#signIn?.sent(message);
    this.#post(message);
  }

  #post(message: JSONRPCMessage): boolean {
    const peer = this.peer;
    if (this.#closed || !peer) return false;
    const relay = relayed(message);
    // Nothing before it waits: a relay message ends no chain (its hop is the server's pipe, or the
    // caller's socket), so it goes on this turn, after the sender's own code.
    if (relay && peer.#inbox.length === 0) {
      if (!peer.#takenNow(message)) queueMicrotask(() => peer.#receive(message));
      return true;
    }
    peer.#inbox.push(relay ? message : (JSON.parse(JSON.stringify(message)) as JSONRPCMessage));
    if (peer.#inbox.length === 1) setImmediate(peer.#drain);
    return true;
  }

  /**
   * A relay's request that the daemon's end takes as it is sent (its held calls, or its fast
   * path): nothing is queued before it, so it overtakes nothing, and taking it only starts the
   * call (whose reply comes back as a message), so the sender is not re-entered. It skips the
   * microtask and the in-order delivery, which only a message the session server reads needs.
   */
  #takenNow(message: JSONRPCMessage): boolean {
    if (this.#closed || this.#queue || this.#signIn || !this.intercept || !('id' in message)) return false;
    return this.intercept(message);
  }

  /** Messages posted to this end, delivered together on the next turn of the event loop. */
  #inbox: JSONRPCMessage[] = [];

  readonly #drain = (): void => {
    const arrived = this.#inbox;
    this.#inbox = [];
    for (const message of arrived) this.#receive(message);
  };

  #receive(message: JSONRPCMessage): void {
    if (this.#closed) return;
    if (this.#queue) this.#queue.push(message);
    else if (!this.#signIn || this.#signIn.received(message, this.#deliver)) this.#deliver(message);
  }

  // Each message arrives in a microtask of its own: a result would still overtake the
  // progress before it, whose SDK handler runs one microtask later (see inArrivalOrder).
  readonly #deliver = inArrivalOrder((message: JSONRPCMessage): void => {
    if (this.#closed) return;
    if (this.onrelayreply && !('method' in message) && isRelayId((message as { id?: unknown }).id)) {
      this.onrelayreply(message);
      return;
    }
    if (this.intercept?.(message)) return;
    this.onmessage?.(message);
  });

  failureFor(error: unknown): McpxError | undefined {
    return daemonFailure(error);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const peer = this.peer;
    this.peer = undefined;
    if (peer && !peer.#closed) {
      peer.#closedByPeer = true;
      await peer.close();
    }
    this.onclose?.();
    const closed = this.onClosedOnce;
    this.onClosedOnce = undefined;
    closed?.();
  }

  closeReason(): McpxError | undefined {
    if (!this.#closedByPeer) return undefined;
    return new McpxError(
      ErrorCode.ConnectionClosed,
      `the mcpx daemon closed the connection to '${this.server}'`,
      {
        server: this.server,
        causes: ['the daemon was stopped (mcpx daemon stop) or is stopping'],
        fixes: ['run the command again: a new daemon starts on demand'],
      },
    );
  }
}

/** A message of the fast path's line relay (see `linkedPair`): its request, reply or cancellation. */
function relayed(message: JSONRPCMessage): boolean {
  const { id, method, params } = message as {
    id?: unknown;
    method?: unknown;
    params?: { requestId?: unknown };
  };
  if (id !== undefined) return isRelayId(id);
  return method === 'notifications/cancelled' && isRelayId(params?.requestId);
}
