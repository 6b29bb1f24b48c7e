import { randomUUID } from 'node:crypto';
import {
  type CallToolRequest,
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerCapabilities,
  type ServerContext,
  type StandardSchemaV1,
  type Tool,
} from '@modelcontextprotocol/server';
import { type Attributes, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { APPS_EXTENSION, declaresApps, type ResourceSubscription } from '../client/index.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_MCPX_HOP,
  contextFromMeta,
  inSpan,
  mcpRequestAttributes,
  mcpSpanName,
  mcpxTracer,
  tracingInert,
} from '../tracing/index.js';
import { VERSION } from '../version.js';
import { ClientConsent, type KeptAnswers } from './consent.js';
import type { DownstreamCall, GatewayCore } from './core.js';
import {
  declaredCapabilities,
  declaredClientInfo,
  httpClientIdentity,
  httpCredentials,
  isModernRequest,
  roundOwner,
} from './input-rounds.js';
import type { Paginator } from './paginate.js';
import { SKILLS_EXTENSION, skillPassthrough } from './skill-passthrough.js';
import { gatewaySkills } from './skill-tools.js';
import { errorTypeOf, TOOL_ERROR } from './upstream-error.js';

export interface SessionServerOptions {
  /** Who this server talks to (a session id, a connection number); routes upstream questions back. */
  readonly client?: string;
  /** Pages of merged lists; shared by every session, since a 2026-07-28 client pages across requests. */
  readonly pages: Paginator;
  /** Transparent mode: the upstream's own capabilities and instructions. */
  readonly capabilities?: ServerCapabilities;
  readonly instructions?: string;
  /**
   * Told of each request handled (the daemon's call counts, the access log's other requests;
   * the host's audit trail records each tool call with its decision).
   */
  readonly onRequest?: (event: RequestEvent) => void;
  /** What serves these requests, on each one's SERVER span (`mcpx.hop`). Default `gateway`. */
  readonly hop?: 'gateway' | 'daemon';
  /** Only the gateway's skill pair: no upstream tool, resource or prompt (`GatewayOptions.skillsOnly`). */
  /** Watch a resource for `resources/subscribe`: the core's, or a fleet's fan-out of it. Default the core's. */
  readonly subscribe?: GatewayCore['subscribe'];
  readonly skillsOnly?: boolean;
  /**
   * A 2025-11-25 session over HTTP in a fleet: where its person's answers are kept, as the
   * credentials (hashed) of each request find them (`FleetConsents.ofSession`), so they outlive
   * this instance. Without it they live and end with this server.
   */
  readonly keptConsent?: (credentials: string) => KeptAnswers;
}

/** Credentials one session's server keeps a consent for (a session is one client: one, usually). */
const CONSENTS_PER_SESSION = 4;

/** One request a client made, for the access log. */
export interface RequestEvent {
  readonly client: string;
  readonly method: string;
  readonly server?: string;
  readonly tool?: string;
  readonly arguments?: unknown;
  readonly durationMs: number;
  readonly outcome: 'ok' | 'error' | 'tool-error';
  /**
   * Why it failed, as the MCP semantic conventions' `error.type`: `tool_error` for a
   * tool's error result, else the JSON-RPC error code the client was answered with.
   */
  readonly errorType?: string;
}

/**
 * `tools/call` params as the SDK `Server` hands them over. The `Server` checks every
 * `tools/call` request against its era's schema before any handler runs; registered the
 * usual way, the handler's request would be checked a second time, one of the largest
 * costs of a relayed call (profiled, ≈2% of the serve process). A request that fails the
 * check is refused by the first one, with the SDK's own error.
 */
const VALIDATED_BY_THE_SERVER: StandardSchemaV1<CallToolRequest['params']> = {
  '~standard': {
    version: 1,
    vendor: 'mcpx',
    validate: (value) => ({ value: value as CallToolRequest['params'] }),
  },
};

