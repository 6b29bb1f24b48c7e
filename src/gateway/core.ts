/**
 * The gateway's core: the served servers as one catalogue (listing and namespacing, the policy's
 * refusals, reloads) and each client's request routed to its upstream. The questions an upstream
 * asks back are `client-questions.ts`'s, the consent a call needs `call-consent.ts`'s, and what a
 * client's request carries `downstream-call.ts`'s.
 */
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  Root,
  Tool,
} from '@modelcontextprotocol/server';
import {
  isInputRequiredResult,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { AuditedCall, AuditTrail } from '../audit/index.js';
import type { ClientFeatures } from '../client/features.js';
import {
  isAppOnly,
  type ListKind,
  type RequestControl,
  type ResourceSubscription,
  type ServerConnection,
  type ServerLogEvent,
} from '../client/index.js';
import type { ServerConfig } from '../config/index.js';
import type { MetricsRecorder } from '../metrics/index.js';
import type { PermissionGuard } from '../permissions/index.js';
import type { ServerRegistry } from '../registry/index.js';
import {
  type Catalogue,
  type CatalogueNaming,
  createCatalogue,
  PROMPT_ACTION,
  RESOURCE_ACTIONS,
} from '../tools/index.js';
import { namespacedResult, namespacedTool } from './app-links.js';
import { Arrivals, type SettleOptions } from './arrivals.js';
import { consentBeforeCall } from './call-consent.js';
import { Callers } from './callers.js';
import type { CatalogueMemory } from './catalogue-memory.js';
import { questionsFor, relayRounds } from './client-questions.js';
import { ConsentMemory, type Consents } from './consent.js';
import {
  currentCtx,
  type DownstreamCall,
  requestControlOf,
  signalOf,
  type ToolRoute,
  toolCallOptions,
} from './downstream-call.js';
import { envelopeValue, InputRounds, isModernRequest } from './input-rounds.js';
import { type Namespace, namespacedNames, type Qualified, transparentNames } from './namespace.js';
import { type ReloadResult, reloadPlan } from './reload-plan.js';
import { timeUpstream } from './request-metrics.js';
import { StandIns } from './stand-ins.js';
import { errorTypeOf, TOOL_ERROR, toClientError } from './upstream-error.js';

export type { DownstreamCall, ToolRoute } from './downstream-call.js';
export type { ReloadResult } from './reload-plan.js';

/** What a gateway core serves, and how. */
export interface GatewayCoreOptions {
  /** The registry of the servers to serve (already only enabled, trusted ones). */
  readonly registry: ServerRegistry;
  /** Those servers' configs, in the order their items are listed. */
  readonly servers: readonly ServerConfig[];
  /** `--server NAME`: re-serve this one server unchanged (no prefixes). */
  readonly transparent?: string;
  /**
   * The permission guard every call passes: the host's (`Host.guard()`), whose
   * approver is the gateway's (`gatewayApprover`: nobody to ask, a refusal that says how to allow).
   */
  readonly guard: PermissionGuard;
  /**
   * Tell clients mcpx's own failures (a crash, a timeout, a sign-in needed) as
   * data too (`errors/carried.ts`): the keep-alive daemon's, whose client is
   * mcpx itself. A gateway's clients get the text only (the data names config files).
   */
  readonly carryErrors?: boolean;
  /**
   * The key sealing 2026-07-28 request states (`--state-key-file`), shared by
   * every instance behind one load balancer; without it, a random one per process.
   */
  readonly stateKey?: Uint8Array;
  /**
   * How long a client's list request waits for servers still starting (`mcpx serve
   * --list-wait`). It is then answered with the servers up, and each one left out is
   * announced with a list change once it is up. Without it a list waits for every
   * server: the daemon's client is mcpx itself, which wants the whole catalogue.
   */
  readonly listWaitMs?: number;
  /**
   * Where each served server's tool list is remembered between runs (`openCatalogueMemory`).
   * With `listWaitMs`, a server still starting is listed at once with what it listed last
   * time rather than waited for, and its live list replaces that once it is up (announced
   * when the two differ). Without it nothing is remembered or recalled.
   */
  readonly catalogues?: CatalogueMemory;
  /**
   * Each client's tool call is recorded here (`mcpx serve`: the host's trail). The daemon's
   * gateways record nothing: their callers are mcpx processes that record their own calls.
   */
  readonly audit?: AuditTrail;
  /** Where each upstream request's duration and outcome are recorded (`mcp.client.operation.duration`). */
  readonly metrics?: MetricsRecorder;
  /** Where sessionless clients' consent is kept: the fleet's store (`--state`); default this process's memory. */
  readonly consents?: Consents;
}

/** A log message for clients (`notifications/message` params). */
export interface LogMessage {
  readonly level: ServerLogEvent['level'];
  readonly logger?: string;
  readonly data: unknown;
}

/** One item of a merged list and the server it came from. */
interface Listed<T> {
  readonly server: string;
  readonly item: T;
}

/** The merged tool catalogue, and the servers in it listed from what they listed last time. */
interface ToolCatalogue {
  readonly catalogue: Catalogue<Tool>;
  readonly tools: Tool[];
  /** `tools` without those only an MCP App may call, made when first asked for. */
  forModels?: Tool[];
  readonly remembered: ReadonlySet<string>;
}

const routeOf = (entry: { readonly server: string; readonly item: Tool }): ToolRoute => ({
  server: entry.server,
  name: entry.item.name,
  tool: entry.item,
});

/**
 * The gateway's long-lived core: the served servers as one catalogue, each
 * request routed to its upstream. It holds no client state: every downstream
 * session (`session-server.ts`) asks it, so one core serves any number of
 * clients, and later the keep-alive daemon.
 */
export class GatewayCore {
  readonly registry: ServerRegistry;
  readonly namespace: Namespace;
  /** The permission guard every call passes; nobody can be asked behind a gateway. */
  readonly guard: PermissionGuard;
  readonly transparent: string | undefined;
  readonly #servers: Map<string, ServerConfig>;
  readonly #carryErrors: boolean;
  readonly #audit: AuditTrail | undefined;
  readonly #metrics: MetricsRecorder | undefined;
  readonly #callers = new Callers<DownstreamCall>();
  /** 2026-07-28 calls waiting for their client to answer an upstream's questions. */
  readonly rounds: InputRounds;
  /** The consent of 2026-07-28 clients over HTTP, which have no session to keep it in. */
  readonly consents: Consents;
  readonly #listeners = new Set<(kind: ListKind) => void>();
  readonly #logListeners = new Map<(message: LogMessage) => void, () => boolean>();
  /**
   * The catalogue of the servers up when it was built, and of those listed from what they listed
   * last time (`remembered`); dropped when one comes, goes or re-lists.
   */
  #toolCache: ToolCatalogue | undefined;
  readonly #arrivals: Arrivals;
  readonly #listWait: SettleOptions;
  /** The remembered tool lists, standing in for servers still starting (see `stand-ins.ts`). */
  readonly #standIns: StandIns | undefined;
  /** Whether they stand in (with a list wait), or are only remembered. */
  readonly #standingIn: boolean;
  /** The recalls of those lists so far, which a `tools/list` waits for. */
  #recalled: Promise<void> = Promise.resolve();
  readonly #unsubscribe: () => void;

  constructor(options: GatewayCoreOptions) {
    this.registry = options.registry;
    this.#carryErrors = options.carryErrors === true;
    this.#metrics = options.metrics;
    this.transparent = options.transparent;
    this.#servers = new Map(options.servers.map((s) => [s.name, s]));
    this.namespace = options.transparent
      ? transparentNames(options.transparent)
      : namespacedNames(() => this.servers);
    this.guard = options.guard;
    this.#audit = options.audit;
    this.rounds = new InputRounds(undefined, options.stateKey);
    this.consents = options.consents ?? new ConsentMemory();
    this.#listWait = options.listWaitMs === undefined ? {} : { waitMs: options.listWaitMs };
    const announce = (kind: ListKind) => {
      for (const listener of this.#listeners) listener(kind);
    };
    this.#arrivals = new Arrivals(this.registry, announce);
    this.#standIns =
      options.catalogues &&
      new StandIns({
        memory: options.catalogues,
        registry: this.registry,
        configOf: (server) => this.#servers.get(server),
        isUp: (server) => this.#arrivals.isUp(server),
        announce: () => announce('tools'),
      });
    // Only where a list would otherwise be answered without the servers still starting.
    this.#standingIn =
      this.#standIns !== undefined && options.listWaitMs !== undefined && !options.transparent;
    if (this.#standingIn) this.#recalled = this.#recall(options.servers);
    this.#unsubscribe = this.registry.on((event) => {
      this.#arrivals.heard(event);
      // A catalogue or a server coming or going changes the merged names: list afresh on next
      // use. A server turning busy and ready again around each call does not.
      const busyOrReady = (state: string) => state === 'busy' || state === 'ready';
      if (event.type !== 'state' || !busyOrReady(event.state) || !busyOrReady(event.previous))
        this.#toolCache = undefined;
      const heldBack = this.#standIns?.heard(event) === true;
      if (event.type !== 'catalog' || heldBack) return;
      announce(event.kind);
    });
  }

  /**
   * Stop listening to the registry. A core that is replaced while its registry lives on
   * (the daemon restarting a changed entry) must let go, or each restart leaves one listener.
   */
  dispose(): void {
    this.#unsubscribe();
  }

  /**
   * Resolves once the remembered tool lists of the served servers are read (`catalogues`):
   * a gateway starts its servers after, so each one's stands in from the start.
   */
  get recalled(): Promise<void> {
    return this.#recalled;
  }

  /** Served server names. */
  get servers(): string[] {
    return [...this.#servers.keys()];
  }

  /** Where clients' calls are recorded (the skill pair's and skill reads' too); none in the daemon. */
  get audit(): AuditTrail | undefined {
    return this.#audit;
  }

  /** Calls in flight across every client (SIGTERM waits for them). */
  get inFlight(): number {
    return this.#callers.size;
  }

  /** Be told when an upstream list changed. Returns an unsubscribe function. */
  onListChanged(listener: (kind: ListKind) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tell every client its tool list changed: the gateway's own skill pair did (`skill-tools.ts`). */
  announceTools(): void {
    for (const listener of this.#listeners) listener('tools');
  }

  /**
   * Serve a new set of servers (a reloaded config): servers no longer in it are
   * stopped, new ones added and connected, and those whose entry changed
   * restarted; the others, and the calls running on them, are left alone.
   */
  async reload(servers: readonly ServerConfig[]): Promise<ReloadResult> {
    if (this.transparent) return { added: [], removed: [], restarted: [] };
    const next = new Map(servers.map((s) => [s.name, s]));
    const { added, removed, restarted } = reloadPlan(this.#servers, next);
    // An added name may still sit in the registry unserved (left out by --servers, or failed).
    for (const name of [...removed, ...restarted, ...added]) {
      await this.registry.disconnect(name).catch(() => {});
      this.#servers.delete(name);
      this.#standIns?.drop(name);
    }
    for (const name of [...added, ...restarted]) {
      const config = next.get(name) as ServerConfig;
      this.registry.add(config);
      this.#servers.set(name, config);
    }
    // Config order, as listed.
    const ordered = [...next.keys()].map((name) => this.#servers.get(name) as ServerConfig);
    this.#servers.clear();
    for (const config of ordered) this.#servers.set(config.name, config);
    this.#toolCache = undefined;
    const starting = [...added, ...restarted];
    if (this.#standingIn) {
      const recalled = this.#recall(starting.map((name) => next.get(name) as ServerConfig));
      this.#recalled = Promise.all([this.#recalled, recalled]).then(() => {});
      await recalled;
    }
    await Promise.all(starting.map((name) => this.registry.connect(name).catch(() => {})));
    if (added.length || removed.length || restarted.length)
      for (const kind of ['tools', 'resources', 'prompts'] as const)
        for (const listener of this.#listeners) listener(kind);
    return { added, removed, restarted };
  }

  /** Recall the remembered lists of `servers`; the tool catalogue is built afresh with them. */
  async #recall(servers: readonly ServerConfig[]): Promise<void> {
    await this.#standIns?.recall(servers);
    this.#toolCache = undefined;
  }

  /**
   * Be told of upstream log messages no single client's call can own. `audience`: whether the
   * listener has anyone to tell now (default: always); while none has, a call whose own client
   * asked for no logs asks its upstream for none. Returns an unsubscribe function.
   */
  onLog(listener: (message: LogMessage) => void, audience: () => boolean = () => true): () => void {
    this.#logListeners.set(listener, audience);
    return () => this.#logListeners.delete(listener);
  }

  /**
   * Whether an upstream's log messages during this call could reach anyone: its own client
   * (a 2025 session hears every level it did not turn down; a 2026-07-28 request only the level
   * its envelope names), or a listener's sessions. A modern upstream with nothing to log for
   * the call then answers one JSON body rather than an event stream.
   */
  #logsWanted(call: DownstreamCall): boolean {
    if (!isModernRequest(call.ctx) || envelopeValue(call.ctx, LOG_LEVEL_META_KEY) !== undefined) return true;
    for (const audience of this.#logListeners.values()) if (audience()) return true;
    return false;
  }

  /**
   * An upstream's log message: to the client whose call is in flight there (on
   * that request, so it reaches a 2026-07-28 client too), else to every client
   * session. The logger names the server unless the gateway is transparent.
   */
  serverLog(event: ServerLogEvent): void {
    const logger = this.transparent
      ? event.logger
      : event.logger
        ? `${event.server}/${event.logger}`
        : event.server;
    const call = this.#callers.soleCaller(event.server);
    if (call) {
      void currentCtx(call)
        .mcpReq.log(event.level, event.data, logger)
        .catch(() => {});
      return;
    }
    const message: LogMessage = { level: event.level, data: event.data, ...(logger ? { logger } : {}) };
    for (const listener of this.#logListeners.keys()) listener(message);
  }

  /**
   * Sampling, elicitation and roots for one upstream server that asks with
   * server→client requests (2025-11-25), answered by the client whose call is in
   * flight there (`client-questions.ts#questionsFor`). Roots asked outside such a call
   * are `outsideCalls.roots` (the keep-alive daemon's: what every caller of the
   * instance offered), else none.
   */
  featuresFor(server: string, outsideCalls: { readonly roots?: () => readonly Root[] } = {}): ClientFeatures {
    // Apps are passed on (`app-links.ts`): the server may offer them.
    return { ...questionsFor(this.#callers, server, outsideCalls), apps: true };
  }

  /**
   * Every served tool, under its public name, for a client's `tools/list`: a server still
   * starting is listed with the tools it listed last time when they are remembered
   * (`catalogues`), else waited for as the list wait allows, then left out (the registry's
   * catalogue event announces each as it comes). Kept until the registry reports a
   * change (a state or a catalogue), so a call does not rename every tool first. A client that
   * shows no MCP Apps (`apps: false`) is not given the tools only an App may call.
   */
  async tools({ apps = true }: { readonly apps?: boolean } = {}): Promise<Tool[]> {
    await this.#toolsSettled();
    await this.#recalled;
    const standIns = this.#standIns;
    const waited = standIns ? this.servers.filter((server) => !standIns.has(server)) : this.servers;
    await this.#arrivals.settle(waited, this.#listWait);
    const catalogue = this.#catalogue();
    if (apps) return catalogue.tools;
    // Kept with the catalogue: one list object per catalogue, which the paginator pages by.
    catalogue.forModels ??= catalogue.tools.filter((tool) => !isAppOnly(tool));
    return catalogue.forModels;
  }

  /** `knownTool`, when no served server is re-listing its tools (what `toolRoute` would wait for). */
  #knownNow(publicName: string): ToolRoute | undefined {
    for (const name of this.#servers.keys()) if (this.registry.toolsRefreshing(name)) return undefined;
    return this.knownTool(publicName);
  }

  /**
   * Where a public tool name goes, among the servers up now (no waiting), if it is known there.
   * A remembered tool of a server still starting is not: its call waits for the server
   * (`toolRoute`), and is decided on the definition the server gives now.
   */
  knownTool(publicName: string): ToolRoute | undefined {
    const { catalogue, remembered } = this.#catalogue();
    const entry = catalogue.resolve(publicName);
    return entry && !remembered.has(entry.server) ? routeOf(entry) : undefined;
  }

  /**
   * Where a public tool name goes. A name not among the servers up now waits for the
   * servers it may belong to that are still starting (until `signal`, the call's own
   * end); a server that failed is then reported in words, anything else is unknown.
   */
  async toolRoute(publicName: string, signal?: AbortSignal): Promise<ToolRoute> {
    await this.#toolsSettled();
    const known = this.knownTool(publicName);
    if (known) return known;
    const candidates = this.namespace.candidates(publicName);
    await this.#arrivals.settle(candidates, signal ? { signal } : {});
    await this.#toolsSettled();
    const route = this.knownTool(publicName);
    if (route) return route;
    throw this.#unknown('tool', publicName, candidates);
  }

  /**
   * A re-listing announced by a server but not done yet ends with a catalogue event that
   * drops the cache: wait for it, so a list change seen before this request is in the answer.
   * Asked twice per call (the access log's route, then the call): no promise per server
   * unless one is re-listing.
   */
  async #toolsSettled(): Promise<void> {
    const refreshing: Promise<void>[] = [];
    for (const name of this.#servers.keys()) {
      const refresh = this.registry.toolsRefreshing(name);
      if (refresh) refreshing.push(refresh);
    }
    if (refreshing.length > 0) await Promise.all(refreshing);
  }

  /** Public names: `<server>__<name>`, or the upstream's own behind `--server NAME`. */
  get #naming(): CatalogueNaming {
    return this.transparent ? 'transparent' : 'namespaced';
  }

  #catalogue(): ToolCatalogue {
    if (this.#toolCache) return this.#toolCache;
    const listed: Listed<Tool>[] = [];
    const remembered = new Set<string>();
    for (const server of this.#servers.keys()) {
      let tools: readonly Tool[] | undefined;
      if (this.#arrivals.isUp(server)) tools = this.registry.status(server).tools;
      else {
        tools = this.#standIns?.toolsOf(server);
        if (tools) remembered.add(server);
      }
      for (const item of tools ?? []) listed.push({ server, item });
    }
    const catalogue = createCatalogue(listed, {
      naming: this.#naming,
      offers: (server, tool) => this.guard.offers(server, tool),
    });
    const tools = catalogue.entries.map((e) => ({
      ...(this.transparent ? e.item : namespacedTool(e.item, e.server, this.namespace)),
      name: e.name,
    }));
    this.#toolCache = { catalogue, tools, remembered };
    return this.#toolCache;
  }

  /**
   * Why a public name that resolves to nothing is the session's profile's doing, in the
   * guard's words ("not in profile P"), so a client is not told the tool does not exist:
   * a tool the profile hides on a served server, or any tool of a server it leaves out.
   */
  #outOfProfile(publicName: string): string | undefined {
    const { guard } = this;
    if (guard.profile === undefined) return undefined;
    const listed: Listed<Tool>[] = [];
    for (const server of this.#servers.keys()) {
      if (!this.#arrivals.isUp(server)) continue;
      for (const item of this.registry.status(server).tools as Tool[]) listed.push({ server, item });
    }
    const hidden = createCatalogue(listed, { naming: this.#naming }).resolve(publicName);
    if (hidden && guard.outOfProfile(hidden.server, hidden.item.name)) return guard.refusal(routeOf(hidden));
    if (this.transparent) return undefined;
    const split = publicName.indexOf('__');
    const server = split > 0 ? publicName.slice(0, split) : undefined;
    if (server === undefined || this.#servers.has(server) || !guard.outOfProfile(server)) return undefined;
    const tool = { name: publicName.slice(split + 2), inputSchema: { type: 'object' as const } };
    return guard.refusal({ server, tool });
  }

  /**
   * A name found nowhere once its servers settled: a server of it that failed to start
   * says why (the client's model reads it), else the name is unknown.
   */
  #unknown(what: 'tool' | 'prompt', publicName: string, candidates: readonly string[]): ProtocolError {
    if (candidates.length === 1 || this.transparent) {
      const status = this.registry.status(candidates[0] as string);
      if (status.state === 'error' && status.error) return toClientError(status.error, this.#carryErrors);
    }
    return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown ${what}: ${publicName}`);
  }

  /**
   * Call a tool by its public name: the policy first (a call that would need a
   * person is refused with an error result saying how to allow it), then the
   * upstream, with the client's progress token and cancellation passed along.
   */
  async callTool(
    publicName: string,
    args: Record<string, unknown>,
    call: DownstreamCall,
  ): Promise<CallToolResult> {
    const audited = this.#audit?.begin({
      who: {
        client: 'gateway',
        session: call.client,
        ...(call.clientInfo ? { clientInfo: call.clientInfo } : {}),
      },
      tool: publicName,
      args,
    });
    try {
      const result = await this.#callTool(publicName, args, call, audited);
      // A round of a 2026-07-28 client's call: the call goes on in its next request, recorded then.
      if (isInputRequiredResult(result)) audited?.dropped();
      else audited?.returned(result);
      return result;
    } catch (error) {
      audited?.failed(error);
      throw error;
    }
  }

  async #callTool(
    publicName: string,
    args: Record<string, unknown>,
    call: DownstreamCall,
    audited: AuditedCall | undefined,
  ): Promise<CallToolResult> {
    let route: ToolRoute;
    try {
      // A tool known now is routed without a turn of waiting (`toolRoute` waits for re-listings).
      route = this.#knownNow(publicName) ?? (await this.toolRoute(publicName, signalOf(call)));
    } catch (error) {
      const refused = this.#outOfProfile(publicName);
      if (refused === undefined) throw error;
      audited?.decided({ result: 'denied', by: 'rule', reason: refused });
      return { content: [{ type: 'text', text: refused }], isError: true };
    }
    call.onRoute?.(route);
    audited?.routed(route.server, route.name);
    // What the policy lets run unasked goes on at once; anything else is settled by consentBeforeCall.
    if (this.guard.refusal(route) === undefined) {
      const settled = this.guard.settled(route);
      if (settled) audited?.decided(settled);
    } else {
      const unconsented = await consentBeforeCall(this, route, args, call, (d) => audited?.decided(d));
      if (unconsented) return unconsented;
    }
    return this.callAllowed(route, args, call);
  }

  /**
   * A call routed and let run by the policy, from there on as `callTool` runs it (the audit
   * aside): its client counted as the server's caller, the upstream request timed, input
   * rounds relayed, failures in the client's terms. The daemon runs its callers' plain calls
   * on a held server from here (`daemon/held-calls.ts`).
   */
  async callAllowed(
    route: ToolRoute,
    args: Record<string, unknown>,
    call: DownstreamCall,
  ): Promise<CallToolResult> {
    const token = call.ctx.mcpReq._meta?.progressToken;
    const end = this.#callers.begin(route.server, call.client, call);
    const sent = timeUpstream(this.#metrics, 'tools/call', route.server, route.name);
    try {
      const result = await relayRounds<CallToolResult>(call, (inputRound) =>
        this.registry.callTool(
          route.server,
          route.name,
          args,
          toolCallOptions(call, inputRound, this.#logsWanted(call), token),
        ),
      );
      sent(result.isError ? TOOL_ERROR : undefined);
      return this.transparent ? result : namespacedResult(result, route.server, this.namespace);
    } catch (error) {
      sent(errorTypeOf(error));
      throw toClientError(error, this.#carryErrors);
    } finally {
      end();
    }
  }

  /** Every served prompt, for a client's `prompts/list` (servers still starting: as `tools()`). */
  async prompts(): Promise<Prompt[]> {
    const catalogue = await this.#prompts(this.servers, this.#listWait);
    return catalogue.entries.map((e) => ({ ...e.item, name: e.name }));
  }

  /** Where a public prompt name goes, waiting for servers still starting as `toolRoute()` does. */
  async #promptRoute(publicName: string, signal?: AbortSignal): Promise<Qualified> {
    const known = (await this.#prompts(this.servers, { waitMs: 0 })).resolve(publicName);
    if (known) return { server: known.server, name: known.item.name };
    const candidates = this.namespace.candidates(publicName);
    const route = (await this.#prompts(candidates, signal ? { signal } : {})).resolve(publicName);
    if (route) return { server: route.server, name: route.item.name };
    for (const server of candidates) this.#refuseHidden(server, PROMPT_ACTION);
    throw this.#unknown('prompt', publicName, candidates);
  }

  async #prompts(servers: readonly string[], wait: SettleOptions): Promise<Catalogue<Prompt>> {
    const offered = servers.filter((server) => this.#offers(server, PROMPT_ACTION));
    const listed = await this.#gather('prompts', offered, wait, (name) =>
      this.#use(name, (c) => c.listPrompts()),
    );
    return createCatalogue(listed, { naming: this.#naming });
  }

  /**
   * One request to an upstream for a client's call (not `tools/call`, which goes through the
   * registry): routed questions, input rounds, and upstream failures in the client's terms.
   */
  async #onBehalf<T>(
    method: string,
    server: string,
    call: DownstreamCall,
    send: (connection: ServerConnection, control: RequestControl) => Promise<unknown>,
  ): Promise<T> {
    const end = this.#callers.begin(server, call.client, call);
    const sent = timeUpstream(this.#metrics, method, server);
    try {
      const result = await relayRounds<T>(call, (inputRound) =>
        this.#use(server, (c) => send(c, requestControlOf(call, inputRound, this.#logsWanted(call)))),
      );
      sent();
      return result;
    } catch (error) {
      sent(errorTypeOf(error));
      throw toClientError(error, this.#carryErrors);
    } finally {
      end();
    }
  }

  async getPrompt(
    publicName: string,
    args: Record<string, string>,
    call: DownstreamCall,
  ): Promise<GetPromptResult> {
    const route = await this.#promptRoute(publicName, signalOf(call));
    return this.#onBehalf<GetPromptResult>('prompts/get', route.server, call, (c, control) =>
      c.getPrompt(route.name, args, control),
    );
  }

  async resources(): Promise<Resource[]> {
    const listed = await this.#gather('resources', this.#withResources(), this.#listWait, (name) =>
      this.#use(name, (c) => c.listResources()),
    );
    return listed.map((l) => ({ ...l.item, uri: this.namespace.uri(l.server, l.item.uri) }));
  }

  async resourceTemplates(): Promise<ResourceTemplateType[]> {
    const listed = await this.#gather('resources', this.#withResources(), this.#listWait, (name) =>
      this.#use(name, (c) => c.listResourceTemplates()),
    );
    return listed.map((l) => ({ ...l.item, uriTemplate: this.namespace.uri(l.server, l.item.uriTemplate) }));
  }

  async readResource(uri: string, call: DownstreamCall): Promise<ReadResourceResult> {
    const target = this.#resourceTarget(uri);
    const result = await this.#onBehalf<ReadResourceResult>(
      'resources/read',
      target.server,
      call,
      (c, control) => c.readResource(target.name, control),
    );
    if (isInputRequiredResult(result)) return result as never;
    return {
      ...result,
      contents: result.contents.map((content) => ({
        ...content,
        uri: this.namespace.uri(target.server, content.uri),
      })),
    } as ReadResourceResult;
  }

  /** Subscribe to a resource by its public URI; `onUpdated` gets public URIs. */
  subscribe(uri: string, onUpdated: (uri: string) => void): Promise<ResourceSubscription> {
    const target = this.#resourceTarget(uri);
    return this.#use(target.server, (c) =>
      c.subscribeResource(target.name, (changed) => onUpdated(this.namespace.uri(target.server, changed))),
    );
  }

  async complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
  ): Promise<CompleteResult> {
    if (ref.type === 'ref/prompt') {
      const route = await this.#promptRoute(ref.name);
      return this.#use(route.server, (c) => c.complete({ type: 'ref/prompt', name: route.name }, argument));
    }
    const target = this.#resourceTarget(ref.uri);
    return this.#use(target.server, (c) => c.complete({ type: 'ref/resource', uri: target.name }, argument));
  }

  #resourceTarget(uri: string): Qualified {
    const target = this.namespace.parseUri(uri);
    if (target && this.#offers(target.server, RESOURCE_ACTIONS.read)) return target;
    if (target) this.#refuseHidden(target.server, RESOURCE_ACTIONS.read);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`);
  }

  /** The served servers whose resources clients may list and read. */
  #withResources(): string[] {
    return this.servers.filter((server) => this.#offers(server, RESOURCE_ACTIONS.read));
  }

  /**
   * Whether clients may see and use `server`'s resources or prompts: the policy names them as
   * agents' tools are named (`resources/read`, `prompts/get`: a profile's tool globs,
   * `--exclude-tools`, the entry's allow / deny lists). The daemon's transparent gateway
   * serves its callers, whose own policy decides.
   */
  #offers(server: string, action: Tool): boolean {
    return this.transparent !== undefined || this.guard.offers(server, action.name);
  }

  /** A profile's hidden resources or prompts are refused in its words ("not in profile P"), not as unknown. */
  #refuseHidden(server: string, action: Tool): void {
    if (this.guard.profile === undefined || !this.guard.outOfProfile(server, action.name)) return;
    const refused = this.guard.refusal({ server, tool: action });
    if (refused) throw new ProtocolError(ProtocolErrorCode.InvalidParams, refused);
  }

  /** Run work on one upstream (connecting it first as its policy allows); failures become client errors. */
  async #use<T>(server: string, work: (connection: ServerConnection) => Promise<T>): Promise<T> {
    try {
      return await this.registry.use(server, work);
    } catch (error) {
      throw toClientError(error, this.#carryErrors);
    }
  }

  /**
   * One list from each of `servers` that is up once `wait` is over, in config order. A
   * server still starting is left out and owed the list (announced once it is up); one that
   * cannot be reached is left out too (its state and error are in the registry).
   */
  async #gather<T>(
    kind: ListKind,
    servers: readonly string[],
    wait: SettleOptions,
    list: (server: string) => Promise<readonly T[]>,
  ): Promise<Listed<T>[]> {
    await this.#arrivals.settle(servers, wait);
    const results = await Promise.all(
      servers.map(async (server) => {
        if (!this.#arrivals.isUp(server)) {
          this.#arrivals.owe(kind, server);
          return [];
        }
        try {
          return (await list(server)).map((item) => ({ server, item }));
        } catch {
          return [];
        }
      }),
    );
    return results.flat();
  }
}
