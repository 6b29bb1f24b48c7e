import { createHash, randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  MissingRequiredClientCapabilityError,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CallCancel, type CancelWatcher, type InputRound } from '../client/index.js';
import { isSealedState, RoundSeal, SealRefused } from './sealed-state.js';

/** How long a client has to come back with its answers before the upstream call is cancelled. */
export const INPUT_ROUND_TIMEOUT_MS = 5 * 60_000;

/** The capability a client must declare for each embedded request. */
export const CAPABILITY_OF: Record<string, keyof ClientCapabilities> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/**
 * A key of a 2026-07-28 request's `_meta` envelope: the SDK lifts the envelope into
 * `ctx.mcpReq.envelope` when the request is a full 2026 one (as over stdio), else it
 * stays in `_meta`.
 */
export function envelopeValue(ctx: ServerContext, key: string): unknown {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[key] ?? ctx.mcpReq._meta?.[key];
}

/** Where a fast call's context keeps its `CallCancel` (`withRequestCancel`). */
const REQUEST_CANCEL = Symbol('mcpx.requestCancel');

/**
 * `mcpReq`, the context of a call the gateway's fast path made, carrying the `CallCancel` its
 * `signal` is made from when something asks: an upstream request or a round watches it instead.
 */
export function withRequestCancel<T extends object>(mcpReq: T, cancel: CallCancel): T {
  (mcpReq as { [REQUEST_CANCEL]?: CallCancel })[REQUEST_CANCEL] = cancel;
  return mcpReq;
}

/** The `CallCancel` of a fast call's context; undefined for a request the SDK server dispatched. */
export function requestCancelOf(ctx: ServerContext): CallCancel | undefined {
  return (ctx.mcpReq as { [REQUEST_CANCEL]?: CallCancel })[REQUEST_CANCEL];
}

/** Whether a request came on the 2026-07-28 wire, where the server cannot send the client requests. */
export function isModernRequest(ctx: ServerContext): boolean {
  return envelopeValue(ctx, PROTOCOL_VERSION_META_KEY) !== undefined;
}

/**
 * Who may answer a round: the same method and target, from the same client. On
 * stdio (and a daemon socket) that is the connection. Over HTTP every
 * 2026-07-28 request is a fresh one, so it is the credentials it carries (the
 * bearer token, hashed) and the client's name and version from its envelope:
 * another client, or the same one with other credentials, cannot resume it.
 */
export function roundOwner(ctx: ServerContext, connection: string, target: string): string {
  return `${ctx.mcpReq.method}\0${target}\0${httpClientIdentity(ctx) ?? connection}`;
}

/**
 * Over HTTP, who a request comes from when there is no session to say it: the credentials it
 * carries (the bearer token, hashed) and the client's name and version from its envelope.
 * Undefined on stdio and a daemon socket, where the connection says it.
 */
export function httpClientIdentity(ctx: ServerContext): string | undefined {
  const credentials = httpCredentials(ctx);
  if (credentials === undefined) return undefined;
  return `${credentials}\0${JSON.stringify(envelopeValue(ctx, CLIENT_INFO_META_KEY) ?? null)}`;
}

/**
 * Over HTTP, the credentials a request carries (its `Authorization`, hashed); undefined on stdio
 * and a daemon socket. A 2025-11-25 session's consent in a fleet is kept under these with the
 * session, so a session id alone lets no other credentials use its person's answers.
 */
export function httpCredentials(ctx: ServerContext): string | undefined {
  if (!ctx.http) return undefined;
  return requestCredentials((ctx.http as { req?: Request }).req);
}

/** The credentials an HTTP request carries (its `Authorization`, hashed; none hashes as empty). */
export function requestCredentials(request: Pick<Request, 'headers'> | undefined): string {
  return credentialsDigest(request?.headers.get('authorization') ?? '');
}

/** The last few credentials' digests: a client sends the same token on every request. */
const digests = new Map<string, string>();

/** An `Authorization` header's value (empty when none), hashed: what keys a client's answers. */
function credentialsDigest(authorization: string): string {
  let digest = digests.get(authorization);
  if (digest === undefined) {
    digest = createHash('sha256').update(authorization).digest('base64url');
    if (digests.size >= 64) digests.delete(digests.keys().next().value as string);
    digests.set(authorization, digest);
  }
  return digest;
}

