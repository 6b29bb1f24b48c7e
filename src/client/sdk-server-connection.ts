import { performance } from 'node:perf_hooks';
import type {
  Client,
  ClientCapabilities,
  LoggingLevel,
  RequestOptions,
  Tool,
} from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import {
  linkSignal,
  outsideSdkScope,
  type SdkDiagnostic,
  StdioTransport,
  withSdkDiagnostics,
} from '../transport/index.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './connect.js';
import type { ConnectServerOptions, ManagedTransport } from './connect-options.js';
import { looksLikeOtherEra } from './era-verdict.js';
import { capabilitiesFor } from './features.js';
import { ListWalk, withListWalk } from './list-bounds.js';
import { locate } from './locate.js';
import { RelayedCalls } from './relayed-call.js';
import { requestMeta } from './request-meta.js';
import { serverSkills } from './skill-requests.js';
import { ResourceSubscriptions } from './subscriptions.js';
import { callToolAsTask, requiresTask, serverRunsToolTasks } from './tasks.js';
import { translateRequestError } from './translate-error.js';
import type { ProtocolEra, RequestControl, ServerConnection } from './types.js';

/** One connected SDK client with its transport: what a connection talks through. */
export interface Link {
  readonly client: Client;
  readonly transport: ManagedTransport;
  readonly era: ProtocolEra;
}

/** Connect afresh, forgetting the remembered era verdict: for a connection whose verdict proved stale. */
export type Renegotiate = () => Promise<SdkServerConnection>;

/**
 * A connected server over the SDK client: every request goes through `#run` (timeouts, cancel,
 * errors translated and located), with a stale remembered era recovered from on the first failure.
 */
export class SdkServerConnection implements ServerConnection {
  #link: Link;
  #closed = false;
  #closing: Promise<void> | undefined;
  #closeListeners = new Set<(reason: Error | undefined) => void>();
  readonly #requestTimeoutMs: number;
  readonly #onSdkDiagnostic: ((diagnostic: SdkDiagnostic) => void) | undefined;
  /** 2026-07-28 has no logging/setLevel: the level rides on each request's `_meta`. */
  #logLevel: LoggingLevel | undefined;
  /** Set while the era came from memory and no request has succeeded yet. */
  #renegotiate: Renegotiate | undefined;
  #renegotiating: Promise<void> | undefined;
  readonly #cleanups: (() => void)[] = [];
  /** Work beside the connection (a background era recheck) that ends with it. */
  readonly #companions: (() => Promise<void>)[] = [];
  readonly #stopping: Promise<void>[] = [];
  /** The last tools/list, to know which tools must run as tasks. */
  #tools: Promise<Tool[]> | undefined;
  #subscriptions: ResourceSubscriptions;
  /** The capabilities this connection declared (its handlers). */
  readonly #declared: ClientCapabilities;
  /** The line relay of each link, made on first use (`#relay`). */
  readonly #relays = new WeakMap<Link, RelayedCalls>();
  /** Of the last tools/list, by name: whether the tool declares an output schema (`#outputChecked`). */
  #outputSchemas: Map<string, boolean> | undefined;

  constructor(
    readonly server: ServerConfig,
    link: Link,
    readonly connectMs: number,
    options: ConnectServerOptions,
    renegotiate?: Renegotiate,
  ) {
    this.#link = link;
    this.#renegotiate = renegotiate;
    this.#requestTimeoutMs =
      server.requestTimeoutMs ?? options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#subscriptions = new ResourceSubscriptions(link.client, link.era, server.name);
    this.#onSdkDiagnostic = options.onSdkDiagnostic;
    this.#declared = capabilitiesFor(options.features);
    this.#watch(link);
  }

  get era(): ProtocolEra {
    return this.#link.era;
  }
  get capabilities() {
    return this.client.getServerCapabilities() ?? {};
  }
  get protocolVersion() {
    return this.transport.relayedProtocolVersion ?? this.client.getNegotiatedProtocolVersion();
  }
  get serverInfo() {
    return this.client.getServerVersion();
  }
  get instructions() {
    return this.client.getInstructions();
  }
  private get client(): Client {
    return this.#link.client;
  }
  private get transport(): ManagedTransport {
    return this.#link.transport;
  }

  #watch(link: Link): void {
    link.client.onclose = () => {
      if (link !== this.#link) return; // a link replaced after a stale verdict closes quietly
      if (!this.#closing && this.#renegotiate) {
        // The server went away before anything worked: maybe our era killed it.
        const gone = () => this.#finish(link);
        void this.#recoverFromStaleVerdict(undefined).then((recovered) => recovered || gone(), gone);
        return;
      }
      this.#finish(link);
    };
  }

