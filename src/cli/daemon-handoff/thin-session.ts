/**
 * What a thin `mcpx serve` must know of its client's session to carry it over to a new daemon
 * (the daemon was stopped, upgraded or killed): the client's `initialize` and its logging level
 * and subscriptions, replayed there as the client first sent them, and the requests still
 * waiting for an answer, which the old daemon took with it and which are answered with an
 * error instead of never. Reads a call in the SDK client's shape from its ends (its line is
 * parsed only if the daemon goes away before answering it), every other client line whole, and
 * only the id of the daemon's lines (answers can be megabytes). A line the daemon's transport
 * skips (not JSON, not a JSON-RPC message) waits for nothing and changes no session state.
 */

import { asJsonRpcMessage } from '../../host/json-rpc-frame.js';

type Id = string | number;

/**
 * A request waiting for its answer: its method, and the line itself when it was read from its
 * ends only (`sdkRequest`), to be checked whole should the answer never come (`lost`).
 */
interface Pending {
  readonly method: string;
  readonly unread?: string;
}

/** The replayed requests' ids: no client's (the SDK numbers its requests). */
const REPLAY_ID_PREFIX = 'mcpx-thin-replay-';

/** JSON-RPC's "internal error": the request may or may not have run; the client decides. */
const LOST_CODE = -32603;

export class ThinSession {
  #initialize: Record<string, unknown> | undefined;
  #initialized = false;
  #logLevel: Record<string, unknown> | undefined;
  readonly #subscriptions = new Set<string>();
  readonly #pending = new Map<Id, Pending>();
  readonly #replayed = new Set<string>();

  /** A line the client sent (without its newline). */
  fromClient(line: string): void {
    // Most lines are calls in the SDK client's shape: their method and id are read from the line's
    // ends, and the line is parsed only if the daemon goes away before answering (`lost`).
    const request = sdkRequest(line);
    if (request && !this.#pending.has(request.id)) {
      this.#pending.set(request.id, { method: request.method, unread: line });
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return;
    }
    // As the daemon's transport reads it: a line that is no JSON-RPC message is skipped there.
    const message = asRequest(parsed);
    if (!message) return;
    const params = (typeof message.params === 'object' && message.params) || {};
    const uri = (params as { uri?: unknown }).uri;
    switch (message.method) {
      case 'initialize':
        this.#initialize = params as Record<string, unknown>;
        break;
      case 'notifications/initialized':
        this.#initialized = true;
        break;
      case 'logging/setLevel':
        this.#logLevel = params as Record<string, unknown>;
        break;
      case 'resources/subscribe':
        if (typeof uri === 'string') this.#subscriptions.add(uri);
        break;
      case 'resources/unsubscribe':
        if (typeof uri === 'string') this.#subscriptions.delete(uri);
        break;
    }
    if (isId(message.id)) this.#pending.set(message.id, { method: message.method });
  }

  /** Whether the daemon's lines need reading now: a request waits, or a replayed one's answer. */
  watching(): boolean {
    return this.#pending.size > 0 || this.#replayed.size > 0;
  }

  /**
   * A line the daemon sent (without its newline): whether it is for the client. An answer to a
   * replayed request is not; an answer to the client's ends its wait.
   */
  fromDaemon(line: string): boolean {
    if (!this.watching()) return true;
    const id = answeredId(
      line,
      (id) => this.#pending.has(id) || (typeof id === 'string' && this.#replayed.has(id)),
    );
    if (id === undefined) return true;
    if (typeof id === 'string' && this.#replayed.delete(id)) return false;
    this.#pending.delete(id);
    return true;
  }

  /**
   * Lines that end every request the old daemon took with it, for the client: each an error
   * that says what happened. The waits are over.
   */
  lost(): string[] {
    const taken = [...this.#pending].filter(([id, pending]) => isTaken(id, pending));
    const lines = taken.map(([id, { method }]) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: {
          code: LOST_CODE,
          message: `the mcpx daemon stopped while this ${method} request ran, and mcpx reconnected to a new one: send it again${method === 'tools/call' ? ' (the tool may or may not have run)' : ''}`,
        },
      }),
    );
    this.#pending.clear();
    return lines;
  }