/** The capabilities a 2026-07-28 request declares in its envelope. */
/** How a 2026-07-28 request's client named itself in its `_meta`, when it did. */
export function declaredClientInfo(ctx: ServerContext): { name: string; version?: string } | undefined {
  const info = envelopeValue(ctx, CLIENT_INFO_META_KEY) as { name?: unknown; version?: unknown } | undefined;
  if (typeof info?.name !== 'string') return undefined;
  return { name: info.name, ...(typeof info.version === 'string' ? { version: info.version } : {}) };
}

export function declaredCapabilities(ctx: ServerContext): ClientCapabilities {
  return (envelopeValue(ctx, CLIENT_CAPABILITIES_META_KEY) ?? {}) as ClientCapabilities;
}

interface Question {
  readonly request: InputRequest;
  /** The key the upstream asked it under (a 2026-07-28 upstream), kept for the client to see. */
  readonly key?: string;
  resolve(answer: unknown): void;
  reject(error: unknown): void;
}

/**
 * The conduit between one upstream call and the 2026-07-28 client that made
 * it: the upstream's questions (asked through the mcpx client's handlers,
 * which wait on them) queue here until the client's next round carries the
 * answers. `ctx` is the round in progress, for progress and logging.
 */
export class InputExchange implements CancelWatcher {
  ctx: ServerContext;
  /** The upstream call's cancellation (its `AbortSignal` made only if something asks). */
  readonly cancel = new CallCancel();
  #queue: Question[] = [];
  #wake: (() => void) | undefined;

  constructor(ctx: ServerContext) {
    this.ctx = ctx;
  }

  /** Aborts the upstream call: the client cancelled, or never came back. */
  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  /** An upstream's question; resolves with the client's answer in a later round. */
  ask(request: InputRequest, signal?: AbortSignal, key?: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const question: Question = { request, resolve, reject, ...(key === undefined ? {} : { key }) };
      this.#queue.push(question);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      this.#wake?.();
    });
  }

  /**
   * Resolves once questions wait. The mcpx client asks an upstream's several
   * input requests of one round at once, each through its own handler: a
   * macrotask's pause lets them all arrive, so the client gets them in one round.
   */
  async asked(): Promise<void> {
    if (this.#queue.length === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
    this.#wake = undefined;
    await new Promise((resolve) => setImmediate(resolve));
  }

  take(): Question[] {
    const questions = this.#queue;
    this.#queue = [];
    return questions;
  }

  abort(reason: unknown): void {
    for (const question of this.take()) question.reject(reason);
    this.cancel.abort(reason);
  }

  /** The client cancelled the request of this round (a fast call's `CallCancel`). */
  cancelled(reason: unknown): void {
    this.abort(reason);
  }
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

interface Flow<T> {
  readonly exchange: InputExchange;
  readonly result: Promise<Settled<T>>;
  /** The questions the client was last asked, by the key it answers under. */
  asked: Map<string, Question>;
}

interface Parked {
  readonly flow: Flow<unknown>;
  readonly owner: string;
  readonly timer: NodeJS.Timeout;
}

/**
 * End a call whose questions will not be answered: the questions handed to the
 * client fail (a 2025 upstream's handler waiting on one returns an error to it),
 * and the upstream request is cancelled.
 */
function abandon(flow: Flow<unknown>, asked: Map<string, Question>, reason: unknown): void {
  for (const question of asked.values()) question.reject(reason);
  flow.exchange.abort(reason);
}

const invalidState = () =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    'mcpx gateway: this requestState is unknown, already used, expired, or from another client — call again without requestState and inputResponses to start over',
    { reason: 'invalid_request_state' },
  );

/** The request a round belongs to, beyond its owner: what a sealed state is bound to. */
export interface RoundRequest {
  readonly target: string;
  readonly args: unknown;
}

/**
 * A call that may take its rounds without parking: a 2026-07-28 upstream's
 * `input_required` goes to the client as it is, with the upstream's state
 * sealed, and the retry (on any instance with the key) resends the request.
 */
export interface StatelessRound {
  /**
   * The retry's answers and the upstream's own state, opened from the client's sealed state;
   * or, after a question of the gateway's own (`ask`), no round and the client's answers so far.
   */
  readonly resume?: {
    readonly round?: InputRound;
    readonly rounds: number;
    readonly answers?: readonly unknown[];
  };
  /** Hand an upstream's questions to the client; `rounds` counts this call's rounds so far. */
  pass(result: InputRequiredResult, rounds: number): InputRequiredResult;
  /**
   * Ask the client a question of the gateway's own before the upstream is called, under
   * `key`, its earlier `answers` sealed with it: the retry resumes with them and the new one.
   */
  ask(key: string, request: InputRequest, answers: readonly unknown[]): InputRequiredResult;
}

