import {
  type CallToolResult,
  type JSONRPCMessage,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  specTypeSchemas,
  type Transport,
} from '@modelcontextprotocol/client';
import { RELAY_ID_PREFIX } from '../transport/index.js';
import type { CallCancel, CancelWatcher } from './call-cancel.js';
import { Deadlines } from './deadlines.js';
import { throughTaps } from './inbound-tap.js';

/** What one relayed request may be told while it waits: as the SDK's `RequestOptions`. */
export interface RelayOptions {
  readonly timeout: number;
  readonly signal?: AbortSignal;
  /** Instead of `signal`, watched without an `AbortSignal` (see `CallCancel`). */
  readonly cancel?: CallCancel;
}

/**
 * A transport a line relay can send calls on beside the SDK client: it hands the replies to
 * the relay's ids (`RELAY_ID_PREFIX`) to `onrelayreply` (a stdio server's, the daemon's
 * in-process link's caller end).
 */
export interface LineRelayTransport extends Transport {
  onrelayreply?: ((reply: JSONRPCMessage) => void) | undefined;
}

/** What a call needs of its line relay: to be forgotten once it ends, and to cancel upstream. */
interface Relay {
  readonly transport: LineRelayTransport;
  readonly waiting: Map<string, RelayedCall>;
  readonly deadlines: Deadlines<string>;
}

/**
 * One call on its way: its own listener (`handleEvent` for the client's abort signal,
 * `cancelled` for its `CallCancel`) and its own timeout (`expire`), so that a call allocates
 * one object rather than a closure per way it can end.
 */
class RelayedCall implements CancelWatcher {
  readonly #relay: Relay;
  readonly #id: string;
  readonly #signal: AbortSignal | undefined;
  readonly #cancel: CallCancel | undefined;
  readonly #timeout: number;
  readonly #resolve: (result: CallToolResult) => void;
  readonly #reject: (error: unknown) => void;

  constructor(
    relay: Relay,
    id: string,
    options: RelayOptions,
    resolve: (result: CallToolResult) => void,
    reject: (error: unknown) => void,
  ) {
    this.#relay = relay;
    this.#id = id;
    this.#signal = options.signal;
    this.#cancel = options.cancel;
    this.#timeout = options.timeout;
    this.#resolve = resolve;
    this.#reject = reject;
    relay.waiting.set(id, this);
    this.#signal?.addEventListener('abort', this, { once: true });
    this.#cancel?.watch(this);
    relay.deadlines.add(id, this.#timeout, this);
  }

  resolve(result: CallToolResult): void {
    this.#done();
    this.#resolve(result);
  }

  reject(error: unknown): void {
    this.#done();
    this.#reject(error);
  }

  /** The send failed: the call fails with it, unless it ended already. */
  unsent(error: unknown): void {
    if (this.#relay.waiting.get(this.#id) === this) this.reject(error);
  }

  /** The client's abort. */
  handleEvent(): void {
    this.#end(this.#signal?.reason);
  }

  cancelled(reason: unknown): void {
    this.#end(reason);
  }

  /** Its time is up. */
  expire(): void {
    this.#end(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: this.#timeout }));
  }

  /** Cancelled or out of time: the server is told, and the call fails with `reason`. */
  #end(reason: unknown): void {
    if (this.#relay.waiting.get(this.#id) !== this) return;
    this.#done();
    this.#relay.transport
      .send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: this.#id, reason: String(reason) },
      })
      .catch(() => {});
    this.#reject(
      reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason)),
    );
  }

  #done(): void {
    this.#relay.waiting.delete(this.#id);
    this.#relay.deadlines.delete(this.#id);
    this.#signal?.removeEventListener('abort', this);
    this.#cancel?.unwatch(this);
  }
}