/**
 * A session server's `tools/call` handler. `fast`: how a fast path runs it (`fast-path.ts`):
 * the caller of a request that has no session of its own, and the upstream hop as a line relay.
 */
export type SessionToolCall = (
  params: CallToolRequest['params'],
  ctx: ServerContext,
  fast?: { readonly client?: string; readonly relay?: boolean },
) => Promise<CallToolResult>;

const toolCalls = new WeakMap<Server, SessionToolCall>();

/** How a session server names itself: the transparent server's name, else the gateway's. */
export function sessionServerInfo(core: Pick<GatewayCore, 'transparent'>): { name: string; version: string } {
  return { name: core.transparent ?? 'mcpx-gateway', version: VERSION };
}

/** The `tools/call` handler of a server made by `createSessionServer` (undefined without tools). */
export function sessionToolCall(server: Server): SessionToolCall | undefined {
  return toolCalls.get(server);
}

const GATEWAY_CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
  // MCP Apps pass through (`app-links.ts`), as tools and resources do, whichever upstream has them:
  // a 2025 session's capabilities are fixed at `initialize`, before every upstream is up.
  // Skills (SEP-2640) too: merged across upstreams, each file verified at mcpx (`skill-passthrough.ts`).
  // Directory reads of a skill are answered from its upstream, checked against its listing.
  extensions: { [APPS_EXTENSION]: {}, [SKILLS_EXTENSION]: { directoryRead: true } },
};

/** A skills-only gateway's upstream tools: one list object, so its merged list stays one snapshot. */
const NO_TOOLS: readonly Tool[] = [];

/** A skills-only gateway's: the skill pair is all it serves. */
const SKILLS_ONLY_CAPABILITIES: ServerCapabilities = { tools: { listChanged: true } };