/** Refuse a round whose questions the client did not declare it can answer (-32021). */
function missingCapabilities(ctx: ServerContext, requests: Iterable<InputRequest>): Error | undefined {
  const declared = declaredCapabilities(ctx);
  const missing: ClientCapabilities = {};
  for (const request of requests) {
    const capability = CAPABILITY_OF[request.method];
    if (capability && !declared[capability]) (missing as Record<string, unknown>)[capability] = {};
  }
  if (Object.keys(missing).length === 0) return undefined;
  return new MissingRequiredClientCapabilityError({ requiredCapabilities: missing });
}

/**
 * Multi-round-trip requests (2026-07-28) for the gateway's downstream clients,
 * in two designs:
 *
 * - Stateless, for a 2026-07-28 upstream: its `input_required` passes to the
 *   client with the upstream's state sealed (`RoundSeal`), bound to the owner,
 *   the request and its arguments; the retry, on any instance holding the
 *   same key, resends the request upstream with the answers. Nothing is held.
 * - Parked, for a 2025 upstream, whose question is a request it keeps open:
 *   the client gets an opaque request state and the upstream call stays
 *   parked under it until the client's retry brings the answers. The state is
 *   256 random bits, single-use, expires, and only resumes for the same owner
 *   (the same request, from the same client connection or credentials), so
 *   one client cannot answer, or steal the result of, another's call.
 */
export class InputRounds {
  readonly #parked = new Map<string, Parked>();
  readonly #timeoutMs: number;
  readonly #seal: RoundSeal;
  #keys = 0;

  /** `stateKey`: the key shared by every instance behind one load balancer (else a random one). */
  constructor(timeoutMs = INPUT_ROUND_TIMEOUT_MS, stateKey?: Uint8Array) {
    this.#timeoutMs = timeoutMs;
    this.#seal = new RoundSeal(stateKey, timeoutMs);
  }

  /** Calls parked waiting for a client's answers. */
  get size(): number {
    return this.#parked.size;
  }

  /**
   * One round of a request: a retry resumes its parked call, or (a sealed
   * state) starts the request again with the answers; anything else starts
   * `start`. Resolves with the final result, or `input_required` when the
   * upstream asked something. Without `request` no round is offered stateless.
   */
  async round<T>(
    ctx: ServerContext,
    owner: string,
    start: (exchange: InputExchange, stateless?: StatelessRound) => Promise<T>,
    request?: RoundRequest,
  ): Promise<T | InputRequiredResult> {
    const state = ctx.mcpReq.requestState<unknown>();
    let flow: Flow<T>;
    if (state === undefined || (request && isSealedState(state))) {
      const exchange = new InputExchange(ctx);
      const stateless = request && this.#stateless(ctx, owner, request, state);
      flow = {
        exchange,
        result: start(exchange, stateless).then(
          (value) => ({ ok: true, value }),
          (error: unknown) => ({ ok: false, error }),
        ),
        asked: new Map(),
      };
    } else {
      const parked = typeof state === 'string' ? this.#parked.get(state) : undefined;
      if (!parked || parked.owner !== owner) throw invalidState();
      this.#parked.delete(state as string);
      clearTimeout(parked.timer);
      flow = parked.flow as Flow<T>;
      flow.exchange.ctx = ctx;
      const answers = (ctx.mcpReq.inputResponses ?? {}) as Record<string, unknown>;
      const unanswered = new Map<string, Question>();
      for (const [key, question] of flow.asked) {
        if (key in answers) question.resolve(answers[key]);
        else unanswered.set(key, question);
      }
      // A retry that left some out is asked them again, under the same keys.
      if (unanswered.size > 0) return this.#park(flow, owner, unanswered, ctx);
    }
    return this.#next(flow, owner, ctx);
  }

