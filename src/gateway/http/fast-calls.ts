import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonContentType, type Server } from '@modelcontextprotocol/server';
import { CallCancel } from '../../client/index.js';
import { MODERN_REVISION } from '../../transport/index.js';
import { asksNothing, plainCall, plainModernCall, runModernCall, SessionFastCalls } from '../fast-path.js';
import type { SessionToolCall } from '../session-server.js';
import { headerLookup } from './node-glue.js';
import type { SessionActivity } from './session-idle.js';

/** What the HTTP fast paths need of the listener. */
export interface HttpFastCallsOptions {
  /** The session handler made once for 2026-07-28 requests, which have no session. */
  readonly toolCall: SessionToolCall;
  /** How the SDK's per-request server would name itself in a 2026-07-28 result. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Whether a 2025-11-25 session id is one the listener serves now. */
  readonly isSession: (sessionId: string) => boolean;
  readonly activity: SessionActivity;
  /** The listener's own check of a 2026-07-28 call's `Mcp-Param-*` headers: a refusal, or undefined. */
  readonly paramHeaderRefusal: (
    message: unknown,
    headers: { get(name: string): string | null },
  ) => Promise<Response | undefined>;
}

/**
 * The HTTP front of the gateway's fast paths (`../fast-path.ts`): a POST, read and parsed
 * once, is taken before any web `Request` exists when it is a plain call whose headers are
 * what the SDK's checks would pass. Anything else goes on to the SDK, which answers or
 * refuses it.
 *
 * - **2025-11-25**: a session's plain call (or its cancellation), answered with one JSON body,
 *   which the spec lets a server choose for any request. Only while the session's client
 *   keeps its standalone GET stream open (where the call's log messages go) and declared
 *   nothing a server could ask it.
 * - **2026-07-28**: a plain call whose `Mcp-*` headers agree with its body, run by the
 *   sessionless handler and answered as the SDK's per-request transport answers.
 */
export class HttpFastCalls {
  readonly #options: HttpFastCallsOptions;
  /** Each 2025 session's fast calls, and its standalone GET streams open now. */
  readonly #sessions = new Map<string, { readonly calls: SessionFastCalls; streams: number }>();
  #taken = 0;

  constructor(options: HttpFastCallsOptions) {
    this.#options = options;
  }

  /** Calls taken so far. */
  get taken(): number {
    return this.#taken;
  }

  /** A 2025-11-25 session opened: its plain calls may take the fast path. */
  addSession(sessionId: string, server: Server): void {
    this.#sessions.set(sessionId, { calls: new SessionFastCalls(server, sessionId), streams: 0 });
  }

  /** A standalone GET stream of the session's own (not a resumed one), counted while `res` is open. */
  streamOpened(sessionId: string, res: ServerResponse): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    session.streams += 1;
    res.once('close', () => {
      session.streams -= 1;
    });
  }

  /** The session ended: its fast calls end as the SDK server ends its handlers'. */
  closeSession(sessionId: string): void {
    this.#sessions.get(sessionId)?.calls.close();
    this.#sessions.delete(sessionId);
  }

  /** Take a POST (its body `parsed`) and answer it: true when taken. */
  async take(req: IncomingMessage, res: ServerResponse, parsed: unknown): Promise<boolean> {
    if (!plainPost(req)) return false;
    return this.#legacy(req, res, parsed) || (await this.#modern(req, res, parsed));
  }

  #legacy(req: IncomingMessage, res: ServerResponse, parsed: unknown): boolean {
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId !== 'string' || !this.#options.isSession(sessionId)) return false;
    const session = this.#sessions.get(sessionId);
    if (!session || session.streams === 0) return false;
    const { calls } = session;
    if (!calls.ready || !asksNothing(calls.clientCapabilities)) return false;
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && version !== calls.protocolVersion) return false;
    const message = parsed as { method?: unknown; id?: unknown; params?: unknown };
    if (message.method === 'notifications/cancelled' && !('id' in message)) {
      if (!calls.cancel(message.params)) return false;
      res.writeHead(202).end();
      return true;
    }
    const call = plainCall(parsed);
    if (!call || calls.has(call.id)) return false;
    this.#taken += 1;
    res.once('close', this.#options.activity.begin(sessionId));
    void calls.run(call, true).then((reply) => {
      if (res.destroyed) return;
      if (!reply) {
        // Cancelled: the SDK leaves such a request's stream to end without an answer.
        res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': sessionId }).end();
        return;
      }
      writeJson(res, 200, JSON.stringify(reply), { 'mcp-session-id': sessionId });
    });
    return true;
  }

  async #modern(req: IncomingMessage, res: ServerResponse, parsed: unknown): Promise<boolean> {
    const h = req.headers;
    if (h['mcp-session-id'] !== undefined || h['mcp-protocol-version'] !== MODERN_REVISION) return false;
    if (h['mcp-method'] !== 'tools/call') return false;
    const call = plainModernCall(parsed);
    if (!call || h['mcp-name'] !== call.name) return false;
    const headers = headerLookup(req);
    if (await this.#options.paramHeaderRefusal(parsed, headers)) return false;
    this.#taken += 1;
    // The client hanging up cancels the call, as the SDK's per-request transport closing does.
    const hangUp = new CallCancel();
    const onClose = () => {
      if (!res.writableFinished) hangUp.abort(new Error('the client disconnected'));
    };
    res.once('close', onClose);
    const { toolCall, serverInfo } = this.#options;
    const reply = await runModernCall(toolCall, call, headers, randomUUID(), serverInfo, hangUp);
    res.off('close', onClose);
    writeJson(res, reply.status, reply.body);
    return true;
  }
}

/** Whether a POST's headers pass the SDK's content checks (a JSON body, both answers accepted). */
function plainPost(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return (
    isJsonContentType(req.headers['content-type'] ?? null) &&
    accept?.includes('application/json') === true &&
    accept.includes('text/event-stream')
  );
}

/** A whole JSON answer: its headers and body leave in one write, with a length. */
function writeJson(
  res: ServerResponse,
  status: number,
  body: string,
  headers?: Record<string, string>,
): void {
  if (res.destroyed) return;
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}
