import { performance } from 'node:perf_hooks';
import {
  Client,
  type ClientOptions,
  type ElicitResult,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type PriorDiscovery,
  type RequestOptions,
  SdkError,
  SdkErrorCode,
  type Transport,
} from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/types.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { linkSignal } from '../transport/linked-signal.js';
import { outsideSdkScope, type SdkDiagnostic, withSdkDiagnostics } from '../transport/sdk-diagnostics.js';
import type { EraCache } from './era-cache.js';
import {
  applyFormDefaults,
  type ClientFeatures,
  capabilitiesFor,
  capSampling,
  checkFormSchema,
  urlElicitationProblem,
} from './features.js';
import { locate } from './locate.js';
import { translateRequestError } from './translate-error.js';
import type { ProtocolEra, RequestControl, ServerConnection, ServerLogEvent } from './types.js';

/** A transport that can also say why it closed (our stdio transport does). */
export interface ManagedTransport extends Transport {
  closeReason?(): McpxError | undefined;
  stderrTail?(): readonly string[];
  /** The transport's own account of a failure the SDK reports in its words (HTTP status, broken stream). */
  failureFor?(error: unknown): McpxError | undefined;
}

export interface ConnectServerOptions {
  /** Builds a fresh transport; called again when a connect has to be retried. */
  readonly createTransport: () => ManagedTransport | Promise<ManagedTransport>;
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly eraCache?: EraCache;
  readonly onLog?: (event: ServerLogEvent) => void;
  /** The server said its tools, resources or prompts changed (either era). */
  readonly onListChanged?: (kind: ListKind) => void;
  readonly clientInfo?: { name: string; version: string };
  /** Cancels the connect attempt. */
  readonly signal?: AbortSignal;
  /** Roots, sampling and elicitation handlers; each capability is declared only when its handler exists. */
  readonly features?: ClientFeatures;
  /**
   * What the SDK would have printed with `console.*` while working for this server (it may
   * quote the server: sanitize before showing). Without a handler it is dropped: the library
   * never prints. See `sdk-diagnostics.ts`.
   */
  readonly onSdkDiagnostic?: (diagnostic: SdkDiagnostic) => void;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
// The server/discover probe only decides the era; a legacy server that ignores
// it must not cost the SDK's 60 s default on every start.
export const ERA_PROBE_TIMEOUT_MS = 2_000;
// A server whose cursors never converge must not loop forever, but 250 tools
// at page size 7 (36 pages) is normal.
const LIST_MAX_PAGES = 1_000;
const MODERN_VERSION = '2026-07-28';

export type ListKind = 'tools' | 'resources' | 'prompts';

/**
 * Connect to one server: spawn or dial through `createTransport`, negotiate
 * the protocol era (remembered in `eraCache` so later starts skip the probe),
 * and return a ServerConnection. Fails with ConnectTimeout, or with the
 * transport's own reason (command not found, crashed with its stderr tail).
 */
export async function connectServer(
  server: ServerConfig,
  options: ConnectServerOptions,
): Promise<ServerConnection> {
  const cacheKey = `${server.name}\u0000${server.fingerprint}`;
  const prior = server.protocol === 'auto' ? options.eraCache?.get(cacheKey) : undefined;
  try {
    return await attemptConnect(server, options, prior);
  } catch (error) {
    if (!(error instanceof McpxError) || error.code === ErrorCode.Cancelled) throw error;
    if (prior) {
      // A remembered verdict went stale (the server was upgraded or replaced): forget it and negotiate afresh.
      options.eraCache?.delete(cacheKey);
      return attemptConnect(server, options, undefined);
    }
    if (server.protocol === 'auto' && isProbeCasualty(error)) {
      // Some legacy servers exit on any request before `initialize`; the probe
      // killed this one, so start it again and speak the 2025 handshake.
      const connection = await attemptConnect(server, options, { kind: 'legacy' });
      options.eraCache?.set(cacheKey, { kind: 'legacy' });
      return connection;
    }
    throw error;
  }
}

/** The SDK subscribes per era (notifications, or `subscriptions/listen` on 2026-07-28); we only need the signal. */
function listChangedHandlers(notify: (kind: ListKind) => void): NonNullable<ClientOptions['listChanged']> {
  const handler = (kind: ListKind) => ({
    autoRefresh: false,
    debounceMs: 100,
    onChanged: () => notify(kind),
  });
  return { tools: handler('tools'), resources: handler('resources'), prompts: handler('prompts') };
}

/** The server went away during the era probe, which may have been what made it exit (never when it exited before mcpx sent it anything). */
function isProbeCasualty(error: McpxError): boolean {
  if (error.context.exitedBeforeInput === true) return false;
  return error.code === ErrorCode.ServerCrashed || error.code === ErrorCode.ConnectionClosed;
}

async function attemptConnect(
  server: ServerConfig,
  options: ConnectServerOptions,
  prior: PriorDiscovery | undefined,
): Promise<ServerConnection> {
  const connectTimeoutMs = server.connectTimeoutMs ?? options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const clientOptions: ClientOptions = {
    capabilities: capabilitiesFor(options.features),
    listMaxPages: LIST_MAX_PAGES,
    versionNegotiation:
      server.protocol === 'legacy'
        ? { mode: 'legacy' }
        : server.protocol === 'modern'
          ? { mode: { pin: MODERN_VERSION } }
          : { mode: 'auto', probe: { timeoutMs: Math.min(ERA_PROBE_TIMEOUT_MS, connectTimeoutMs) } },
    ...(options.onListChanged
      ? { listChanged: listChangedHandlers(outsideSdkScope(options.onListChanged)) }
      : {}),
  };
  const client = new Client(options.clientInfo ?? { name: 'mcpx', version: '0.1.0' }, clientOptions);
  const unsubscribeRoots = registerFeatureHandlers(client, options.features);
  if (options.onLog) {
    const onLog = outsideSdkScope(options.onLog);
    client.setNotificationHandler('notifications/message', (notification) => {
      const { level, logger, data } = notification.params;
      onLog({ server: server.name, level, ...(logger === undefined ? {} : { logger }), data });
    });
  }
  const transport = await options.createTransport();
  const started = performance.now();
  const timeoutError = () => {
    // The SDK's era probe has its own, shorter timer: say how long mcpx really waited.
    const waited = Math.min(connectTimeoutMs, Math.round(performance.now() - started));
    return new McpxError(
      ErrorCode.ConnectTimeout,
      waited < connectTimeoutMs - 100
        ? `'${server.name}' did not answer the protocol handshake (no reply within ${waited} ms)`
        : `'${server.name}' did not complete the MCP handshake within ${connectTimeoutMs} ms`,
      {
        server: server.name,
        origin: server.origin,
        timeoutMs: waited,
        stderrTail: transport.stderrTail?.() ?? [],
        ...(server.command ? { command: [server.command, ...server.args].join(' ') } : {}),
        ...(server.url ? { url: server.url } : {}),
        causes: [
          'the server is still starting (npx downloading a package can take a while)',
          'the command is not an MCP server, or waits for input of its own',
        ],
        fixes: [
          'raise connect_timeout (seconds) for this server in the config, or pass --timeout',
          `run the command by hand to see what it prints`,
        ],
      },
    );
  };
  // Many servers connect at once on the host's one Ctrl-C signal: one shared listener, not one per connect.
  const link = options.signal ? linkSignal(options.signal) : undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError()), connectTimeoutMs);
  });
  try {
    await Promise.race([
      withSdkDiagnostics(server.name, options.onSdkDiagnostic, () =>
        client.connect(transport, {
          timeout: connectTimeoutMs,
          ...(link ? { signal: link.signal } : {}),
          ...(prior ? { prior } : {}),
        }),
      ),
      deadline,
    ]);
  } catch (error) {
    unsubscribeRoots();
    // The SDK's handshake timer and ours share a limit; whichever fires, it is a connect timeout.
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && !options.signal?.aborted) {
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      throw timeoutError();
    }
    const reason = transport.closeReason?.();
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    if (error instanceof McpxError) throw locate(error, server);
    if (options.signal?.aborted) {
      throw new McpxError(ErrorCode.Cancelled, `connecting to '${server.name}' was cancelled`, {
        server: server.name,
      });
    }
    throw locate(
      reason ??
        transport.failureFor?.(error) ??
        translateRequestError(error, { server: server.name, method: 'initialize' }),
      server,
    );
  } finally {
    clearTimeout(timer);
    link?.release();
  }
  const era: ProtocolEra = client.getProtocolEra?.() === 'modern' ? 'modern' : 'legacy';
  if (server.protocol === 'auto' && options.eraCache) {
    const discover = client.getDiscoverResult();
    const key = `${server.name}\u0000${server.fingerprint}`;
    options.eraCache.set(
      key,
      era === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' },
    );
  }
  const connection = new SdkServerConnection(
    server,
    client,
    transport,
    era,
    performance.now() - started,
    options,
  );
  connection.onClose(unsubscribeRoots);
  return connection;
}