  /** What to send a new daemon's session first, so it is the session the client had. */
  replay(): string[] {
    const lines: string[] = [];
    const request = (method: string, params: unknown) => {
      const id = `${REPLAY_ID_PREFIX}${this.#replayed.size + 1}-${method}`;
      this.#replayed.add(id);
      lines.push(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    };
    // A 2026-07-28 client sends no initialize: each of its requests carries what it needs.
    if (this.#initialize) request('initialize', this.#initialize);
    if (this.#initialized)
      lines.push(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    if (this.#logLevel) request('logging/setLevel', this.#logLevel);
    for (const uri of this.#subscriptions) request('resources/subscribe', { uri });
    return lines;
  }
}

/** Methods that change the session (`replay` sends them again): their lines are always parsed. */
const SESSION_METHODS = new Set([
  'initialize',
  'notifications/initialized',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/**
 * How the SDK client writes a request (`{...request, jsonrpc, id}`): `method` first,
 * `"jsonrpc":"2.0","id":…` last. The first key after `{` is the top level's, and so is an id
 * whose value ends right before the closing brace, when the line is JSON at all; a later
 * `"method"` anywhere (a duplicate key would win) sends the line to the full parse.
 */
const SDK_REQUEST_HEAD = /^\{"method":"([^"\\]*)",/;
const SDK_REQUEST_END = /,"jsonrpc":"2\.0","id":(-?\d{1,15}|"[^"\\]*")\}$/;
/** The request's tail looked at: its id is short. */
const REQUEST_END_CHARS = 64;

/**
 * The method and id of a request as the SDK client writes one, read from the line's ends
 * without parsing it; undefined for any other line (and for a request that changes the session).
 * Whether the line is JSON at all is not known: `isTaken` decides that when it matters.
 */
function sdkRequest(line: string): { method: string; id: Id } | undefined {
  // A waiting request keeps its line: a long one (large arguments) is parsed now instead.
  if (line.length > WHOLE_LIMIT) return undefined;
  const method = SDK_REQUEST_HEAD.exec(line)?.[1];
  if (method === undefined || SESSION_METHODS.has(method)) return undefined;
  if (line.indexOf('"method"', method.length + 12) !== -1) return undefined;
  const end = line.length > REQUEST_END_CHARS ? line.slice(-REQUEST_END_CHARS) : line;
  const id = SDK_REQUEST_END.exec(end)?.[1];
  if (id === undefined) return undefined;
  return { method, id: id.startsWith('"') ? id.slice(1, -1) : Number(id) };
}

/**
 * Whether the daemon took a waiting request: one read from its ends is, if the whole line is
 * the JSON-RPC request those ends said (the daemon skips a line that is not JSON, or not JSON-RPC).
 */
function isTaken(id: Id, pending: Pending): boolean {
  if (pending.unread === undefined) return true;
  let message: Request | undefined;
  try {
    message = asRequest(JSON.parse(pending.unread));
  } catch {
    return false;
  }
  return message?.method === pending.method && message.id === id;
}

interface Request {
  readonly method: string;
  readonly id?: unknown;
  readonly params?: unknown;
}

/**
 * A parsed line as a request or notification the daemon's transport takes (its framing check):
 * anything else it skips.
 */
function asRequest(value: unknown): Request | undefined {
  const message = asJsonRpcMessage(value);
  return message && 'method' in message ? (message as Request) : undefined;
}

function isId(value: unknown): value is Id {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

// `"id":` and its value; whitespace allowed, as any JSON writer may put it.
const ID_AT = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")/g;
/** Beyond this, an answer is not parsed: its id is looked for at its two ends (where writers put it). */
const WHOLE_LIMIT = 64 * 1024;
const END_CHARS = 256;

/**
 * The id of an answer (a line with `result` or `error` and no `method`), undefined for anything
 * else. A long line is not parsed: an id at either end that `waiting` knows is taken as its.
 */
function answeredId(line: string, waiting: (id: Id) => boolean): Id | undefined {
  const written = sdkAnswerId(line);
  if (written !== undefined) return written;
  if (line.length <= WHOLE_LIMIT) {
    let message: { id?: unknown; method?: unknown };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return undefined;
    }
    return message && message.method === undefined && isId(message.id) ? message.id : undefined;
  }
  const tail = [...line.slice(-END_CHARS).matchAll(ID_AT)].at(-1);
  const head = line.slice(0, END_CHARS).matchAll(ID_AT).next().value;
  for (const match of [tail, head]) {
    const id = match?.[1] === undefined ? undefined : parseId(match[1]);
    if (id !== undefined && waiting(id)) return id;
  }
  return undefined;
}

/**
 * How the daemon writes a result (the SDK server's key order, and its fast path's): `result` first,
 * `"jsonrpc":"2.0","id":…` last. The last character closes the top-level object and the id's value
 * (digits, or a string with no quote or backslash) ends right before it, so that `id` is the
 * top level's; `result` first makes it an answer.
 */
const SDK_ANSWER_END = /,"jsonrpc":"2\.0","id":(-?\d{1,15}|"[^"\\]*")\}$/;

/** The id of an answer as the daemon writes one, without parsing it; undefined: not that shape. */
function sdkAnswerId(line: string): Id | undefined {
  if (!line.startsWith('{"result":')) return undefined;
  const id = SDK_ANSWER_END.exec(line.length > END_CHARS ? line.slice(-END_CHARS) : line)?.[1];
  if (id === undefined) return undefined;
  return id.startsWith('"') ? id.slice(1, -1) : Number(id);
}

function parseId(text: string): Id | undefined {
  try {
    const id = JSON.parse(text) as unknown;
    return isId(id) ? id : undefined;
  } catch {
    return undefined;
  }
}
