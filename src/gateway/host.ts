import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  ServerContext,
  Tool,
} from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ClientFeatures } from '../client/features.js';
import type { ListKind } from '../client/server-connection.js';
import type { ResourceSubscription, ServerConnection, ServerLogEvent } from '../client/types.js';
import type { ServerConfig } from '../config/types.js';
import type { ServerRegistry } from '../registry/index.js';
import { Callers } from './callers.js';
import { type Namespace, namespacedNames, type Qualified, transparentNames } from './namespace.js';
import { createGatewayPolicy, type GatewayPolicy, type GatewayPolicyOptions } from './tool-policy.js';
import { toClientError } from './upstream-error.js';

export interface GatewayHostOptions {
  /** The registry of the servers to serve (already only enabled, trusted ones). */
  readonly registry: ServerRegistry;
  /** Those servers' configs, in the order their items are listed. */
  readonly servers: readonly ServerConfig[];
  /** `--server NAME`: re-serve this one server unchanged (no prefixes). */
  readonly transparent?: string;
  readonly policy: GatewayPolicyOptions;
}

/** A client's request, as the host needs to know it. */
export interface DownstreamCall {
  /** The client (its session), for routing the server's questions back to it. */
  readonly client: string;
  readonly ctx: ServerContext;
}

/** What a reload changed, by server name. */
export interface ReloadResult {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly restarted: readonly string[];
}

/** Everything of an entry that matters to how it runs (where it was written does not). */
function entryKey(config: ServerConfig): string {
  const { origin: _origin, asWritten: _asWritten, ...rest } = config;
  return JSON.stringify(rest);
}

/** The merged tool list and where each public name goes. */
export interface ToolCatalog {
  readonly tools: Tool[];
  readonly routes: Map<string, Qualified & { tool: Tool }>;
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

/**
 * The gateway's long-lived core: the served servers as one catalogue, each
 * request routed to its upstream. It holds no client state: every downstream
 * session (`session-server.ts`) asks it, so one host serves any number of
 * clients, and later the keep-alive daemon.
 */
export class GatewayHost {
  readonly registry: ServerRegistry;
  readonly namespace: Namespace;
  readonly policy: GatewayPolicy;
  readonly transparent: string | undefined;
  readonly #servers: Map<string, ServerConfig>;
  readonly #callers = new Callers<DownstreamCall>();
  readonly #listeners = new Set<(kind: ListKind) => void>();
  readonly #logListeners = new Set<(message: LogMessage) => void>();
  #toolCache: Promise<ToolCatalog> | undefined;
  readonly #unsubscribe: () => void;

  constructor(options: GatewayHostOptions) {
    this.registry = options.registry;
    this.transparent = options.transparent;
    this.#servers = new Map(options.servers.map((s) => [s.name, s]));
    this.namespace = options.transparent
      ? transparentNames(options.transparent)
      : namespacedNames(() => this.servers);
    this.policy = createGatewayPolicy(options.policy);
    this.#unsubscribe = this.registry.on((event) => {
      // A catalogue or a server coming or going changes the merged names: list afresh on next
      // use. A server turning busy and ready again around each call does not.
      const busyOrReady = (state: string) => state === 'busy' || state === 'ready';
      if (event.type !== 'state' || !busyOrReady(event.state) || !busyOrReady(event.previous))
        this.#toolCache = undefined;
      if (event.type !== 'catalog') return;
      for (const listener of this.#listeners) listener(event.kind);
    });
  }

  /**
   * Stop listening to the registry. A host that is replaced while its registry lives on
   * (the daemon restarting a changed entry) must let go, or each restart leaves one listener.
   */
  dispose(): void {
    this.#unsubscribe();
  }