class SdkServerConnection implements ServerConnection {
  readonly capabilities;
  readonly protocolVersion;
  readonly serverInfo;
  readonly instructions;
  #closed = false;
  #closing: Promise<void> | undefined;
  #closeListeners = new Set<(reason: Error | undefined) => void>();
  readonly #requestTimeoutMs: number;
  readonly #onSdkDiagnostic: ((diagnostic: SdkDiagnostic) => void) | undefined;
  /** 2026-07-28 has no logging/setLevel: the level rides on each request's `_meta`. */
  #logLevel: LoggingLevel | undefined;

  constructor(
    readonly server: ServerConfig,
    private readonly client: Client,
    private readonly transport: ManagedTransport,
    readonly era: ProtocolEra,
    readonly connectMs: number,
    options: ConnectServerOptions,
  ) {
    this.capabilities = client.getServerCapabilities() ?? {};
    this.protocolVersion = client.getNegotiatedProtocolVersion();
    this.serverInfo = client.getServerVersion();
    this.instructions = client.getInstructions();
    this.#requestTimeoutMs =
      server.requestTimeoutMs ?? options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#onSdkDiagnostic = options.onSdkDiagnostic;
    client.onclose = () => {
      this.#closed = true;
      const reason = transport.closeReason?.();
      for (const listener of this.#closeListeners) listener(reason);
      this.#closeListeners.clear();
    };
  }

  get closed(): boolean {
    return this.#closed;
  }

  async listTools(options?: RequestControl) {
    if (!this.capabilities.tools) return [];
    return (await this.#run('tools/list', options, (o) => this.client.listTools(undefined, o))).tools;
  }

  async listResources(options?: RequestControl) {
    if (!this.capabilities.resources) return [];
    return (await this.#run('resources/list', options, (o) => this.client.listResources(undefined, o)))
      .resources;
  }

  async listResourceTemplates(options?: RequestControl) {
    if (!this.capabilities.resources) return [];
    return (
      await this.#run('resources/templates/list', options, (o) =>
        this.client.listResourceTemplates(undefined, o),
      )
    ).resourceTemplates;
  }

  async listPrompts(options?: RequestControl) {
    if (!this.capabilities.prompts) return [];
    return (await this.#run('prompts/list', options, (o) => this.client.listPrompts(undefined, o))).prompts;
  }

  callTool(
    name: string,
    args: Record<string, unknown>,
    options: Parameters<ServerConnection['callTool']>[2] = {},
  ) {
    const onProgress = options.onProgress ? outsideSdkScope(options.onProgress) : undefined;
    return this.#run(`tools/call ${name}`, options, (o) =>
      this.client.callTool(
        { name, arguments: args, ...this.#meta() },
        {
          ...o,
          ...(onProgress
            ? {
                onprogress: (p) =>
                  onProgress({
                    progress: p.progress,
                    ...(p.total === undefined ? {} : { total: p.total }),
                    ...(p.message === undefined ? {} : { message: p.message }),
                  }),
                resetTimeoutOnProgress: true,
              }
            : {}),
        },
      ),
    ) as ReturnType<ServerConnection['callTool']>;
  }

  readResource(uri: string, options?: RequestControl) {
    return this.#run(`resources/read ${uri}`, options, (o) =>
      this.client.readResource({ uri, ...this.#meta() }, o),
    );
  }

  getPrompt(name: string, args: Record<string, string>, options?: RequestControl) {
    return this.#run(`prompts/get ${name}`, options, (o) =>
      this.client.getPrompt({ name, arguments: args, ...this.#meta() }, o),
    );
  }

  complete(
    ref: Parameters<ServerConnection['complete']>[0],
    argument: Parameters<ServerConnection['complete']>[1],
    options?: RequestControl,
  ) {
    return this.#run('completion/complete', options, (o) => this.client.complete({ ref, argument }, o));
  }

  async ping(options?: RequestControl) {
    const started = performance.now();
    // 2026-07-28 has no ping; server/discover is its cheapest round trip.
    await this.#run('ping', options, (o) =>
      this.era === 'modern' ? this.client.discover(o) : this.client.ping(o),
    );
    return performance.now() - started;
  }

  async setLoggingLevel(level: LoggingLevel, options?: RequestControl) {
    if (this.era === 'modern') {
      this.#logLevel = level;
      return;
    }
    await this.#run('logging/setLevel', options, (o) => this.client.setLoggingLevel(level, o));
  }

  #meta(): { _meta?: Record<string, unknown> } {
    return this.#logLevel ? { _meta: { [LOG_LEVEL_META_KEY]: this.#logLevel } } : {};
  }

  onClose(listener: (reason: Error | undefined) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await withSdkDiagnostics(this.server.name, this.#onSdkDiagnostic, () => this.client.close()).catch(
        () => {},
      );
      await this.transport.close().catch(() => {});
      this.#closed = true;
    })();
    return this.#closing;
  }

  async #run<T>(
    method: string,
    control: RequestControl | undefined,
    send: (options: RequestOptions) => Promise<T>,
  ): Promise<T> {
    const timeoutMs = control?.timeoutMs ?? this.#requestTimeoutMs;
    if (control?.signal?.aborted) {
      throw new McpxError(ErrorCode.Cancelled, `${method} was cancelled`, { server: this.server.name });
    }
    if (this.#closed) {
      const reason = this.transport.closeReason?.();
      throw locate(
        reason ??
          new McpxError(ErrorCode.ConnectionClosed, `the connection to '${this.server.name}' is closed`, {
            server: this.server.name,
          }),
        this.server,
      );
    }
    const link = control?.signal ? linkSignal(control.signal) : undefined;
    try {
      return await withSdkDiagnostics(this.server.name, this.#onSdkDiagnostic, () =>
        send({ timeout: timeoutMs, ...(link ? { signal: link.signal } : {}) }),
      );
    } catch (error) {
      const own = control?.signal?.aborted ? undefined : this.transport.failureFor?.(error);
      if (own) throw locate(own, this.server);
      throw locate(
        translateRequestError(error, {
          server: this.server.name,
          method,
          timeoutMs,
          ...(control?.signal ? { signal: control.signal } : {}),
          ...(this.transport.closeReason?.()
            ? { closeReason: this.transport.closeReason() as McpxError }
            : {}),
        }),
        this.server,
      );
    } finally {
      link?.release();
    }
  }
}

