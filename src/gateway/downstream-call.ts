/**
 * A client's request as the gateway core relays it upstream: the client it came from, the
 * request its progress and cancellation belong to now, what the client can answer, and the
 * trace context it carried. Shared by the call path (`core.ts`), the questions an upstream
 * asks back (`client-questions.ts`) and the consent asked before a call (`call-consent.ts`).
 */
import type { ClientCapabilities, ProgressToken, ServerContext, Tool } from '@modelcontextprotocol/server';
import {
  appsClientCapability,
  type CallCancel,
  type CallToolOptions,
  declaresApps,
  type InputRound,
  type ProgressEvent,
  type RequestControl,
} from '../client/index.js';
import { inboundTraceContext } from '../tracing/index.js';
import type { ClientConsent } from './consent.js';
import { type InputExchange, requestCancelOf, type StatelessRound } from './input-rounds.js';
import type { Qualified } from './namespace.js';

/** A client's request, as the gateway core needs to know it. */
export interface DownstreamCall {
  /** The client (its session), for routing the server's questions back to it. */
  readonly client: string;
  readonly ctx: ServerContext;
  /**
   * A 2026-07-28 client's call: that client takes no requests from a server, so
   * the upstream's questions go here, to become `input_required` rounds.
   */
  readonly exchange?: InputExchange;
  /**
   * A 2026-07-28 client's call that takes a 2026-07-28 upstream's rounds
   * statelessly: they pass to the client sealed rather than through `exchange`.
   */
  readonly stateless?: StatelessRound;
  /** What the client declared it can answer; an upstream on 2026-07-28 is told only that. */
  readonly clientCapabilities?: ClientCapabilities;
  /** How the client named itself (`initialize`, or a 2026-07-28 request's `_meta`), for the audit log. */
  readonly clientInfo?: { readonly name: string; readonly version?: string };
  /**
   * The consent this client's person gave, kept per client session: a call the
   * policy would put to a person is asked through the client when it declared
   * form elicitation. Without it, such a call is refused with how to allow it.
   */
  readonly consent?: ClientConsent;
  /** Told where a `tools/call` goes once its public name is resolved (the access log and metrics name it so). */
  readonly onRoute?: (route: Qualified) => void;
  /** Taken by the fast path (`fast-path.ts`): the upstream hop may be a plain line relay too. */
  readonly relay?: boolean;
}

/** The request a call's progress and cancellation belong to now (a multi-round call moves on). */
export const currentCtx = (call: DownstreamCall): ServerContext => call.exchange?.ctx ?? call.ctx;
export const signalOf = (call: DownstreamCall): AbortSignal =>
  call.exchange?.signal ?? call.ctx.mcpReq.signal;
/**
 * How the upstream request learns that `call` was cancelled: through the `CallCancel` of its
 * round or of its fast path where it has one (no `AbortSignal` made for it), else its signal.
 */
export function cancellationOf(call: DownstreamCall): { signal: AbortSignal } | { cancel: CallCancel } {
  const cancel = call.exchange?.cancel ?? requestCancelOf(call.ctx);
  return cancel ? { cancel } : { signal: call.ctx.mcpReq.signal };
}

/**
 * The questions a call's client can answer, for the upstream request's envelope, and whether
 * it shows MCP Apps (a 2026-07-28 upstream is told per request, so it can shape its answer).
 */
export function inputCapabilitiesOf(call: DownstreamCall): { inputCapabilities?: ClientCapabilities } {
  const declared = call.clientCapabilities;
  if (!declared) return {};
  // A session's declared capabilities are one object for its life: worked out once for it (read only).
  let known = inputCapabilities.get(declared);
  if (!known) {
    const { sampling, elicitation, roots } = declared;
    known = {
      inputCapabilities: {
        ...(sampling ? { sampling } : {}),
        ...(elicitation ? { elicitation } : {}),
        ...(roots ? { roots } : {}),
        ...(declaresApps(declared) ? { extensions: appsClientCapability() } : {}),
      },
    };
    inputCapabilities.set(declared, known);
  }
  return known;
}

const inputCapabilities = new WeakMap<ClientCapabilities, { inputCapabilities: ClientCapabilities }>();

/** Where one public tool name goes, and the upstream's definition of it. */
export type ToolRoute = Qualified & { readonly tool: Tool };

/**
 * The upstream request of a client's request (not `tools/call`, see `toolCallOptions`): its
 * cancellation, and what `withCallControl` adds.
 */
export function requestControlOf(
  call: DownstreamCall,
  inputRound: InputRound | undefined,
  logs: boolean,
): RequestControl {
  return withCallControl({ signal: signalOf(call) }, call, inputRound, logs);
}

/**
 * A client's `tools/call` upstream: as `requestControlOf`, with its cancellation as the call
 * watches it (`cancellationOf`), the line relay where the fast path took it, and the
 * upstream's progress passed on to the client under its own `token`.
 */
export function toolCallOptions(
  call: DownstreamCall,
  inputRound: InputRound | undefined,
  logs: boolean,
  token: ProgressToken | undefined,
): CallToolOptions {
  const options: Mutable<CallToolOptions> = withCallControl(cancellationOf(call), call, inputRound, logs);
  if (call.relay) options.relay = true;
  if (token !== undefined) options.onProgress = (p) => relayProgress(call, token, p);
  return options;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * What every upstream request of a client's request carries, set on `options` (its
 * cancellation): the request's signal its own and input answered by hand, what its client can
 * answer, the W3C trace context the client's request carried (passed on as it came: an mcpx that
 * does not trace must not cut the client's trace; when mcpx traces, the upstream request's own
 * span replaces it, `client/trace-requests.ts`), the input round it answers, and `logs: false`
 * when nobody could hear the upstream's log messages during it. Set one by one, not spread: made
 * for every call, many in flight.
 */
function withCallControl<T extends Mutable<RequestControl>>(
  options: T,
  call: DownstreamCall,
  inputRound: InputRound | undefined,
  logs: boolean,
): T {
  options.ownSignal = true;
  options.manualInput = true;
  const { inputCapabilities } = inputCapabilitiesOf(call);
  if (inputCapabilities) options.inputCapabilities = inputCapabilities;
  const traceContext = inboundTraceContext(call.ctx.mcpReq._meta);
  if (traceContext) options.traceContext = traceContext;
  if (inputRound) options.inputRound = inputRound;
  if (!logs) options.logs = false;
  return options;
}

/** An upstream's progress in a call, to the call's client under the client's own token. */
function relayProgress(call: DownstreamCall, token: ProgressToken, p: ProgressEvent): void {
  void currentCtx(call)
    .mcpReq.notify({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress: p.progress,
        ...(p.total === undefined ? {} : { total: p.total }),
        ...(p.message === undefined ? {} : { message: p.message }),
      },
    })
    .catch(() => {});
}