  /** Served server names. */
  get servers(): string[] {
    return [...this.#servers.keys()];
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

  /**
   * Serve a new set of servers (a reloaded config): servers no longer in it are
   * stopped, new ones added and connected, and those whose entry changed
   * restarted; the others, and the calls running on them, are left alone.
   */
  async reload(servers: readonly ServerConfig[]): Promise<ReloadResult> {
    if (this.transparent) return { added: [], removed: [], restarted: [] };
    const next = new Map(servers.map((s) => [s.name, s]));
    const removed = this.servers.filter((name) => !next.has(name));
    const added = [...next.keys()].filter((name) => !this.#servers.has(name));
    const restarted = [...next.keys()].filter((name) => {
      const before = this.#servers.get(name);
      return before !== undefined && entryKey(before) !== entryKey(next.get(name) as ServerConfig);
    });
    // An added name may still sit in the registry unserved (left out by --servers, or failed).
    for (const name of [...removed, ...restarted, ...added]) {
      await this.registry.disconnect(name).catch(() => {});
      this.#servers.delete(name);
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
    await Promise.all([...added, ...restarted].map((name) => this.registry.connect(name).catch(() => {})));
    if (added.length || removed.length || restarted.length)
      for (const kind of ['tools', 'resources', 'prompts'] as const)
        for (const listener of this.#listeners) listener(kind);
    return { added, removed, restarted };
  }

  /** Be told of upstream log messages no single client's call can own. Returns an unsubscribe function. */
  onLog(listener: (message: LogMessage) => void): () => void {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
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
      void call.ctx.mcpReq.log(event.level, event.data, logger).catch(() => {});
      return;
    }
    const message: LogMessage = { level: event.level, data: event.data, ...(logger ? { logger } : {}) };
    for (const listener of this.#logListeners) listener(message);
  }

  /**
   * Sampling and elicitation for one upstream server, answered by the client
   * whose call is in flight there (see `Callers`).
   */
  featuresFor(server: string): ClientFeatures {
    const caller = () => {
      const call = this.#callers.soleCaller(server);
      if (call) return call;
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `mcpx gateway: '${server}' asked its client outside a single client's call; it cannot tell which client to ask`,
      );
    };
    return {
      sampling: {
        // The client and server packages declare the same wire types separately.
        createMessage: async (params, { signal }) =>
          (await caller().ctx.mcpReq.requestSampling(params as never, { signal })) as never,
      },
      elicitation: {
        form: async (params, { signal }) =>
          (await caller().ctx.mcpReq.elicitInput(params as never, { signal })) as never,
        url: async (params, { signal }) =>
          (await caller().ctx.mcpReq.elicitInput(params as never, { signal })) as never,
      },
    };
  }

  /**
   * Every served tool, under its public name. Kept until the registry reports a
   * change (a state or a catalogue), so a call does not rename every tool first.
   */
  async tools(): Promise<ToolCatalog> {
    // A re-listing announced by a server but not done yet ends with a catalogue event that
    // drops the cache: wait for it, so a list change seen before this request is in the answer.
    await Promise.all(this.servers.map((name) => this.registry.toolsSettled(name)));
    if (!this.#toolCache) {
      const pending = this.#listTools();
      this.#toolCache = pending;
      pending.catch(() => {
        if (this.#toolCache === pending) this.#toolCache = undefined;
      });
    }
    return this.#toolCache;
  }

  async #listTools(): Promise<ToolCatalog> {
    const listed = await this.#gather(async (name) => {
      await this.registry.use(name, async () => {});
      return this.registry.status(name).tools as Tool[];
    });
    const offered = listed.filter((l) => this.policy.offers(l.server, l.item.name));
    const names = this.namespace.names(offered.map((l) => ({ server: l.server, name: l.item.name })));
    const byKey = new Map(offered.map((l) => [`${l.server}\0${l.item.name}`, l.item]));
    const routes = new Map<string, Qualified & { tool: Tool }>();
    const tools: Tool[] = [];
    for (const [publicName, q] of names) {
      const tool = byKey.get(`${q.server}\0${q.name}`);
      if (!tool) continue;
      routes.set(publicName, { ...q, tool });
      tools.push({ ...tool, name: publicName });
    }
    return { tools, routes };
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
    const route = (await this.tools()).routes.get(publicName);
    if (!route) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${publicName}`);
    const config = this.#servers.get(route.server) as ServerConfig;
    const refusal = this.policy.check(config, route.tool);
    if (refusal) return { content: [{ type: 'text', text: refusal }], isError: true };
    const token = call.ctx.mcpReq._meta?.progressToken;
    const end = this.#callers.begin(route.server, call.client, call);
    try {
      return (await this.registry.callTool(route.server, route.name, args, {
        signal: call.ctx.mcpReq.signal,
        ...(token === undefined
          ? {}
          : {
              onProgress: (p) => {
                void call.ctx.mcpReq
                  .notify({
                    method: 'notifications/progress',
                    params: {
                      progressToken: token,
                      progress: p.progress,
                      ...(p.total === undefined ? {} : { total: p.total }),
                      ...(p.message === undefined ? {} : { message: p.message }),
                    },
                  })
                  .catch(() => {});
              },
            }),
      })) as CallToolResult;
    } catch (error) {
      throw toClientError(error);
    } finally {
      end();
    }
  }

  async prompts(): Promise<{ prompts: Prompt[]; routes: Map<string, Qualified> }> {
    const listed = await this.#gather((name) => this.#use(name, (c) => c.listPrompts()));
    const names = this.namespace.names(listed.map((l) => ({ server: l.server, name: l.item.name })));
    const byKey = new Map(listed.map((l) => [`${l.server}\0${l.item.name}`, l.item]));
    const prompts: Prompt[] = [];
    for (const [publicName, q] of names) {
      const prompt = byKey.get(`${q.server}\0${q.name}`);
      if (prompt) prompts.push({ ...prompt, name: publicName });
    }
    return { prompts, routes: names };
  }

  async getPrompt(
    publicName: string,
    args: Record<string, string>,
    call: DownstreamCall,
  ): Promise<GetPromptResult> {
    const route = (await this.prompts()).routes.get(publicName);
    if (!route) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${publicName}`);
    return this.#use(route.server, (c) => c.getPrompt(route.name, args, { signal: call.ctx.mcpReq.signal }));
  }

  async resources(): Promise<Resource[]> {
    const listed = await this.#gather((name) => this.#use(name, (c) => c.listResources()));
    return listed.map((l) => ({ ...l.item, uri: this.namespace.uri(l.server, l.item.uri) }));
  }

  async resourceTemplates(): Promise<ResourceTemplateType[]> {
    const listed = await this.#gather((name) => this.#use(name, (c) => c.listResourceTemplates()));
    return listed.map((l) => ({ ...l.item, uriTemplate: this.namespace.uri(l.server, l.item.uriTemplate) }));
  }

  async readResource(uri: string, call: DownstreamCall): Promise<ReadResourceResult> {
    const target = this.#resourceTarget(uri);
    const result = await this.#use(target.server, (c) =>
      c.readResource(target.name, { signal: call.ctx.mcpReq.signal }),
    );
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
      const route = (await this.prompts()).routes.get(ref.name);
      if (!route) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
      return this.#use(route.server, (c) => c.complete({ type: 'ref/prompt', name: route.name }, argument));
    }
    const target = this.#resourceTarget(ref.uri);
    return this.#use(target.server, (c) => c.complete({ type: 'ref/resource', uri: target.name }, argument));
  }

  #resourceTarget(uri: string): Qualified {
    const target = this.namespace.parseUri(uri);
    if (!target) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`);
    return target;
  }

  /** Run work on one upstream (connecting it first as its policy allows); failures become client errors. */
  async #use<T>(server: string, work: (connection: ServerConnection) => Promise<T>): Promise<T> {
    try {
      return await this.registry.use(server, work);
    } catch (error) {
      throw toClientError(error);
    }
  }

  /**
   * One list from every served server, in config order. A server that cannot be
   * reached is left out (its state and error are in the registry); the rest are served.
   */
  async #gather<T>(list: (server: string) => Promise<readonly T[]>): Promise<Listed<T>[]> {
    const results = await Promise.all(
      this.servers.map(async (server) => {
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
