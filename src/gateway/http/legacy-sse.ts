import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { asJsonRpcMessage } from '../../transport/index.js';
import { asksNothing, plainCall, SessionFastCalls } from '../fast-path.js';
import type { LiveSessions } from '../sessions.js';
import type { ClientLimit } from './client-limit.js';
import { type DrainState, drainRefusal, startsWork } from './drain.js';
import type { JsonShapeLimits } from './json-shape.js';
import { headerLookup, writeWebResponse } from './node-glue.js';
import { readBounded } from './read-bounded.js';
import { type SseOverflow, SseServerTransport } from './sse-transport.js';

/** Where the deprecated HTTP+SSE transport is served: the stream, and where its messages are POSTed. */
export const LEGACY_SSE_PATHS = { stream: '/sse', messages: '/messages' } as const;

/**
 * Bytes an SSE client may leave unread on its stream before its session is ended: many
 * answers' worth (a call's result is rarely past a few hundred kB), far below what would
 * strain the process when many clients stop reading.
 */
export const DEFAULT_SSE_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export interface LegacySseOptions {
  /** A fresh session server, as a 2025-11-25 Streamable HTTP session gets (`newServer(id, 'session')`). */
  readonly newServer: (sessionId: string) => Server;
  /** The live session servers: upstream list changes and log messages reach them. */
  readonly live: LiveSessions;
  /** Prefix of every session id (`<id>.<uuid>`), as for Streamable HTTP sessions. */
  readonly instanceId?: string;
  /** Take plain calls before the SDK server's dispatch (`gateway/fast-path.ts`). */
  readonly fastPath: boolean;
  readonly maxBufferedBytes?: number;
  /** A session ended because its client stopped reading its stream. */
  readonly onOverflow?: (overflow: SseOverflow) => void;
}

/** What a POST needs of the listener: the same limits as `/mcp`'s. */
export interface LegacySseLimits {
  readonly clients: ClientLimit;
  readonly maxInFlightRefusal: () => Response;
  readonly maxBody: number;
  readonly jsonLimits: JsonShapeLimits;
  readonly drain: DrainState;
}

interface SseSession {
  readonly transport: SseServerTransport;
  readonly server: Server;
  readonly calls: SessionFastCalls | undefined;
}

/**
 * The deprecated HTTP+SSE transport (MCP 2024-11-05), for clients that speak only it
 * (`mcpx serve --http --legacy-sse`): `GET /sse` opens a session and its stream, whose first event
 * names `/messages?sessionId=…`; the client POSTs each message there (202) and reads every
 * answer on the stream. Each stream is one session, served by the gateway's per-session
 * server as a Streamable HTTP session is (consent, permissions, audit, metrics, logging
 * level, subscriptions, list changes), and ends with its stream. The listener's guard (token,
 * Host, Origin) has passed before a request gets here.
 */
export class LegacySse {
  readonly #options: LegacySseOptions;
  readonly #sessions = new Map<string, SseSession>();
  #taken = 0;

  constructor(options: LegacySseOptions) {
    this.#options = options;
  }

  /** Whether `path` is one of the transport's. */
  serves(path: string | undefined): boolean {
    return path === LEGACY_SSE_PATHS.stream || path === LEGACY_SSE_PATHS.messages;
  }

  /** Sessions open now (one per stream). */
  get size(): number {
    return this.#sessions.size;
  }

  /** Calls that took the fast path so far. */
  get fastCalls(): number {
    return this.#taken;
  }

  /** A request to one of `LEGACY_SSE_PATHS`, past the guard. */
  async route(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    limits: LegacySseLimits,
  ): Promise<void> {
    if (path === LEGACY_SSE_PATHS.stream) {
      req.resume();
      if (req.method !== 'GET') return plain(res, 405, 'the SSE stream is opened with GET', { allow: 'GET' });
      // The streams end with the drain (their sessions' calls answered first): none begins during it.
      if (limits.drain.draining) return writeWebResponse(res, drainRefusal());
      return this.#open(req, res, limits);
    }
    if (req.method !== 'POST') {
      req.resume();
      return plain(res, 405, 'messages are sent with POST', { allow: 'POST' });
    }
    return this.#post(req, res, limits);
  }