/**
 * `tools/call` as a plain line on a stdio server's pipe, beside the SDK client
 * that owns it: the gateway's fast path (`gateway/fast-path.ts`). Only the
 * upstream hop changes. The request carries an id of the relay's own (a string,
 * `RELAY_ID_PREFIX`; the SDK numbers its own), its reply comes back through the
 * transport's `onrelayreply`, and every way it can end is the SDK's, with the
 * SDK's own error values, so `ServerConnection`'s translation words them as it
 * words the SDK client's: a JSON-RPC error answered (`ProtocolError.fromError`),
 * a timeout or a cancellation (with `notifications/cancelled` sent upstream), a
 * closed connection. The result is checked as the SDK checks it, except that a
 * plain text result (`isPlainToolResult`, the common case) is recognised by a
 * few property tests instead of the SDK's schema library.
 */
export class RelayedCalls {
  readonly #relay: Relay;
  #next = 0;
  #closed = false;

  constructor(transport: LineRelayTransport) {
    // Every waiting call's timeout on one timer (`Deadlines`).
    this.#relay = { transport, waiting: new Map(), deadlines: new Deadlines() };
    // A reply passes the transport's inbound taps as the SDK's messages do (its span ends there).
    transport.onrelayreply = (reply) => {
      const seen = throughTaps(transport, reply);
      if (seen) this.#onReply(seen);
    };
  }

  callTool(params: { name: string; arguments: Record<string, unknown> }, options: RelayOptions) {
    return new Promise<CallToolResult>((resolve, reject) => {
      if (this.#closed) return reject(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
      const cancelled = options.cancel?.aborted ? options.cancel : options.signal;
      if (cancelled?.aborted) {
        const reason = cancelled.reason;
        return reject(
          reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason)),
        );
      }
      const id = `${RELAY_ID_PREFIX}${this.#next++}`;
      const call = new RelayedCall(this.#relay, id, options, resolve, reject);
      this.#relay.transport
        .send({ jsonrpc: '2.0', id, method: 'tools/call', params })
        .catch((error: unknown) => call.unsent(error));
    });
  }

  /** The connection closed: every call still waiting fails as the SDK client's do. */
  close(): void {
    this.#closed = true;
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    for (const waiting of [...this.#relay.waiting.values()]) waiting.reject(error);
  }

  #onReply(reply: JSONRPCMessage): void {
    const waiting = this.#relay.waiting.get((reply as { id: string }).id);
    if (!waiting) return; // cancelled or timed out: dropped, as the SDK drops a late reply
    if ('error' in reply) {
      const { code, message, data } = reply.error;
      waiting.reject(ProtocolError.fromError(code, message, data));
      return;
    }
    const result = (reply as { result: unknown }).result;
    if (isPlainToolResult(result)) {
      waiting.resolve(result);
      return;
    }
    // Anything richer gets the SDK's own check, as the SDK client gives it.
    void Promise.resolve(specTypeSchemas.CallToolResult['~standard'].validate(result)).then((checked) => {
      if (checked.issues)
        waiting.reject(
          new SdkError(
            SdkErrorCode.InvalidResult,
            `Invalid result for tools/call: ${checked.issues.map((i) => i.message).join('; ')}`,
          ),
        );
      else waiting.resolve(checked.value as CallToolResult);
    }, waiting.reject);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const RESULT_KEYS = new Set(['content', 'isError', '_meta']);
const TEXT_KEYS = new Set(['type', 'text', 'annotations', '_meta']);

/**
 * A result the SDK's `CallToolResult` schema accepts unchanged, recognised
 * cheaply: text blocks only, no field the schema would check further. Anything
 * else is left to the schema itself.
 */
export function isPlainToolResult(value: unknown): value is CallToolResult {
  if (!isObject(value) || !Array.isArray(value.content)) return false;
  for (const key of Object.keys(value)) if (!RESULT_KEYS.has(key)) return false;
  if (value.isError !== undefined && typeof value.isError !== 'boolean') return false;
  if (value._meta !== undefined && !isObject(value._meta)) return false;
  for (const block of value.content) {
    if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
    for (const key of Object.keys(block)) if (!TEXT_KEYS.has(key)) return false;
    if (block._meta !== undefined && !isObject(block._meta)) return false;
    if (block.annotations !== undefined) return false;
  }
  return true;
}