/** Whether a client declared the skills extension (`capabilities.extensions`). */
function speaksSkills(declared: unknown): boolean {
  const extensions = (declared as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return typeof extensions?.[SKILLS_EXTENSION] === 'object' && extensions[SKILLS_EXTENSION] !== null;
}

/** `skills/list` takes a cursor at most; the whole merged list is one page. */
const ANY_PARAMS: StandardSchemaV1<Record<string, unknown> | undefined> = {
  '~standard': {
    version: 1,
    vendor: 'mcpx',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

/** `skills/get` and `resources/directory/read` take a `uri` (a directory read a cursor too: one page holds all). */
const URI_PARAMS: StandardSchemaV1<{ uri: string }> = {
  '~standard': {
    version: 1,
    vendor: 'mcpx',
    validate: (value) => {
      const uri = (value as { uri?: unknown } | undefined)?.uri;
      return typeof uri === 'string'
        ? { value: { uri } }
        : { issues: [{ message: 'params.uri must be a string', path: ['uri'] }] };
    },
  },
};

/**
 * The MCP server one client talks to: an SDK `Server` whose handlers ask the
 * shared gateway core. One per client session (2025-11-25, stdio) or per request
 * (2026-07-28 stateless HTTP), so clients never share request ids, progress
 * tokens or subscriptions.
 * Long because it registers every MCP method's handler on one SDK Server, each a few lines over the
 * same host and session.
 */
export function createSessionServer(core: GatewayCore, options: SessionServerOptions): Server {
  const client = options.client ?? randomUUID();
  const { pages } = options;
  const { skillsOnly = false } = options;
  const capabilities = options.capabilities ?? (skillsOnly ? SKILLS_ONLY_CAPABILITIES : GATEWAY_CAPABILITIES);
  const server = new Server(sessionServerInfo(core), {
    capabilities,
    ...(options.instructions ? { instructions: options.instructions } : {}),
  });
  // This session's person's answers: they live and end with this server, unless a fleet keeps
  // them (`keptConsent`). A 2026-07-28 client over HTTP has no session: its answers are kept by
  // the gateway core under its identity.
  const sessionConsent = new ClientConsent();
  const keptConsents = new Map<string, ClientConsent>();
  const { keptConsent } = options;
  const consentOf = (ctx: ServerContext): ClientConsent => {
    const credentials = keptConsent ? httpCredentials(ctx) : undefined;
    if (!keptConsent || credentials === undefined) return sessionConsent;
    let consent = keptConsents.get(credentials);
    if (!consent) {
      if (keptConsents.size >= CONSENTS_PER_SESSION)
        keptConsents.delete(keptConsents.keys().next().value as string);
      consent = new ClientConsent(keptConsent(credentials));
      keptConsents.set(credentials, consent);
    }
    return consent;
  };
  const call = (ctx: ServerContext, client: string): DownstreamCall => {
    const clientCapabilities = server.getClientCapabilities();
    const clientInfo = server.getClientVersion();
    return {
      client,
      ctx,
      consent: consentOf(ctx),
      ...(clientCapabilities ? { clientCapabilities } : {}),
      ...(clientInfo ? { clientInfo: { name: clientInfo.name, version: clientInfo.version } } : {}),
    };
  };
  /**
   * A request whose upstream may ask its client something. A 2026-07-28 client
   * takes no requests from a server, so it answers in `input_required` rounds
   * (see `InputRounds`); a 2025 client is asked on its session.
   */
  const asking = <T>(
    ctx: ServerContext,
    target: string,
    args: unknown,
    work: (c: DownstreamCall) => Promise<T>,
    caller = client,
  ) => {
    if (!isModernRequest(ctx)) return work(call(ctx, caller));
    const identity = httpClientIdentity(ctx);
    const consent = identity === undefined ? sessionConsent : new ClientConsent(core.consents.of(identity));
    return core.rounds.round(
      ctx,
      roundOwner(ctx, caller, target),
      (exchange, stateless) => {
        const clientInfo = declaredClientInfo(ctx);
        return work({
          client: caller,
          ctx,
          consent,
          exchange,
          ...(stateless ? { stateless } : {}),
          clientCapabilities: declaredCapabilities(ctx),
          ...(clientInfo ? { clientInfo } : {}),
        });
      },
      { target, args },
    ) as Promise<T>;
  };
  type Detail = { server?: string; tool?: string; arguments?: unknown };
  const tracer = mcpxTracer();
  const hop = options.hop ?? 'gateway';
  /**
   * One inbound request as a SERVER span, a child of the trace context its `_meta` carries
   * (the caller's span): the upstream requests it makes are the span's children.
   */
  const traced = <T>(ctx: ServerContext, params: unknown, work: () => Promise<T>): Promise<T> => {
    // Nothing records a span and nothing carries an inbound context on: no span at all.
    if (tracingInert(tracer)) return work();
    const { method, id, _meta } = ctx.mcpReq;
    const attributes: Attributes = { ...mcpRequestAttributes(method, params, id), [ATTR_MCPX_HOP]: hop };
    const sessionId = (ctx as { sessionId?: unknown }).sessionId;
    if (typeof sessionId === 'string') attributes[ATTR_MCP_SESSION_ID] = sessionId;
    const version = server.getNegotiatedProtocolVersion?.();
    if (version) attributes[ATTR_MCP_PROTOCOL_VERSION] = version;
    return inSpan(
      tracer,
      mcpSpanName(method, params),
      // A request that carries no trace context starts a trace of its own (not one under the process's).
      { kind: SpanKind.SERVER, attributes, parent: contextFromMeta(_meta, ROOT_CONTEXT) },
      async (span) => {
        const result = await work();
        if ((result as { isError?: unknown } | undefined)?.isError === true)
          span.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
        return result;
      },
    );
  };
  const timed = async <T>(
    ctx: ServerContext,
    params: unknown,
    method: string,
    detail: Detail | (() => Detail),
    run: () => Promise<T>,
    caller = client,
  ): Promise<T> => {
    const work = () => traced(ctx, params, run);
    const started = performance.now();
    let outcome: RequestEvent['outcome'] = 'error';
    let errorType: string | undefined;
    try {
      const result = await work();
      outcome = (result as { isError?: boolean }).isError ? 'tool-error' : 'ok';
      if (outcome === 'tool-error') errorType = TOOL_ERROR;
      return result;
    } catch (error) {
      errorType = errorTypeOf(error);
      throw error;
    } finally {
      options.onRequest?.({
        client: caller,
        method,
        ...(typeof detail === 'function' ? detail() : detail),
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        outcome,
        ...(errorType === undefined ? {} : { errorType }),
      });
    }
  };
  const skills = gatewaySkills(core);
  const declared = (capabilities.extensions ?? {}) as Record<string, unknown>;
  const passthrough =
    declared[SKILLS_EXTENSION] && capabilities.resources ? skillPassthrough(core) : undefined;
  const routeOf = (publicName: string) => {
    const target = core.namespace.parseUri(publicName);
    return target?.server;
  };

  /**
   * One `tools/call`, as the SDK server's handler runs it; the fast paths (`fast-path.ts`) run
   * this same function for the requests they take off the wire before the SDK server.
   */
  const callTool: SessionToolCall = (params, ctx, fast = {}) => {
    const { name, arguments: args = {} } = params;
    const caller = fast.client ?? client;
    // Where the call went, as callTool found it: a server that crashed in the call (or was still
    // starting when it came) is not among the servers up at its end.
    let routed: { readonly server: string; readonly name: string } | undefined;
    // Told once the call is over: a call for a server still starting waits for it in callTool.
    return timed(
      ctx,
      params,
      'tools/call',
      () => {
        const route = routed ?? core.knownTool(name);
        return {
          ...(route ? { server: route.server, tool: route.name } : { tool: name }),
          arguments: args,
        };
      },
      () =>
        asking(
          ctx,
          name,
          args,
          (c) =>
            skills.has(name)
              ? skills.call(name, args, c)
              : skillsOnly
                ? Promise.reject(new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`))
                : core.callTool(name, args, {
                    ...c,
                    ...(fast.relay ? { relay: true } : {}),
                    onRoute: (route) => {
                      routed = route;
                    },
                  }),
          caller,
        ),
      caller,
    );
  };

  if (capabilities.tools) {
    server.setRequestHandler('tools/list', async (request, ctx) =>
      timed(ctx, request.params, 'tools/list', {}, async () => {
        // A client that shows no Apps has no App to call an app-only tool; its model must not see
        // one. The daemon's callers are mcpx's own commands, which get every tool, as directly.
        const declared = isModernRequest(ctx) ? declaredCapabilities(ctx) : server.getClientCapabilities();
        const upstream = await core.tools({ apps: hop === 'daemon' || declaresApps(declared) });
        // Skills only: listed all the same, so that the list waits for the servers as any list does.
        const served = skillsOnly ? NO_TOOLS : upstream;
        // The upstreams' skills as the gateway's own pair, for a client without the extension (one
        // with it reads them through `skills/list`; the daemon's callers are mcpx's own commands).
        const ownPair = hop !== 'daemon' && !(passthrough && speaksSkills(declared));
        const tools = ownPair ? await skills.withSkills(served) : served;
        const { items, nextCursor } = pages.page('tools', tools, request.params?.cursor);
        return { tools: items, ...(nextCursor ? { nextCursor } : {}) };
      }),
    );
    server.setRequestHandler('tools/call', { params: VALIDATED_BY_THE_SERVER }, (params, ctx) =>
      callTool(params, ctx),
    );
    toolCalls.set(server, callTool);
  }
  if (capabilities.prompts) {
    server.setRequestHandler('prompts/list', async (request, ctx) =>
      timed(ctx, request.params, 'prompts/list', {}, async () => {
        const { items, nextCursor } = pages.page('prompts', await core.prompts(), request.params?.cursor);
        return { prompts: items, ...(nextCursor ? { nextCursor } : {}) };
      }),
    );
    server.setRequestHandler('prompts/get', async (request, ctx) =>
      timed(ctx, request.params, 'prompts/get', { tool: request.params.name }, () =>
        asking(ctx, request.params.name, request.params.arguments ?? {}, (c) =>
          core.getPrompt(request.params.name, request.params.arguments ?? {}, c),
        ),
      ),
    );
  }
  if (capabilities.resources) {
    server.setRequestHandler('resources/list', async (request, ctx) =>
      timed(ctx, request.params, 'resources/list', {}, async () => {
        const { items, nextCursor } = pages.page('resources', await core.resources(), request.params?.cursor);
        return { resources: items, ...(nextCursor ? { nextCursor } : {}) };
      }),
    );
    server.setRequestHandler('resources/templates/list', async (request, ctx) =>
      timed(ctx, request.params, 'resources/templates/list', {}, async () => {
        const { items, nextCursor } = pages.page(
          'resourceTemplates',
          await core.resourceTemplates(),
          request.params?.cursor,
        );
        return { resourceTemplates: items, ...(nextCursor ? { nextCursor } : {}) };
      }),
    );
    server.setRequestHandler('resources/read', async (request, ctx) => {
      const { uri } = request.params;
      if (passthrough?.owns(uri))
        return timed(ctx, request.params, 'resources/read', {}, () =>
          asking(ctx, uri, {}, (c) => passthrough.read(uri, c)),
        );
      const upstream = routeOf(request.params.uri);
      return timed(ctx, request.params, 'resources/read', upstream ? { server: upstream } : {}, () =>
        asking(ctx, request.params.uri, {}, (c) => core.readResource(request.params.uri, c)),
      );
    });
    if (capabilities.resources.subscribe) {
      // 2025-11-25 sessions keep their subscriptions here (ended with the session); on
      // 2026-07-28 the SDK's subscriptions/listen serves what the session's notifier publishes.
      const subscriptions = new Map<string, Promise<ResourceSubscription>>();
      server.setRequestHandler('resources/subscribe', async (request) => {
        const uri = request.params.uri;
        if (!subscriptions.has(uri)) {
          const pending = (options.subscribe ?? core.subscribe.bind(core))(uri, (changed) => {
            void server.sendResourceUpdated({ uri: changed }).catch(() => {});
          });
          subscriptions.set(uri, pending);
          pending.catch(() => subscriptions.delete(uri));
        }
        await subscriptions.get(uri);
        return {};
      });
      server.setRequestHandler('resources/unsubscribe', async (request) => {
        const pending = subscriptions.get(request.params.uri);
        subscriptions.delete(request.params.uri);
        await (await pending?.catch(() => undefined))?.unsubscribe();
        return {};
      });
      const previous = server.onclose;
      server.onclose = () => {
        for (const pending of subscriptions.values())
          void pending.then((s) => s.unsubscribe()).catch(() => {});
        subscriptions.clear();
        previous?.();
      };
    }
  }
  if (passthrough) {
    server.setRequestHandler('skills/list', { params: ANY_PARAMS }, (params, ctx) =>
      timed(ctx, params, 'skills/list', {}, () => passthrough.list()),
    );
    server.setRequestHandler('skills/get', { params: URI_PARAMS }, (params, ctx) =>
      timed(ctx, params, 'skills/get', {}, () => passthrough.get(params.uri)),
    );
    server.setRequestHandler('resources/directory/read', { params: URI_PARAMS }, (params, ctx) =>
      timed(ctx, params, 'resources/directory/read', {}, () => passthrough.readDirectory(params.uri)),
    );
  }
  if (capabilities.completions) {
    server.setRequestHandler('completion/complete', async (request, ctx) =>
      timed(ctx, request.params, 'completion/complete', {}, () =>
        core.complete(
          request.params.ref.type === 'ref/prompt'
            ? { type: 'ref/prompt', name: request.params.ref.name }
            : { type: 'ref/resource', uri: request.params.ref.uri },
          request.params.argument,
        ),
      ),
    );
  }
  return server;
}
