import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import {
  type CallToolOptions,
  type ListKind,
  locate,
  type ServerConnection,
  type Throttle,
  throttle,
} from '../client/index.js';
import { assertApproved, type ServerConfig } from '../config/loading.js';
import { ErrorCode, McpxError, toMcpxError } from '../errors/index.js';
import { createLimiter } from './limit.js';
import { DEFAULT_RECONNECT_POLICY, type ReconnectPolicy, reconnectDelay } from './reconnect-policy.js';
import { canTransition, type ServerCondition, type ServerState } from './server-state.js';
import { filterTools } from './tool-filter.js';

/** Opens one connection; the registry passes the hooks it needs. */
export type Connector = (
  server: ServerConfig,
  hooks: { readonly onListChanged: (kind: ListKind) => void; readonly signal?: AbortSignal },
) => Promise<ServerConnection>;

/** What a registry tells its listeners: a server's state changed, its tools changed, or it has something to say (a warning, a failed listing). */
export type RegistryEvent =
  | {
      readonly type: 'state';
      readonly server: string;
      readonly state: ServerState;
      readonly previous: ServerState;
      readonly error?: McpxError;
    }
  | {
      readonly type: 'catalog';
      readonly server: string;
      readonly kind: ListKind;
      /** Tools: the list as the config's allow/deny lists leave it (the server's status). */
      readonly tools?: readonly Tool[];
      /** Tools: the list as the server gave it, before the config's allow/deny lists. */
      readonly listed?: readonly Tool[];
    }
  | {
      readonly type: 'warning';
      readonly server: string;
      readonly message: string;
      readonly error?: McpxError;
      /** Set when a listing of this kind failed; `error` then is the server's `listingError`. */
      readonly listing?: ListKind;
    };

/** How a `ServerRegistry` connects and reconnects its servers: the connector, how many at once, the reconnect policy. */
export interface ServerRegistryOptions {
  readonly connector: Connector;
  /** Servers connected at once by `connectAll()`. */
  readonly concurrency?: number;
  readonly reconnect?: Partial<ReconnectPolicy>;
  readonly random?: () => number;
  /**
   * How a failed tool listing's advice names listing them again, in the front end's words
   * (the shell's `/mcp retry NAME`). Default: `` `mcpx retry NAME` ``.
   * @internal
   */
  readonly retryAdvice?: (server: string) => string;
}

/** Who may see a connection: everyone (shared) or only the agent that opened it. */
export interface Visibility {
  readonly owner?: string;
  readonly shared?: boolean;
}

/** How `connect()` opens a server. */
export interface ConnectOptions {
  /**
   * List the server's tools as part of connecting (the default). A one-shot
   * caller that needs no definitions (`mcpx call` with JSON arguments) saves the
   * round trip; the server's status then shows no tools until a list change or
   * `retry()`. `fail_if_no_tools` still lists.
   */
  readonly listTools?: boolean;
}

/** A read-only view of one server in the registry. */
export interface ServerStatus {
  readonly name: string;
  readonly config: ServerConfig;
  readonly state: ServerState;
  readonly error?: McpxError;
  /**
   * The state to show: `state`, or `listing-failed` while `listingError` is set on a
   * connected server. Every front end shows this one, so none re-derives it.
   */
  readonly condition: ServerCondition;
  /**
   * Why a listing failed (tools first, then resources, then prompts) while the
   * connection is up; cleared once a listing of that kind works again.
   */
  readonly listingError?: McpxError;
  /** Tools after the config's allow/deny lists; empty until listed (and after a failed listing). */
  readonly tools: readonly Tool[];
  readonly connection?: ServerConnection;
  readonly owner?: string;
  readonly shared: boolean;
  /** Reconnect attempts since the connection last worked. */
  readonly attempts: number;
  /**
   * Its tools can be used now: the server is up, or it went down and the reconnect
   * policy brings it back on the next use (lazy) or in the background (eager). False
   * for a server stopped, never reconnected, or given up on.
   */
  readonly usable: boolean;
}

