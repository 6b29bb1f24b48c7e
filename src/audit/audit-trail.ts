import { maskArguments } from './call-arguments.js';
import type { AuditCaller, AuditDecision, AuditOutcome, AuditRecord, AuditSink } from './types.js';

/** A call on its way, told what was decided and how it ended; recorded once, when it ends. */
export interface AuditedCall {
  /** What the permission engine decided (the last word counts). */
  decided(decision: AuditDecision): void;
  /** The upstream is known now (the gateway learns it when the public name resolves). */
  routed(server: string, tool: string): void;
  /** The result came back: `ok`, or `tool-error` for an `isError` result. */
  returned(result: unknown): void;
  /** The call failed: refused by the permission engine, or an error (its JSON-RPC or mcpx code recorded). */
  failed(error: unknown): void;
  /**
   * Ended without a record: the call goes on in another request (a 2026-07-28 client's next
   * round). Only sinks that log requests rather than calls hear of it (`AuditSink.round`).
   */
  dropped(): void;
}

/** A tool call as it begins, for `AuditTrail.begin`: who asked, and which tool with which arguments. */
export interface AuditCallStart {
  readonly who: AuditCaller;
  readonly server?: string;
  readonly tool: string;
  readonly args: unknown;
}

/**
 * One audit log with any number of sinks (the file, `mcpx serve --access-log`, a program's
 * own). Every front end's tool calls go through one trail, the host's, so each call is recorded
 * once wherever it came from.
 */
export interface AuditTrail {
  begin(call: AuditCallStart): AuditedCall;
  /** Another sink for the records from now on; returns its removal. */
  add(sink: AuditSink): () => void;
  /** Every sink's records written. */
  close(): Promise<void>;
}

/**
 * A trail over `sinks` (more may be added). A sink that throws is skipped for that record, never
 * the call. `profile`: the host's profile, on every record.
 */
export function createAuditTrail(sinks: readonly AuditSink[] = [], profile?: string): AuditTrail {
  const all = new Set(sinks);
  const publish = (record: AuditRecord, round = false) => {
    for (const sink of all) {
      try {
        if (!round) sink.write(record);
        else sink.round?.(record);
      } catch {
        // A sink's own failure is the sink's to report (the file sink warns once); the call goes on.
      }
    }
  };
  return {
    begin: (call) =>
      beginCall(profile === undefined ? call : { ...call, who: { ...call.who, profile } }, publish),
    add(sink) {
      all.add(sink);
      return () => all.delete(sink);
    },
    async close() {
      await Promise.all([...all].map((sink) => sink.close?.().catch(() => {})));
    },
  };
}

/** Messages of failures are the server's words: the first ones are enough to tell what went wrong. */
const MESSAGE_CHARS = 300;

function beginCall(
  call: AuditCallStart,
  publish: (record: AuditRecord, round?: boolean) => void,
): AuditedCall {
  return new Call(call, publish);
}

/**
 * One call's record in the making. A class rather than closures: the gateway begins one per
 * call, and its fields are all it needs (the time is formatted, the arguments masked, only
 * when the call ends and the record is made).
 */
class Call implements AuditedCall {
  readonly #call: AuditCallStart;
  readonly #publish: (record: AuditRecord, round?: boolean) => void;
  readonly #time = Date.now();
  readonly #started = performance.now();
  #server: string | undefined;
  #tool: string;
  #decision: AuditDecision | undefined;
  #done = false;

  constructor(call: AuditCallStart, publish: (record: AuditRecord, round?: boolean) => void) {
    this.#call = call;
    this.#publish = publish;
    this.#server = call.server;
    this.#tool = call.tool;
  }

  decided(d: AuditDecision): void {
    this.#decision = d;
  }

  routed(server: string, tool: string): void {
    this.#server = server;
    this.#tool = tool;
  }

  returned(result: unknown): void {
    if (this.#decision?.result === 'denied') this.#end('refused');
    else this.#end((result as { isError?: unknown } | undefined)?.isError === true ? 'tool-error' : 'ok');
  }

  failed(error: unknown): void {
    if (this.#decision?.result === 'denied') {
      this.#end('refused');
      return;
    }
    const { code, message, cause } = (error ?? {}) as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
    };
    // A guard of a program's own says no in the one error code for it, without a decision.
    if (code === 'PERMISSION_DENIED') {
      this.#end('refused');
      return;
    }
    const text = typeof message === 'string' ? message.slice(0, MESSAGE_CHARS) : String(error);
    // An upstream's JSON-RPC error, as it came or as the error mcpx wrapped it in.
    const rpc = typeof code === 'number' ? code : (cause as { code?: unknown } | undefined)?.code;
    if (typeof rpc === 'number') this.#end('protocol-error', { code: rpc, message: text });
    else this.#end('error', { ...(typeof code === 'string' ? { code } : {}), message: text });
  }

  dropped(): void {
    // Not a record of the call (its last round makes that), but a request that was served.
    this.#end('ok', undefined, true);
  }

  #end(outcome: AuditOutcome, error?: AuditRecord['error'], round = false): void {
    if (this.#done) return;
    this.#done = true;
    const server = this.#server;
    const decision = this.#decision;
    const args = maskArguments(this.#call.args);
    this.#publish(
      {
        time: new Date(this.#time).toISOString(),
        ...this.#call.who,
        ...(server === undefined ? {} : { server }),
        tool: this.#tool,
        ...(decision ? { decision } : {}),
        durationMs: Math.round((performance.now() - this.#started) * 100) / 100,
        outcome,
        ...(error ? { error } : {}),
        argumentKeys: Object.keys(args),
        arguments: args,
      },
      round,
    );
  }
}
