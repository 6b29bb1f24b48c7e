import type { JSONRPCMessage } from '@modelcontextprotocol/client';

type RequestId = string | number;

/** A request mcpx sent and is still waiting on. */
export interface PendingRequest {
  readonly id: RequestId;
  readonly method: string;
}

/**
 * Requests nobody waits on as "the" answer: a `subscriptions/listen` stream
 * stays open for the life of a 2026 connection, and a `server/discover` probe
 * has its own fallback (a 2025 server that garbles it is still asked to
 * `initialize`).
 */
const NOT_ATTRIBUTED = new Set(['subscriptions/listen', 'server/discover']);

// `"id": 7` or `"id": "a-b"` in a line that is not JSON (cut short, a stray comma).
const ID_IN_TEXT = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")/;

/**
 * The requests sent on one stdio connection and not yet answered, so that a
 * stdout line that is not a valid JSON-RPC message can be pinned on the
 * request it answers — and fail that request at once — instead of leaving
 * it to time out. A line is pinned only when it says which request it
 * answers (an `"id"` that is pending, readable even from broken JSON) or
 * exactly one request waits, and only when it looks like a JSON-RPC reply
 * (an object naming `jsonrpc`, or an `id` with a `result` or an `error`). Plain
 * text (a server's banner or log line, before or after `initialize`) and
 * JSON logs are never pinned: they stay what they were, lines to ignore.
 */
export class PendingRequests {
  readonly #byId = new Map<RequestId, string>();

  /** An outgoing message: a request starts waiting, a cancellation ends the wait. */
  sent(message: JSONRPCMessage): void {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    if (typeof m.method !== 'string') return;
    if (isId(m.id)) this.#byId.set(m.id, m.method);
    else if (m.method === 'notifications/cancelled' && isId(m.params?.requestId))
      this.#byId.delete(m.params.requestId);
  }

  /** An incoming message: a response ends the wait of its request. */
  received(message: JSONRPCMessage): void {
    const m = message as { id?: unknown; method?: unknown };
    if (m.method === undefined && isId(m.id)) this.#byId.delete(m.id);
  }

  /** Stop waiting on `id` (its failure was delivered). */
  settle(id: RequestId): void {
    this.#byId.delete(id);
  }

  /**
   * The request a malformed stdout line answers, when that can be told.
   * `parsed`: the line as JSON, when it is JSON at all.
   */
  answeredBy(line: string, parsed: unknown): PendingRequest | undefined {
    if (!looksLikeReply(line, parsed)) return undefined;
    const id = idOf(line, parsed);
    if (id !== undefined) {
      const method = this.#byId.get(id);
      return method !== undefined && !NOT_ATTRIBUTED.has(method) ? { id, method } : undefined;
    }
    return this.#onlyWaiting();
  }

  /**
   * The request a line too long to read answers, told from its ends alone (`head` and
   * `tail`, see `BoundedLineReader`'s skip mode): the members around its one large value.
   * A reply has its `result` (or `error`) as that value, and no `method`; its `id` sits
   * before it or after it, as each SDK writes them (the TypeScript SDK puts it last).
   */
  answeredByOversized(head: string, tail: string): PendingRequest | undefined {
    const envelope = envelopeOf(head, tail);
    if (!envelope.reply) return undefined;
    if (envelope.id === undefined) return this.#onlyWaiting();
    const method = this.#byId.get(envelope.id);
    return method !== undefined && !NOT_ATTRIBUTED.has(method) ? { id: envelope.id, method } : undefined;
  }

  #onlyWaiting(): PendingRequest | undefined {
    const waiting = [...this.#byId].filter(([, method]) => !NOT_ATTRIBUTED.has(method));
    const only = waiting.length === 1 ? waiting[0] : undefined;
    return only ? { id: only[0], method: only[1] } : undefined;
  }

  /**
   * A reply with no id while a `server/discover` probe waits: how some 2025
   * servers refuse the probe. Expected, and handled by the probe's fallback,
   * so not worth a warning.
   */
  refusesProbe(line: string, parsed: unknown): boolean {
    return (
      looksLikeReply(line, parsed) &&
      idOf(line, parsed) === undefined &&
      [...this.#byId.values()].includes('server/discover')
    );
  }
}

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function idOf(line: string, parsed: unknown): RequestId | undefined {
  if (parsed !== undefined) {
    const id = isObject(parsed) ? parsed.id : undefined;
    return isId(id) ? id : undefined;
  }
  const found = ID_IN_TEXT.exec(line)?.[1];
  if (found === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(found);
    return isId(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A reply gone wrong, not a log line: it names `jsonrpc`, or has an `id` with
 * a `result` or an `error` (a JSON log line often has an `error`, rarely with
 * an `id`); and it has no `method` (a request or notification is no reply).
 */
function looksLikeReply(line: string, parsed: unknown): boolean {
  if (parsed !== undefined)
    return (
      isObject(parsed) &&
      !('method' in parsed) &&
      ('jsonrpc' in parsed || ('id' in parsed && ('result' in parsed || 'error' in parsed)))
    );
  return (
    line.trimStart().startsWith('{') && /"(jsonrpc|result)"\s*:/.test(line) && !/"method"\s*:/.test(line)
  );
}

/** Any JSON-RPC message gone wrong (a reply, a request, a notification): it names `jsonrpc`. */
export function looksLikeJsonRpc(line: string, parsed: unknown): boolean {
  if (parsed !== undefined) return isObject(parsed) && 'jsonrpc' in parsed;
  return line.trimStart().startsWith('{') && /"jsonrpc"\s*:/.test(line);
}

const SCALAR = String.raw`"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null`;
// `"key": scalar` at the start of what is left of the head, and `, "key": scalar` at the end of the tail.
const LEADING_MEMBER = new RegExp(String.raw`^\s*"([^"\\]*)"\s*:\s*(?:(${SCALAR})\s*(,)?)?`);
const TRAILING_MEMBER = new RegExp(String.raw`,\s*"([^"\\]*)"\s*:\s*(${SCALAR})\s*$`);

/**
 * What the ends of a line too long to read say of it: whether its first member that is not
 * a plain value is a `result` or an `error` (a reply), and the plain members around that value.
 */
function envelopeOf(head: string, tail: string): { reply: boolean; id?: RequestId } {
  const start = head.trimStart();
  if (!start.startsWith('{')) return { reply: false };
  const members = new Map<string, unknown>();
  let rest = start.slice(1);
  let large: string | undefined;
  for (;;) {
    const member = LEADING_MEMBER.exec(rest);
    if (!member) break;
    const [all, key = '', value, comma] = member;
    if (value === undefined) {
      large = key;
      break;
    }
    members.set(key, scalar(value));
    if (!comma) break;
    rest = rest.slice(all.length);
  }
  let end = tail.trimEnd();
  if (end.endsWith('}')) {
    end = end.slice(0, -1);
    for (let member = TRAILING_MEMBER.exec(end); member; member = TRAILING_MEMBER.exec(end)) {
      const [, key = '', value = 'null'] = member;
      if (!members.has(key)) members.set(key, scalar(value));
      end = end.slice(0, member.index);
    }
  }
  const id = members.get('id');
  return {
    reply: (large === 'result' || large === 'error') && !members.has('method'),
    ...(isId(id) ? { id } : {}),
  };
}

function scalar(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // a string with an escape JSON does not know
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