interface Entry {
  config: ServerConfig;
  state: ServerState;
  error?: McpxError;
  tools: Tool[];
  connection?: ServerConnection;
  connecting?: Promise<ServerConnection>;
  inFlight: number;
  attempts: number;
  owner?: string;
  shared: boolean;
  timer?: NodeJS.Timeout;
  /** Set once the user or a policy decided this server should be down. */
  stopped: boolean;
  /** It worked, then its connection died: the reconnect policy may bring it back. */
  lost: boolean;
  /** The re-listing of its tools that a list change started, until it is done. */
  toolsRefresh?: Promise<void>;
  /** A re-listing is queued and not started yet: it covers every change announced before it starts. */
  refreshQueued?: boolean;
  /** The last listing of each kind that failed, until one of that kind works. */
  listingErrors: Map<ListKind, McpxError>;
  /** How its resource and prompt list changes are told onwards (`#onListChanged`). */
  listChanges: Map<ListKind, Throttle>;
}

/**
 * Many servers at once: parallel connects with a concurrency limit, one
 * lifecycle state per server with an event for every change, shared or
 * agent-owned connections, tool catalogues kept fresh by list-changed
 * notifications, and dead connections brought back by the reconnect policy.
 * One slow or broken server never blocks or breaks the others.
 */
