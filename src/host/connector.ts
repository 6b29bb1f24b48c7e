/**
 * The one connector: a server's config in, a live connection out, over mcpx's
 * own transports (stdio, Streamable HTTP with the SSE fallback) and the era
 * negotiation. The host, the library's `defaultConnector` and (decorated by
 * `daemon-client/route.ts`) the daemon's route all connect through it.
 *
 * A stdio server is spawned before the protocol stack loads, so it boots
 * meanwhile: the SDK and its schemas are most of a cold start.
 */
import type { LoggingLevel } from '@modelcontextprotocol/client';
import type { Tracer, TracerProvider } from '@opentelemetry/api';
import type { ClientFeatures } from '../client/features.js';
import type { EraCache, ManagedTransport, ServerConnection, ServerLogEvent } from '../client/index.js';
import { createServerTransport, type TransportHooks } from '../client/transport-factory.js';
import type { ServerConfig } from '../config/index.js';
import { assertApproved } from '../config/loading.js';
import type { Connector, RoutableConnector } from '../registry/index.js';
import { type TracingCode, tracingIfLive } from '../tracing/presence.js';
import type { SdkDiagnostic } from '../transport/index.js';
import { createStdioServerTransport } from '../transport/index.js';

export type { RoutableConnector, RoutedHooks } from '../registry/index.js';

export interface ConnectorOptions {
  /** Transport hooks for one server: its environment, stderr, installs, sign-in. */
  readonly transportHooks: (server: ServerConfig) => TransportHooks;
  /** Remembers which era each server speaks; a function is called on the first connect (opened lazily). */
  readonly eraCache?: EraCache | (() => Promise<EraCache | undefined>);
  /** Defaults for servers whose config sets none. */
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  /** Wins over every server's own timeouts (the CLI's `--timeout`). */
  readonly timeoutMs?: number;
  readonly onLog?: (event: ServerLogEvent) => void;
  /** Asks each server for its log messages from this level up, once connected. */
  readonly logLevel?: LoggingLevel;
  readonly onSdkDiagnostic?: (diagnostic: SdkDiagnostic) => void;
  /** Roots, sampling and elicitation for one server (capabilities are declared only for these). */
  readonly features?: (
    server: ServerConfig,
  ) => ClientFeatures | undefined | Promise<ClientFeatures | undefined>;
  /** False: no list-changed notifications are listened for (a one-shot command). */
  readonly listChanges?: boolean;
  /** The connect's signal when the registry passes none. */
  readonly signal?: AbortSignal;
  /** A process spawned already for this server (`Host.connect`), taken by its first connect. */
  readonly takeEarly?: (server: string) => ManagedTransport | undefined;
  /** Where the spans of each connect and what it sends go (default: the global API's). */
  readonly tracerProvider?: TracerProvider;
}

/** The tracing code and mcpx's tracer, when a span could record. */
export interface Traced {
  readonly tracing: TracingCode;
  readonly tracer: Tracer;
}

/**
 * The tracing code and mcpx's tracer from `provider` (or the global API's) when a span could
 * record: a provider given, or one registered globally. Otherwise `undefined` at once, and
 * OpenTelemetry's API is not loaded (a plain call never reads it; see tracing/presence.ts).
 */
export function tracedBy(provider: TracerProvider | undefined): Traced | Promise<Traced> | undefined {
  const tracing = tracingIfLive(provider !== undefined);
  const traced = (code: TracingCode): Traced => ({ tracing: code, tracer: code.mcpxTracer(provider) });
  return tracing instanceof Promise ? tracing.then(traced) : tracing && traced(tracing);
}