/** Wire the host's roots, sampling and elicitation handlers into the SDK client. Returns a cleanup. */
function registerFeatureHandlers(client: Client, features: ClientFeatures | undefined): () => void {
  if (!features) return () => {};
  const { roots, sampling, elicitation } = features;
  let unsubscribe = () => {};
  if (roots) {
    client.setRequestHandler('roots/list', async () => ({
      roots: [...outsideSdkScope(() => roots.list())()],
    }));
    const stop = roots.subscribe(() => void client.sendRootsListChanged().catch(() => {}));
    unsubscribe = () => {
      stop();
    };
  }
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', async (request, ctx) =>
      outsideSdkScope(() =>
        sampling.createMessage(capSampling(request.params, sampling.maxTokens), {
          signal: ctx.mcpReq.signal,
        }),
      )(),
    );
  }
  if (elicitation?.form || elicitation?.url) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const params = request.params;
      const signal = ctx.mcpReq.signal;
      if (params.mode === 'url') {
        const problem = urlElicitationProblem(params.url);
        if (problem || !elicitation.url) return { action: 'decline' };
        const url = elicitation.url;
        return outsideSdkScope(() => url.call(elicitation, params, { signal }))();
      }
      if (!elicitation.form) return { action: 'decline' };
      checkFormSchema(params.requestedSchema);
      const form = elicitation.form;
      const answer = await outsideSdkScope(() => form.call(elicitation, params, { signal }))();
      return answer.action === 'accept'
        ? {
            ...answer,
            content: applyFormDefaults(
              params.requestedSchema,
              answer.content as Record<string, unknown>,
            ) as ElicitResult['content'],
          }
        : answer;
    });
  }
  return unsubscribe;
}