export class ServerRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Set<(event: RegistryEvent) => void>();
  readonly #connector: Connector;
  readonly #limit: <T>(task: () => Promise<T>) => Promise<T>;
  readonly #policy: ReconnectPolicy;
  readonly #random: () => number;
  #closed = false;

  readonly #retryAdvice: (server: string) => string;

  constructor(servers: readonly ServerConfig[], options: ServerRegistryOptions) {
    this.#connector = options.connector;
    this.#limit = createLimiter(options.concurrency ?? 16);
    this.#policy = { ...DEFAULT_RECONNECT_POLICY, ...options.reconnect };
    this.#random = options.random ?? Math.random;
    this.#retryAdvice = options.retryAdvice ?? ((name) => `\`mcpx retry ${name}\``);
    for (const config of servers) this.add(config);
  }

  /** Subscribe to every state change, catalogue change and warning. Returns an unsubscribe function. */
  on(listener: (event: RegistryEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Add a server definition (state `created`); replacing a live one is refused. */
  add(config: ServerConfig): void {
    const existing = this.#entries.get(config.name);
    if (existing && existing.state !== 'stopped' && existing.state !== 'created') {
      throw new McpxError(ErrorCode.Usage, `server '${config.name}' is already connected`, {
        server: config.name,
      });
    }
    this.#entries.set(config.name, {
      config,
      state: 'created',
      tools: [],
      inFlight: 0,
      attempts: 0,
      shared: true,
      stopped: false,
      lost: false,
      listingErrors: new Map(),
      listChanges: new Map(),
    });
  }

  /** Every server, or those visible to `agentId` (shared ones plus its own). */
  list(agentId?: string): ServerStatus[] {
    return [...this.#entries.values()].filter((e) => isVisible(e, agentId)).map((e) => this.#snapshot(e));
  }

  status(name: string): ServerStatus {
    return this.#snapshot(this.#entry(name));
  }

  /**
   * The config a server runs under now, without a status snapshot: asked on every call
   * (the permission guard's allow/deny lists), where `status()` would copy the whole entry.
   */
  configOf(name: string): ServerConfig | undefined {
    return this.#entries.get(name)?.config;
  }

  /**
   * A server's live connection now (none while it connects, or once it closed), without a
   * status snapshot: the gateway's fast path asks it on every call.
   */
  liveConnection(name: string): ServerConnection | undefined {
    const entry = this.#entries.get(name);
    const connection = entry && !entry.connecting ? entry.connection : undefined;
    return connection && !connection.closed ? connection : undefined;
  }

  #snapshot(entry: Entry): ServerStatus {
    return { ...snapshot(entry), usable: this.#usable(entry) };
  }

  /** Up, or lost and coming back: `#connectionForUse()` would reconnect it rather than refuse. */
  #usable(entry: Entry): boolean {
    if (entry.state === 'ready' || entry.state === 'busy') return true;
    if (this.#closed || entry.stopped || this.#policy.mode === 'never' || !entry.lost) return false;
    if (entry.state === 'starting') return true;
    return entry.state === 'error' && entry.attempts < this.#policy.maxAttempts;
  }

  /** Names of the visible servers that offer a tool with this name. */
  findTool(toolName: string, agentId?: string): string[] {
    return this.list(agentId)
      .filter((s) => s.tools.some((t) => t.name === toolName))
      .map((s) => s.name);
  }

  /**
   * Connect every enabled server (or those of them named in `only`) in parallel, at most
   * `concurrency` at once. Never throws: failures are in each server's state and error.
   */
  async connectAll(
    options: { readonly signal?: AbortSignal; readonly only?: readonly string[] } = {},
  ): Promise<ServerStatus[]> {
    const only = options.only && new Set(options.only);
    const enabled = [...this.#entries.values()].filter(
      (e) => e.config.enabled && (!only || only.has(e.config.name)),
    );
    await Promise.all(
      enabled.map((e) => this.#limit(() => this.#ensureConnected(e, options.signal)).catch(() => undefined)),
    );
    return this.list();
  }

  /**
   * Connect one server, or return its live connection. Concurrent callers
   * share one attempt. An explicit connect also resets the reconnect budget.
   */
  async connect(
    name: string,
    visibility: Visibility = {},
    options: ConnectOptions = {},
  ): Promise<ServerConnection> {
    const entry = this.#entry(name);
    if (visibility.owner !== undefined) entry.owner = visibility.owner;
    if (visibility.shared !== undefined) entry.shared = visibility.shared;
    else if (visibility.owner !== undefined) entry.shared = false;
    entry.stopped = false;
    entry.attempts = 0;
    return this.#ensureConnected(entry, undefined, options.listTools ?? true);
  }

  /** Re-list a connected server's tools (`mcpx retry`). */
  async retry(name: string): Promise<readonly Tool[]> {
    const entry = this.#entry(name);
    const connection = await this.#ensureConnected(entry);
    await this.#refreshTools(entry, connection, { throwOnFailure: true });
    return entry.tools;
  }

  /**
   * Run `work` on a server's connection, reconnecting first when the policy
   * allows (lazy). The server is `busy` while work is in flight. A request that
   * fails because the server died is reported, never silently retried: the
   * tool may already have had its effect.
   */
  async use<T>(
    name: string,
    work: (connection: ServerConnection) => Promise<T>,
    agentId?: string,
  ): Promise<T> {
    const entry = this.#entry(name);
    if (!isVisible(entry, agentId)) throw unknownServer(name);
    // Up and not reconnecting: the connection now, without a turn of waiting for it.
    const live = entry.connecting ? undefined : entry.connection;
    const connection = live && !live.closed ? live : await this.#connectionForUse(entry);
    entry.inFlight += 1;
    if (entry.inFlight === 1) this.#setState(entry, 'busy');
    try {
      const result = await work(connection);
      entry.attempts = 0;
      return result;
    } finally {
      entry.inFlight -= 1;
      if (entry.inFlight === 0 && entry.state === 'busy') this.#setState(entry, 'ready');
    }
  }

  /** Call a tool through `use()`. */
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options?: CallToolOptions & { readonly agentId?: string },
  ): Promise<CallToolResult> {
    return this.use(server, (c) => c.callTool(tool, args, options), options?.agentId);
  }

  /** Ping a server; a failure marks the connection dead (and the policy applies). */
  async checkHealth(name: string): Promise<number> {
    const entry = this.#entry(name);
    const connection = await this.#connectionForUse(entry);
    try {
      return await connection.ping({ timeoutMs: 5_000 });
    } catch (error) {
      const failure = toMcpxError(error);
      await connection.close();
      this.#onConnectionLost(entry, connection, failure);
      throw failure;
    }
  }

  /** Stop one server (and its process tree). It stays stopped until `connect()`. */
  async disconnect(name: string): Promise<void> {
    await this.#stop(this.#entry(name));
  }

  /** Stop every server. No process remains when this resolves. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#entries.values()].map((e) => this.#stop(e)));
  }

  #entry(name: string): Entry {
    const entry = this.#entries.get(name);
    if (!entry) throw unknownServer(name, [...this.#entries.keys()]);
    return entry;
  }

  async #connectionForUse(entry: Entry): Promise<ServerConnection> {
    // A connect in progress first: its connection is set before its tools are listed, and a
    // caller must not see the server as up with an empty catalogue.
    if (entry.connecting) return entry.connecting;
    if (entry.connection && !entry.connection.closed) return entry.connection;
    if (entry.state === 'error' || entry.connection?.closed) {
      if (this.#policy.mode === 'never' || entry.stopped) throw entry.error ?? notConnected(entry);
      if (entry.attempts >= this.#policy.maxAttempts) throw gaveUp(entry, this.#policy.maxAttempts);
    }
    return this.#ensureConnected(entry);
  }

  #ensureConnected(entry: Entry, signal?: AbortSignal, listTools = true): Promise<ServerConnection> {
    if (this.#closed) return Promise.reject(notConnected(entry));
    if (entry.connection && !entry.connection.closed) return Promise.resolve(entry.connection);
    entry.connecting ??= this.#open(entry, signal, listTools).finally(() => {
      entry.connecting = undefined;
    });
    return entry.connecting;
  }

  async #open(entry: Entry, signal: AbortSignal | undefined, listTools: boolean): Promise<ServerConnection> {
    clearTimeout(entry.timer);
    this.#setState(entry, 'starting');
    let connection: ServerConnection;
    try {
      assertApproved(entry.config);
      connection = await this.#connector(entry.config, {
        onListChanged: (kind) => this.#onListChanged(entry, kind),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      const failure = toMcpxError(error);
      entry.attempts += 1;
      // Listeners woken by the state change must see the attempt as over.
      entry.connecting = undefined;
      this.#setState(entry, 'error', failure);
      this.#scheduleEager(entry);
      throw failure;
    }
    if (this.#closed || entry.stopped) {
      await connection.close();
      throw notConnected(entry);
    }
    entry.connection = connection;
    entry.listingErrors.clear();
    connection.onClose((reason) =>
      this.#onConnectionLost(entry, connection, reason ? toMcpxError(reason) : undefined),
    );
    if (listTools || entry.config.failIfNoTools)
      await this.#refreshTools(entry, connection, { throwOnFailure: false });
    // The connection died while its tools were listed: that is the failure, not a server with no tools.
    if (entry.connection !== connection) throw entry.error ?? notConnected(entry);
    if (entry.config.failIfNoTools && entry.tools.length === 0) {
      const failure = new McpxError(
        ErrorCode.ServerRejected,
        `'${entry.config.name}' offers no tools and fail_if_no_tools is set`,
        {
          server: entry.config.name,
          origin: entry.config.origin,
          fixes: ['check the server, or remove fail_if_no_tools from its config entry'],
        },
      );
      entry.connection = undefined;
      await connection.close();
      this.#setState(entry, 'error', failure);
      throw failure;
    }
    this.#setState(entry, entry.inFlight > 0 ? 'busy' : 'ready');
    return connection;
  }

  async #refreshTools(
    entry: Entry,
    connection: ServerConnection,
    options: { throwOnFailure: boolean },
  ): Promise<void> {
    try {
      const listed = await connection.listTools();
      entry.tools = filterTools(entry.config, listed);
      entry.listingErrors.delete('tools');
      this.#emit({ type: 'catalog', server: entry.config.name, kind: 'tools', tools: entry.tools, listed });
    } catch (error) {
      const failure = this.#listingFailed(entry, 'tools', toMcpxError(error));
      entry.tools = [];
      if (options.throwOnFailure) throw failure;
    }
  }

  /**
   * List what `name` declares beyond its tools (resources and prompts), so a
   * listing that fails shows in its status (`mcpx doctor`). Never throws: a
   * failure is kept as the server's `listingError`. A server not connected is left alone.
   */
  async checkListings(name: string): Promise<void> {
    const entry = this.#entry(name);
    const connection = entry.connection;
    if (!connection || connection.closed) return;
    const { resources, prompts } = connection.capabilities;
    const checks: Array<[ListKind, () => Promise<unknown>]> = [];
    if (resources) checks.push(['resources', () => connection.listResources()]);
    if (prompts) checks.push(['prompts', () => connection.listPrompts()]);
    await Promise.all(
      checks.map(async ([kind, list]) => {
        try {
          await list();
          entry.listingErrors.delete(kind);
        } catch (error) {
          this.#listingFailed(entry, kind, toMcpxError(error));
        }
      }),
    );
  }

  /** Keep a failed listing in the server's status (and say so to listeners); returns the error kept. */
  #listingFailed(entry: Entry, kind: ListKind, failure: McpxError): McpxError {
    const { name } = entry.config;
    const error = locate(
      new McpxError(
        failure.code,
        `'${name}' is connected, but listing its ${kind} failed: ${failure.message}`,
        {
          ...failure.context,
          server: name,
          cause: failure,
          causes: failure.causes,
          fixes: [
            ...failure.fixes,
            'run the command again with --verbose to see what the server says on stderr',
            ...(kind === 'tools' ? [`${this.#retryAdvice(name)} lists its tools again`] : []),
          ],
        },
      ),
      entry.config,
    );
    entry.listingErrors.set(kind, error);
    const retry = kind === 'tools' ? ` — ${this.#retryAdvice(name)} tries again` : '';
    this.#emit({ type: 'warning', server: name, message: `${error.message}${retry}`, error, listing: kind });
    return error;
  }

  #onListChanged(entry: Entry, kind: ListKind): void {
    if (kind !== 'tools') {
      // A server announcing thousands of changes must not become thousands of notifications to
      // every client, each then listing again. Nothing is re-listed here (a client lists afresh
      // when told), so a burst is coalesced in time, where the tools' re-listing folds it.
      let announce = entry.listChanges.get(kind);
      if (!announce) {
        announce = throttle(() => {
          if (!this.#closed) this.#emit({ type: 'catalog', server: entry.config.name, kind });
        });
        entry.listChanges.set(kind, announce);
      }
      announce();
      return;
    }
    // Re-list at once (no debounce), one after another, bursts folded into one queued re-listing:
    // `toolsSettled()` then tells a caller when the definitions it holds are the announced ones.
    if (entry.refreshQueued) return;
    entry.refreshQueued = true;
    const next = (entry.toolsRefresh ?? Promise.resolve()).then(async () => {
      entry.refreshQueued = false;
      const connection = entry.connection;
      if (connection && !connection.closed)
        await this.#refreshTools(entry, connection, { throwOnFailure: false });
    });
    entry.toolsRefresh = next;
    void next.finally(() => {
      if (entry.toolsRefresh === next) delete entry.toolsRefresh;
    });
  }

  /**
   * Resolves once the tools of `name` reflect every tools/list_changed the
   * server has announced so far, so a permission decision is never taken on a
   * definition the server has already replaced.
   */
  async toolsSettled(name: string): Promise<void> {
    await this.#entry(name).toolsRefresh;
  }

  /**
   * The re-listing of `name`'s tools still to finish, if any: what `toolsSettled()` waits for,
   * without a promise per call when there is none (the gateway asks on every call).
   */
  toolsRefreshing(name: string): Promise<void> | undefined {
    return this.#entry(name).toolsRefresh;
  }

  #onConnectionLost(entry: Entry, connection: ServerConnection, reason: McpxError | undefined): void {
    if (entry.connection !== connection) return;
    entry.connection = undefined;
    if (entry.stopped || entry.state === 'stopping' || entry.state === 'stopped') return;
    entry.attempts += 1;
    entry.lost = true;
    const failure =
      reason ??
      new McpxError(ErrorCode.ConnectionClosed, `the connection to '${entry.config.name}' was lost`, {
        server: entry.config.name,
      });
    this.#setState(entry, 'error', failure);
    this.#scheduleEager(entry);
  }

  #scheduleEager(entry: Entry): void {
    if (this.#policy.mode !== 'eager' || this.#closed || entry.stopped) return;
    if (entry.attempts >= this.#policy.maxAttempts) {
      this.#emit({
        type: 'warning',
        server: entry.config.name,
        message: `gave up reconnecting to '${entry.config.name}' after ${entry.attempts} attempt${entry.attempts === 1 ? '' : 's'}`,
        ...(entry.error ? { error: entry.error } : {}),
      });
      return;
    }
    const delay = reconnectDelay(this.#policy, entry.attempts + 1, this.#random);
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (entry.stopped || this.#closed || (entry.connection && !entry.connection.closed)) return;
      this.#ensureConnected(entry).catch(() => undefined);
    }, delay);
    entry.timer.unref?.();
  }

  async #stop(entry: Entry): Promise<void> {
    entry.stopped = true;
    clearTimeout(entry.timer);
    for (const announce of entry.listChanges.values()) announce.stop();
    const pending = entry.connecting;
    if (pending) await pending.catch(() => undefined);
    const connection = entry.connection;
    entry.connection = undefined;
    if (!connection) {
      if (entry.state !== 'created' && entry.state !== 'stopped') this.#setState(entry, 'stopping');
      if (entry.state !== 'created') this.#setState(entry, 'stopped');
      return;
    }
    this.#setState(entry, 'stopping');
    await connection.close();
    this.#setState(entry, 'stopped');
  }

  #setState(entry: Entry, state: ServerState, failure?: McpxError): void {
    const error = failure && locate(failure, entry.config);
    const previous = entry.state;
    if (previous === state && !error) return;
    if (!canTransition(previous, state)) return;
    entry.state = state;
    if (state === 'error') entry.error = error;
    else if (state === 'ready') entry.error = undefined;
    this.#emit({ type: 'state', server: entry.config.name, state, previous, ...(error ? { error } : {}) });
  }

  #emit(event: RegistryEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // a listener's bug must not break the registry
      }
    }
  }
}