export function createConnector(options: ConnectorOptions): RoutableConnector {
  const { timeoutMs } = options;
  let eraCache: Promise<EraCache | undefined> | undefined;
  // Async, so that an unapproved entry is a rejected connect, as every other failure is.
  return async (given, hooks) => {
    assertApproved(given);
    // Without tracing nothing is awaited first: the spawn happens in this call's own turn.
    const found = tracedBy(options.tracerProvider);
    const traced = found instanceof Promise ? await found : found;
    if (!traced) return connect(given, hooks, undefined);
    const attributes = {
      [traced.tracing.ATTR_MCPX_SERVER]: given.name,
      'mcpx.routed': hooks.transports !== undefined,
    };
    return traced.tracing.inSpan(traced.tracer, `connect ${given.name}`, { attributes }, () =>
      connect(given, hooks, traced),
    );
  };

  async function connect(
    given: Parameters<RoutableConnector>[0],
    hooks: Parameters<RoutableConnector>[1],
    traced: Traced | undefined,
  ) {
    const server =
      timeoutMs === undefined
        ? given
        : { ...given, connectTimeoutMs: timeoutMs, requestTimeoutMs: timeoutMs };
    const routed = hooks.transports;
    const signal = hooks.signal ?? options.signal;
    const transportHooks = routed ? undefined : options.transportHooks(server);
    let early = transportHooks
      ? (options.takeEarly?.(server.name) ??
        (signal?.aborted ? undefined : spawnTraced(traced, server, transportHooks)))
      : undefined;
    try {
      const { connectServer } = await import('../client/server-connection.js');
      // A routed server speaks the daemon's 2025 MCP whatever its own era: no probe, nothing to remember.
      eraCache ??= openEraCache(options.eraCache);
      const cache = routed ? undefined : await eraCache;
      const features = await options.features?.(server);
      const connection = await connectServer(server, {
        createTransport: () => {
          if (routed) return routed();
          const transport = early ?? createServerTransport(server, transportHooks as TransportHooks);
          early = undefined;
          return transport;
        },
        ...(options.listChanges === false ? {} : { onListChanged: hooks.onListChanged }),
        ...(signal ? { signal } : {}),
        ...(cache ? { eraCache: cache } : {}),
        ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
        ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
        ...(options.onLog ? { onLog: options.onLog } : {}),
        ...(options.onSdkDiagnostic ? { onSdkDiagnostic: options.onSdkDiagnostic } : {}),
        ...(features ? { features } : {}),
        ...(traced ? { tracer: traced.tracer } : {}),
      });
      // The verdict is kept for the next run (a file cache writes only here); failing to write
      // it costs that run one probe, nothing more.
      await cache?.flush().catch(() => {});
      if (options.logLevel) await askForLogs(connection, options.logLevel);
      return connection;
    } finally {
      // Whatever ended the connect before it asked for a transport, the early process goes with it.
      await early?.close();
    }
  }
}

/** `spawnEarly`, as a `spawn` span (its process's executable named) when traced. */
export function spawnTraced(
  traced: Traced | undefined,
  server: ServerConfig,
  hooks: TransportHooks,
): ManagedTransport | undefined {
  if (server.transport !== 'stdio' || !server.command) return undefined;
  if (!traced) return spawnEarly(server, hooks);
  return traced.tracing.inSpanSync(
    traced.tracer,
    'spawn',
    { attributes: { 'process.executable.name': server.command } },
    () => spawnEarly(server, hooks),
  );
}

async function openEraCache(given: ConnectorOptions['eraCache']): Promise<EraCache | undefined> {
  return typeof given === 'function' ? given() : given;
}

/** Start a stdio server's process now, before the protocol code loads; undefined for any other. */
export function spawnEarly(server: ServerConfig, hooks: TransportHooks): ManagedTransport | undefined {
  if (server.transport !== 'stdio' || !server.command) return undefined;
  try {
    const transport = createStdioServerTransport({ ...server, command: server.command }, hooks);
    transport.spawnEarly();
    return transport;
  } catch {
    return undefined; // the connect builds it again, and reports the failure as any other
  }
}

/**
 * Ask for log messages from `level` up. On 2026-07-28 the level rides on each
 * request's `_meta` (without one a modern server sends none); a 2025 server is asked
 * with logging/setLevel when it declares logging. A refusal only costs the logs.
 */
async function askForLogs(connection: ServerConnection, level: LoggingLevel): Promise<void> {
  if (connection.era === 'legacy' && !connection.capabilities.logging) return;
  await connection.setLoggingLevel(level).catch(() => {});
}

/** How `defaultConnector` connects servers: the transport hooks, the era cache, timeouts, server logs and client features. */
export interface DefaultConnectorOptions extends TransportHooks {
  /** Remembers which protocol era each server speaks (`openFileEraCache(home)`), so later starts skip the probe. */
  readonly eraCache?: EraCache;
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly onLog?: (event: ServerLogEvent) => void;
  /** Roots, sampling and elicitation handlers (capabilities are declared only for these). */
  readonly features?: ClientFeatures;
}

/**
 * The registry's connector for library users who build their own registry
 * (`createHost` builds one for you): the one connector, with the same
 * transport hooks and features for every server.
 */
export function defaultConnector(options: DefaultConnectorOptions): Connector {
  const { eraCache, connectTimeoutMs, requestTimeoutMs, onLog, features, ...hooks } = options;
  return createConnector({
    transportHooks: () => hooks,
    ...(eraCache ? { eraCache } : {}),
    ...(connectTimeoutMs ? { connectTimeoutMs } : {}),
    ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    ...(onLog ? { onLog } : {}),
    ...(features ? { features: () => features } : {}),
  });
}