  async #next<T>(flow: Flow<T>, owner: string, ctx: ServerContext): Promise<T | InputRequiredResult> {
    // The client cancelling this round cancels the upstream call; once the round is answered,
    // the request's end is no longer the call's.
    const own = requestCancelOf(ctx);
    const cancel = () => flow.exchange.abort(ctx.mcpReq.signal.reason);
    if (own) own.watch(flow.exchange);
    else ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
    try {
      const outcome = await Promise.race([flow.result, flow.exchange.asked().then(() => undefined)]);
      if (outcome === undefined) {
        const asked = new Map<string, Question>();
        for (const question of flow.exchange.take()) {
          const own = question.key;
          asked.set(own !== undefined && !asked.has(own) ? own : `input-${++this.#keys}`, question);
        }
        return this.#park(flow, owner, asked, ctx);
      }
      if (outcome.ok) return outcome.value;
      throw outcome.error;
    } finally {
      if (own) own.unwatch(flow.exchange);
      else ctx.mcpReq.signal.removeEventListener('abort', cancel);
    }
  }

  /** A call's stateless rounds; `state` is the client's sealed one on a retry. */
  #stateless(ctx: ServerContext, owner: string, request: RoundRequest, state: unknown): StatelessRound {
    const binding = { owner, method: ctx.mcpReq.method, target: request.target, args: request.args };
    const pass = (result: InputRequiredResult, rounds: number): InputRequiredResult => {
      const inputRequests = result.inputRequests ?? {};
      const missing = missingCapabilities(ctx, Object.values(inputRequests));
      if (missing) throw missing;
      const sealed = this.#seal.seal(
        {
          ...(result.requestState === undefined ? {} : { upstreamState: result.requestState }),
          keys: Object.keys(inputRequests),
          rounds,
        },
        binding,
      );
      return inputRequired({ inputRequests, requestState: sealed });
    };
    const ask = (key: string, question: InputRequest, answers: readonly unknown[]): InputRequiredResult => {
      const missing = missingCapabilities(ctx, [question]);
      if (missing) throw missing;
      const sealed = this.#seal.seal({ keys: [key], rounds: 0, answers }, binding);
      return inputRequired({ inputRequests: { [key]: question }, requestState: sealed });
    };
    if (!isSealedState(state)) {
      // A first request may bring answers already (SEP-2322: a client may answer what it expects to
      // be asked). They go to the upstream with the request, as they would without the gateway:
      // the upstream, not the gateway, knows whether it recognises them.
      const given = ctx.mcpReq.inputResponses as Record<string, unknown> | undefined;
      if (!given || Object.keys(given).length === 0) return { pass, ask };
      return { resume: { round: { inputResponses: given }, rounds: 0 }, pass, ask };
    }
    let opened: ReturnType<RoundSeal['open']>;
    try {
      opened = this.#seal.open(state, binding);
    } catch (error) {
      if (error instanceof SealRefused) throw invalidState();
      throw error;
    }
    const given = (ctx.mcpReq.inputResponses ?? {}) as Record<string, unknown>;
    if (opened.answers !== undefined) {
      // The gateway's own question: its answer is the gateway's, and never goes upstream.
      const [key] = opened.keys;
      const answered = key !== undefined && key in given ? [given[key]] : [];
      return { resume: { rounds: opened.rounds, answers: [...opened.answers, ...answered] }, pass, ask };
    }
    // Only the answers to what was asked go upstream.
    const answers = Object.fromEntries(
      opened.keys.filter((key) => key in given).map((key) => [key, given[key]]),
    );
    const round: InputRound = {
      ...(Object.keys(answers).length > 0 ? { inputResponses: answers } : {}),
      ...(opened.upstreamState === undefined ? {} : { requestState: opened.upstreamState }),
    };
    return { resume: { round, rounds: opened.rounds }, pass, ask };
  }

  #park<T>(
    flow: Flow<T>,
    owner: string,
    asked: Map<string, Question>,
    ctx: ServerContext,
  ): InputRequiredResult {
    const missing = missingCapabilities(
      ctx,
      [...asked.values()].map((q) => q.request),
    );
    if (missing) {
      abandon(flow, asked, missing);
      throw missing;
    }
    flow.asked = asked;
    const state = randomBytes(32).toString('base64url');
    const timer = setTimeout(() => {
      this.#parked.delete(state);
      abandon(flow, asked, new Error('the client did not answer the input requests in time'));
    }, this.#timeoutMs);
    timer.unref();
    this.#parked.set(state, { flow: flow as Flow<unknown>, owner, timer });
    return inputRequired({
      inputRequests: Object.fromEntries([...asked].map(([key, q]) => [key, q.request])),
      requestState: state,
    });
  }

  /** Cancel every parked call (the gateway is closing). */
  close(): void {
    for (const [state, parked] of this.#parked) {
      clearTimeout(parked.timer);
      abandon(parked.flow, parked.flow.asked, new Error('the gateway closed'));
      this.#parked.delete(state);
    }
  }
}