function isVisible(entry: Entry, agentId: string | undefined): boolean {
  return entry.shared || agentId === undefined || entry.owner === agentId;
}

/** The first listing failure that counts: only a connected server's (a down one has its own error). */
function listingError(entry: Entry): McpxError | undefined {
  if (!entry.connection || (entry.state !== 'ready' && entry.state !== 'busy')) return undefined;
  const errors = entry.listingErrors;
  return errors.get('tools') ?? errors.get('resources') ?? errors.get('prompts');
}

function snapshot(entry: Entry): Omit<ServerStatus, 'usable'> {
  const listing = listingError(entry);
  return {
    name: entry.config.name,
    config: entry.config,
    state: entry.state,
    condition: listing ? 'listing-failed' : entry.state,
    ...(listing ? { listingError: listing } : {}),
    tools: entry.tools,
    shared: entry.shared,
    attempts: entry.attempts,
    ...(entry.error ? { error: entry.error } : {}),
    ...(entry.connection ? { connection: entry.connection } : {}),
    ...(entry.owner !== undefined ? { owner: entry.owner } : {}),
  };
}

function unknownServer(name: string, known?: readonly string[]): McpxError {
  return new McpxError(ErrorCode.UnknownServer, `no server named '${name}'`, {
    ...(known
      ? { fixes: [known.length ? `known servers: ${known.join(', ')}` : 'no servers are configured'] }
      : {}),
  });
}

function notConnected(entry: Entry): McpxError {
  return new McpxError(ErrorCode.ConnectionClosed, `'${entry.config.name}' is not connected`, {
    server: entry.config.name,
    origin: entry.config.origin,
    fixes: [`connect it again (\`/mcp connect ${entry.config.name}\` in the shell)`],
  });
}

function gaveUp(entry: Entry, attempts: number): McpxError {
  return new McpxError(
    ErrorCode.ConnectionClosed,
    `'${entry.config.name}' failed ${attempts === 1 ? 'once' : `${attempts} times in a row`}; not reconnecting again`,
    {
      server: entry.config.name,
      origin: entry.config.origin,
      attempts,
      ...(entry.error?.context.stderrTail ? { stderrTail: entry.error.context.stderrTail } : {}),
      cause: entry.error,
      fixes: ['fix the server (see `mcpx doctor`), then connect it again'],
    },
  );
}
