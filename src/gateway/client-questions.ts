/**
 * The questions an upstream asks while it serves a client's request (sampling, elicitation,
 * roots), put to that client: as server→client requests on a 2025 session, as `input_required`
 * rounds to a 2026-07-28 client, and a 2026-07-28 upstream's own rounds relayed in between.
 */
import {
  type InputRequest,
  isInputRequiredResult,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type Root,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/server';
import type { ClientFeatures } from '../client/features.js';
import type { InputRound } from '../client/index.js';
import type { Callers } from './callers.js';
import { type DownstreamCall, signalOf } from './downstream-call.js';
import { CAPABILITY_OF } from './input-rounds.js';

/**
 * How many times one call may come back `input_required` from a 2026-07-28
 * upstream before the gateway gives up: a server that never stops asking must
 * not hold a client forever.
 */
export const MAX_INPUT_ROUNDS = 16;

/**
 * Sampling, elicitation and roots for one upstream server that asks with
 * server→client requests (2025-11-25), answered by the client whose call is in
 * flight there (see `Callers`). A 2026-07-28 upstream asks inside the call's
 * own result instead (`relayRounds`). Roots asked outside such a call are
 * `outsideCalls.roots` (the keep-alive daemon's: what every caller of the
 * instance offered), else none.
 */
export function questionsFor(
  callers: Callers<DownstreamCall>,
  server: string,
  outsideCalls: { readonly roots?: () => readonly Root[] } = {},
): ClientFeatures {
  const caller = () => {
    const call = callers.soleCaller(server);
    if (call) return call;
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `mcpx gateway: '${server}' asked its client outside a single client's call; it cannot tell which client to ask`,
    );
  };
  // The client and server packages declare the same wire types separately.
  const ask = async (request: InputRequest, signal?: AbortSignal) => {
    const call = caller();
    return (await askClient(call, request, signal ?? signalOf(call))) as never;
  };
  return {
    sampling: {
      createMessage: (params, { signal }) =>
        ask({ method: 'sampling/createMessage', params } as InputRequest, signal),
    },
    elicitation: {
      form: (params, { signal }) => ask({ method: 'elicitation/create', params } as InputRequest, signal),
      url: (params, { signal }) => ask({ method: 'elicitation/create', params } as InputRequest, signal),
    },
    roots: {
      // Outside a client's call a gateway has no roots of its own to offer (the daemon's
      // instance has its callers', `outsideCalls`).
      list: async () => {
        if (!callers.soleCaller(server)) return outsideCalls.roots?.() ?? [];
        return ((await ask({ method: 'roots/list' } as InputRequest)) as { roots: [] }).roots;
      },
      subscribe: () => () => {},
    },
  };
}

/**
 * Ask the calling client one question: a 2026-07-28 client through its
 * `input_required` rounds, a 2025 client with a request on its session. A
 * client that did not declare the capability is refused with -32021, as the
 * spec requires, rather than an internal error.
 */
export async function askClient(
  call: DownstreamCall,
  request: InputRequest,
  signal: AbortSignal,
  key?: string,
): Promise<unknown> {
  if (call.exchange) return call.exchange.ask(request, signal, key);
  const { mcpReq } = call.ctx;
  const params = (request as { params?: unknown }).params as never;
  const method: string = request.method;
  try {
    if (request.method === 'elicitation/create') return await mcpReq.elicitInput(params, { signal });
    if (request.method === 'sampling/createMessage') return await mcpReq.requestSampling(params, { signal });
    if (request.method === 'roots/list') return await mcpReq.send({ method: 'roots/list' }, { signal });
  } catch (error) {
    const capability = CAPABILITY_OF[method];
    if (error instanceof SdkError && error.code === SdkErrorCode.CapabilityNotSupported && capability)
      throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { [capability]: {} } });
    throw error;
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unsupported input request: ${method}`);
}

/**
 * One request to an upstream on behalf of a client, with the 2026-07-28
 * multi-round-trip in between: the upstream's `input_required` comes back here
 * (manual mode, so it is this call's and no other's), its questions are asked
 * of the calling client, and the request is sent again with the answers and
 * the upstream's `requestState`. No upstream request stays open between rounds.
 * A 2026-07-28 client's call hands the questions to the client instead, its
 * state sealed (`call.stateless`), and its retry comes back here as `resume`
 * on whichever instance it reaches: the result is then that `input_required`.
 */
export async function relayRounds<T>(
  call: DownstreamCall,
  send: (round: InputRound | undefined) => Promise<unknown>,
): Promise<T> {
  const resume = call.stateless?.resume;
  let round: InputRound | undefined = resume?.round;
  for (let n = resume?.rounds ?? 0; n <= MAX_INPUT_ROUNDS; n++) {
    const result = await send(round);
    if (!isInputRequiredResult(result)) return result as T;
    if (call.stateless && Object.keys(result.inputRequests ?? {}).length > 0)
      return call.stateless.pass(result, n + 1) as T;
    const signal = signalOf(call);
    const answers = await Promise.all(
      Object.entries(result.inputRequests ?? {}).map(
        async ([key, request]) => [key, await askClient(call, request, signal, key)] as const,
      ),
    );
    round = {
      ...(answers.length > 0 ? { inputResponses: Object.fromEntries(answers) } : {}),
      ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
    };
  }
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `mcpx gateway: the server asked for input more than ${MAX_INPUT_ROUNDS} times in one call; it was stopped`,
  );
}