  async #open(req: IncomingMessage, res: ServerResponse, limits: LegacySseLimits): Promise<void> {
    // A stream is held for the session's life, not counted against the client's requests in flight.
    const release = limits.clients.enter(`address ${req.socket.remoteAddress ?? 'unknown'}`);
    if (!release) return writeWebResponse(res, limits.maxInFlightRefusal());
    release();
    const options = this.#options;
    const id = options.instanceId ? `${options.instanceId}.${randomUUID()}` : randomUUID();
    const transport = new SseServerTransport({
      sessionId: id,
      endpoint: `${LEGACY_SSE_PATHS.messages}?sessionId=${encodeURIComponent(id)}`,
      res,
      maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_SSE_MAX_BUFFERED_BYTES,
      ...(options.onOverflow ? { onOverflow: options.onOverflow } : {}),
    });
    const server = options.newServer(id);
    const calls = options.fastPath ? new SessionFastCalls(server, id) : undefined;
    this.#sessions.set(id, { transport, server, calls });
    options.live.add(server, id);
    await server.connect(transport);
    // After connect, which installs the server's own handler: the session goes with its stream.
    const closed = transport.onclose;
    transport.onclose = () => {
      this.#sessions.delete(id);
      calls?.close();
      closed?.();
    };
    // The stream closed while the session was being made: it went without the above.
    if (!transport.open) {
      this.#sessions.delete(id);
      calls?.close();
    }
  }

  async #post(req: IncomingMessage, res: ServerResponse, limits: LegacySseLimits): Promise<void> {
    const id = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('sessionId');
    const session = id === null ? undefined : this.#sessions.get(id);
    if (!session?.transport.open) {
      req.resume();
      return plain(
        res,
        404,
        id === null
          ? `no sessionId: open the stream first (GET ${LEGACY_SSE_PATHS.stream}) and POST to the endpoint its first event names`
          : 'session not found: it ended with its stream; open a new one (GET /sse)',
      );
    }
    const release = limits.clients.enter(`session ${id}`);
    if (!release) {
      req.resume();
      return writeWebResponse(res, limits.maxInFlightRefusal());
    }
    res.once('close', release);
    const body = await readBounded(req, limits.maxBody, limits.jsonLimits);
    release();
    if (body instanceof Response) return writeWebResponse(res, body);
    const message = parse(body);
    if (!message) return plain(res, 400, 'the body is not a JSON-RPC 2.0 message');
    // During a drain what answers the work in flight passes (a response, a cancellation).
    if (limits.drain.draining && startsWork(message)) return writeWebResponse(res, drainRefusal());
    if (!this.#fast(session, message))
      session.transport.deliver(message, {
        // What the session server reads of its request: the headers (the client's credentials).
        request: { headers: headerLookup(req) } as unknown as Request,
      });
    return plain(res, 202, 'Accepted');
  }

  /**
   * A plain call run by the session server's own handler without its dispatch, answered on the
   * stream (true), as a 2025-11-25 session's over Streamable HTTP: only for a client that
   * declared nothing a server could ask it, so everything of the call is its answer.
   */
  #fast({ calls, transport }: SseSession, message: JSONRPCMessage): boolean {
    if (!calls?.ready || !asksNothing(calls.clientCapabilities)) return false;
    const request = message as { method?: unknown; id?: unknown; params?: unknown };
    if (request.method === 'notifications/cancelled' && !('id' in request))
      return calls.cancel(request.params);
    const call = plainCall(message);
    if (!call || calls.has(call.id)) return false;
    this.#taken += 1;
    void calls.run(call, true).then((reply) => {
      if (reply) return transport.send(reply).catch(() => {});
    });
    return true;
  }

  /** End every session (their streams end): after the drain, or when the listener stops. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((s) => s.transport.close()));
  }
}

function parse(body: Uint8Array): JSONRPCMessage | undefined {
  try {
    return asJsonRpcMessage(
      JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')),
    ) as JSONRPCMessage | undefined;
  } catch {
    return undefined;
  }
}

/** A plain-text answer (the 2024-11-05 transport's refusals are not JSON-RPC: no request is answered). */
function plain(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}