  #finish(link: Link): void {
    if (link !== this.#link || this.#closed) return;
    this.#closed = true;
    this.#subscriptions.connectionClosed();
    const reason = link.transport.closeReason?.();
    for (const listener of this.#closeListeners) listener(reason);
    this.#closeListeners.clear();
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
    for (const stop of this.#companions.splice(0)) this.#stopping.push(stop());
  }

  /** Runs when the connection closes for good (not when a stale link is replaced). */
  addCleanup(cleanup: () => void): void {
    this.#cleanups.push(cleanup);
  }

  /** Stopped when the connection closes; its close waits for the stop (no process outlives it). */
  addCompanion(stop: () => Promise<void>): void {
    if (this.#closed || this.#closing) this.#stopping.push(stop());
    else this.#companions.push(stop);
  }

  /**
   * A remembered verdict is a hint, never a trap: when the first request on a
   * connection whose era came from memory fails the way a server of the
   * other era fails (it does not know the method, or it exits), connect
   * afresh with negotiation and take over that connection. Requests that
   * failed together share one renegotiation.
   */
  async #recoverFromStaleVerdict(error: unknown): Promise<boolean> {
    if (!this.#renegotiate && !this.#renegotiating) return false;
    if (!this.#renegotiating) {
      if (!looksLikeOtherEra(error, this.transport)) return false;
      const renegotiate = this.#renegotiate as Renegotiate;
      this.#renegotiate = undefined;
      this.#renegotiating = (async () => {
        const fresh = await renegotiate();
        const stale = this.#link;
        this.#link = fresh.#link;
        this.#tools = undefined;
        this.#subscriptions = new ResourceSubscriptions(this.#link.client, this.#link.era, this.server.name);
        this.#watch(this.#link);
        await stale.client.close().catch(() => {});
        await stale.transport.close().catch(() => {});
      })();
    }
    await this.#renegotiating;
    return true;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get requestTimeoutMs(): number {
    return this.#requestTimeoutMs;
  }

  async listTools(options?: RequestControl) {
    if (!this.capabilities.tools) return [];
    const tools = (
      await this.#run('tools/list', options, (o) => this.client.listTools(undefined, this.#bounded(o)))
    ).tools;
    this.#tools = Promise.resolve(tools);
    const schemas = new Map<string, boolean>();
    // The first of a name, as the SDK client's lookup finds it.
    for (const tool of tools)
      if (!schemas.has(tool.name)) schemas.set(tool.name, tool.outputSchema !== undefined);
    this.#outputSchemas = schemas;
    return tools;
  }

  /** Only for a server that runs tools as tasks: one tools/list, unless one was already fetched. */
  async #mustRunAsTask(name: string, options: RequestControl): Promise<boolean> {
    if (!serverRunsToolTasks(this.capabilities)) return false;
    this.#tools ??= this.listTools(options).catch((error) => {
      this.#tools = undefined;
      throw error;
    });
    return requiresTask((await this.#tools).find((t) => t.name === name));
  }

  async listResources(options?: RequestControl) {
    if (!this.capabilities.resources) return [];
    return (
      await this.#run('resources/list', options, (o) =>
        this.client.listResources(undefined, this.#bounded(o)),
      )
    ).resources;
  }

  async listResourceTemplates(options?: RequestControl) {
    if (!this.capabilities.resources) return [];
    return (
      await this.#run('resources/templates/list', options, (o) =>
        this.client.listResourceTemplates(undefined, this.#bounded(o)),
      )
    ).resourceTemplates;
  }

  async listPrompts(options?: RequestControl) {
    if (!this.capabilities.prompts) return [];
    return (
      await this.#run('prompts/list', options, (o) => this.client.listPrompts(undefined, this.#bounded(o)))
    ).prompts;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: Parameters<ServerConnection['callTool']>[2] = {},
  ) {
    // Asked only of a server that runs tasks: a plain call does not wait a turn for the answer.
    if (serverRunsToolTasks(this.capabilities) && (await this.#mustRunAsTask(name, options))) {
      return this.#run(`tools/call ${name} (task)`, options, (o) =>
        callToolAsTask(
          this.client,
          {
            name,
            arguments: args,
            ...this.#meta(options.traceContext ? { traceContext: options.traceContext } : undefined),
          },
          o,
          options.onTaskStatus,
        ),
      );
    }
    const relay = options.relay && !options.onProgress && !options.inputRound ? this.#relay() : undefined;
    if (relay && Object.keys(this.#meta(options)).length === 0 && !this.#outputChecked(name)) {
      const { cancel } = options;
      return this.#run(
        `tools/call ${name}`,
        options,
        (o) =>
          relay.callTool(
            { name, arguments: args },
            {
              timeout: o.timeout ?? this.#requestTimeoutMs,
              ...(o.signal ? { signal: o.signal } : {}),
              ...(cancel ? { cancel } : {}),
            },
          ),
        true,
      );
    }
    const onProgress = options.onProgress ? outsideSdkScope(options.onProgress) : undefined;
    return this.#run(`tools/call ${name}`, options, (o) =>
      this.client.callTool(
        { name, arguments: args, ...this.#meta(options), ...options.inputRound },
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

  /**
   * The line relay beside this connection's SDK client (`relayed-call.ts`): only to a
   * local stdio server (or a server the daemon holds, over its in-process link) on 2025-11-25,
   * whose replies the transport can tell apart.
   */
  #relay(): RelayedCalls | undefined {
    const link = this.#link;
    const lines = link.transport instanceof StdioTransport || link.transport.relaysLines === true;
    if (link.era !== 'legacy' || this.#renegotiate || !lines) return undefined;
    let relay = this.#relays.get(link);
    if (!relay) {
      const made = new RelayedCalls(link.transport);
      relay = made;
      this.#relays.set(link, made);
      this.onClose(() => made.close());
    }
    return relay;
  }

  /**
   * Whether the SDK client would check this tool's result against an output schema
   * (it keeps the schemas of the tools it listed), which the relay does not do.
   */
  #outputChecked(name: string): boolean {
    return this.#outputSchemas === undefined || this.#outputSchemas.get(name) === true;
  }

  readResource(uri: string, options?: RequestControl) {
    return this.#run(`resources/read ${uri}`, options, (o) =>
      this.client.readResource({ uri, ...this.#meta(options), ...options?.inputRound }, o),
    );
  }

  async subscribeResource(uri: string, onUpdated: (uri: string) => void, options?: RequestControl) {
    const resources = this.capabilities.resources as { subscribe?: boolean } | undefined;
    if (!resources?.subscribe) {
      throw locate(
        new McpxError(
          ErrorCode.ServerRejected,
          `'${this.server.name}' does not offer resource subscriptions`,
          {
            server: this.server.name,
            causes: ['its capabilities do not include resources.subscribe'],
            fixes: ['read the resource again when you need it instead of watching it'],
          },
        ),
        this.server,
      );
    }
    return this.#run(`subscribe ${uri}`, options, (o) => this.#subscriptions.subscribe(uri, onUpdated, o));
  }

  get skills() {
    return serverSkills(
      this.server.name,
      () => this.client,
      (method, control, send) => this.#run(method, control, send),
    );
  }

  getPrompt(name: string, args: Record<string, string>, options?: RequestControl) {
    return this.#run(`prompts/get ${name}`, options, (o) =>
      this.client.getPrompt({ name, arguments: args, ...this.#meta(options), ...options?.inputRound }, o),
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

  #meta(control?: RequestControl): { _meta?: Record<string, unknown> } {
    return requestMeta(control, { logLevel: this.#logLevel, era: this.era, declared: this.#declared });
  }

  onClose(listener: (reason: Error | undefined) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#renegotiating?.catch(() => {}); // so a connection it is opening is closed too
      this.#stopping.push(...this.#companions.splice(0).map((stop) => stop()));
      const companions = Promise.all(this.#stopping);
      await withSdkDiagnostics(this.server.name, this.#onSdkDiagnostic, () => this.client.close()).catch(
        () => {},
      );
      await this.transport.close().catch(() => {});
      await companions;
      this.#closed = true;
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Options for one list walk, bounded in pages, items and bytes (see `list-bounds.ts`). */
  #bounded(options: RequestOptions): RequestOptions {
    return withListWalk(options, new ListWalk(this.server.name));
  }

  async #run<T>(
    method: string,
    control: RequestControl | undefined,
    send: (options: RequestOptions) => Promise<T>,
    takesCancel = false,
  ): Promise<T> {
    const timeoutMs = control?.timeoutMs ?? this.#requestTimeoutMs;
    if (cancelledBy(control)) {
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
    const link = control?.signal && !control.ownSignal ? linkSignal(control.signal) : undefined;
    // A `cancel` becomes a signal here unless `send` takes it as it is (the line relay).
    const signal = link?.signal ?? control?.signal ?? (takesCancel ? undefined : control?.cancel?.signal);
    const options: RequestOptions = {
      timeout: timeoutMs,
      ...(signal ? { signal } : {}),
      ...(control?.manualInput ? { allowInputRequired: true } : {}),
    };
    try {
      const attempt = () => withSdkDiagnostics(this.server.name, this.#onSdkDiagnostic, () => send(options));
      let result: T;
      try {
        result = await attempt();
      } catch (error) {
        if (cancelledBy(control) || !(await this.#recoverFromStaleVerdict(error))) throw error;
        result = await attempt();
      }
      this.#renegotiate = undefined; // the era works: no later failure is blamed on it
      return result;
    } catch (error) {
      const cancelled = { aborted: cancelledBy(control) };
      const own = cancelled.aborted ? undefined : this.transport.failureFor?.(error);
      if (own) throw locate(own, this.server);
      throw locate(
        translateRequestError(error, {
          server: this.server.name,
          method,
          timeoutMs,
          cancelled,
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

/** Whether the caller cancelled the request, whichever way (`cancel` is a `signal` made only when needed). */
function cancelledBy(control: RequestControl | undefined): boolean {
  return control?.cancel?.aborted === true || control?.signal?.aborted === true;
}
