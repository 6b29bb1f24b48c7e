import { performance } from 'node:perf_hooks';
import {
  type Client,
  type ClientOptions,
  type PriorDiscovery,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { tracingIfLive } from '../tracing/presence.js';
import { linkSignal, MODERN_REVISION, outsideSdkScope, withSdkDiagnostics } from '../transport/index.js';
import { type ConnectBudget, prepareTransport } from './connect-budget.js';
import type { ConnectServerOptions, ManagedTransport } from './connect-options.js';
import { eraCacheKey, probeTimeoutMs } from './era-verdict.js';
import { registerFeatureHandlers } from './feature-handlers.js';
import { capabilitiesFor } from './features.js';
import { DEFAULT_LIST_LIMITS } from './list-bounds.js';
import { listChangedHandlers } from './list-changes.js';
import { locate } from './locate.js';
import { type ProbeWitness, witnessEraProbe } from './probe-witness.js';
import { acceptResultsWithoutResultType } from './result-type.js';
import { SdkClient } from './sdk-client.js';
import type { Link } from './sdk-server-connection.js';
import { traceRequests } from './trace-requests.js';
import { translateRequestError } from './translate-error.js';
import type { ProtocolEra } from './types.js';

// The SDK's own cap, a step behind ours (list-bounds.ts), which says more.
const LIST_MAX_PAGES = DEFAULT_LIST_LIMITS.maxPages + 1;

/** A completed handshake: the link to talk through, and what the connection built on it needs. */
export interface Handshake {
  readonly link: Link;
  readonly connectMs: number;
  /** What the era probe saw (only when this connect negotiated): for remembering the era. */
  readonly witness: ProbeWitness | undefined;
  /** Unregisters the roots subscription: run when the connection closes for good. */
  readonly cleanup: () => void;
}

/**
 * One handshake within `budget`: a fresh transport prepared, an SDK client with the host's
 * features, the connect raced against the deadline and traced as a `handshake` span. A failure
 * closes both and is the transport's own reason where it has one, located at the server.
 */
export async function handshake(
  server: ServerConfig,
  options: ConnectServerOptions,
  prior: PriorDiscovery | undefined,
  budget: ConnectBudget,
): Promise<Handshake> {
  // OpenTelemetry's code loads only when a span could record (see tracing/presence.ts).
  const tracing = await tracingIfLive(options.tracer !== undefined);
  const transport = await options.createTransport();
  let client: SdkClient | undefined;
  traceRequests(transport, {
    ...(options.tracer ? { tracer: options.tracer } : {}),
    server: server.name,
    wire: server.transport === 'stdio' || transport.relayedProtocolVersion ? 'stdio' : 'http',
    protocolVersion: () => transport.relayedProtocolVersion ?? client?.getNegotiatedProtocolVersion(),
  });
  // A remembered verdict means the server has started before: a runner has nothing left to install.
  await prepareTransport(transport, budget, prior === undefined, server, options.signal);
  const remainingMs = Math.max(1, budget.remainingMs());
  const negotiating = server.protocol === 'auto' && prior === undefined;
  const witness = negotiating ? witnessEraProbe(transport, MODERN_REVISION) : undefined;
  const spokeModern = negotiating && options.eraCache?.lastSeen?.(eraCacheKey(server))?.kind === 'modern';
  client = sdkClientFor(server, options, probeTimeoutMs(transport, remainingMs, spokeModern));
  const connecting = client;
  const cleanup = registerFeatureHandlers(client, options.features);
  acceptResultsWithoutResultType(transport, () => connecting.getProtocolEra?.() === 'modern');
  const started = performance.now();
  transport.beginConnect?.(budget.totalMs);
  // The era probe (`server/discover`) and `initialize` are its children, as the wire sends them.
  const connect = () =>
    connectWithin(connecting, transport, server, options, prior, remainingMs, budget.totalMs);
  try {
    await (tracing
      ? tracing.inSpan(
          options.tracer ?? tracing.mcpxTracer(),
          'handshake',
          {
            attributes: {
              [tracing.ATTR_MCPX_SERVER]: server.name,
              'mcpx.era.remembered': prior?.kind ?? 'none',
            },
          },
          async (span) => {
            await connect();
            span.setAttribute(tracing.ATTR_MCPX_ERA, eraOf(connecting));
            const negotiated = transport.relayedProtocolVersion ?? connecting.getNegotiatedProtocolVersion();
            if (negotiated) span.setAttribute(tracing.ATTR_MCP_PROTOCOL_VERSION, negotiated);
          },
        )
      : connect());
  } catch (error) {
    cleanup();
    throw await handshakeFailure(error, client, transport, server, options, budget.totalMs);
  }
  const era = eraOf(client);
  return { link: { client, transport, era }, connectMs: performance.now() - started, witness, cleanup };
}

const eraOf = (client: SdkClient): ProtocolEra =>
  client.getProtocolEra?.() === 'modern' ? 'modern' : 'legacy';

/** The SDK client for one handshake: the host's capabilities, the era to speak or probe for, list and log handlers. */
function sdkClientFor(server: ServerConfig, options: ConnectServerOptions, probeMs: number): SdkClient {
  const clientOptions: ClientOptions = {
    capabilities: capabilitiesFor(options.features),
    listMaxPages: LIST_MAX_PAGES,
    versionNegotiation:
      server.protocol === 'legacy'
        ? { mode: 'legacy' }
        : server.protocol === 'modern'
          ? { mode: { pin: MODERN_REVISION } }
          : { mode: 'auto', probe: { timeoutMs: probeMs } },
    ...(options.onListChanged
      ? { listChanged: listChangedHandlers(outsideSdkScope(options.onListChanged)) }
      : {}),
  };
  const client = new SdkClient(options.clientInfo ?? { name: 'mcpx', version: '0.1.0' }, clientOptions);
  if (options.onLog) {
    const onLog = outsideSdkScope(options.onLog);
    client.setNotificationHandler('notifications/message', (notification) => {
      const { level, logger, data } = notification.params;
      onLog({ server: server.name, level, ...(logger === undefined ? {} : { logger }), data });
    });
  }
  return client;
}

/** The SDK's connect raced against the deadline (both are the one connect budget). */
async function connectWithin(
  client: Client,
  transport: ManagedTransport,
  server: ServerConfig,
  options: ConnectServerOptions,
  prior: PriorDiscovery | undefined,
  remainingMs: number,
  connectTimeoutMs: number,
): Promise<void> {
  // Many servers connect at once on the host's one Ctrl-C signal: one shared listener, not one per connect.
  const link = options.signal ? linkSignal(options.signal) : undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(handshakeTimeout(server, transport, connectTimeoutMs)), remainingMs);
  });
  try {
    await Promise.race([
      withSdkDiagnostics(server.name, options.onSdkDiagnostic, () =>
        client.connect(transport, {
          timeout: remainingMs,
          ...(link ? { signal: link.signal } : {}),
          ...(prior ? { prior } : {}),
        }),
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
    link?.release();
  }
}

/** A failed handshake: both ends closed, and the error mcpx reports for it. */
async function handshakeFailure(
  error: unknown,
  client: Client,
  transport: ManagedTransport,
  server: ServerConfig,
  options: ConnectServerOptions,
  connectTimeoutMs: number,
): Promise<Error> {
  // The SDK's handshake timer and ours share a limit; whichever fires, it is a connect timeout.
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && !options.signal?.aborted) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    return handshakeTimeout(server, transport, connectTimeoutMs);
  }
  const reason = transport.closeReason?.();
  await client.close().catch(() => {});
  await transport.close().catch(() => {});
  // A request sent after the transport closed (the SDK's fallback `initialize`) says only
  // "not running": the reason it closed is the story.
  if (error instanceof McpxError) return locate(reason && error.cause === reason ? reason : error, server);
  if (options.signal?.aborted) {
    return new McpxError(ErrorCode.Cancelled, `connecting to '${server.name}' was cancelled`, {
      server: server.name,
    });
  }
  return locate(
    reason ??
      transport.failureFor?.(error) ??
      translateRequestError(error, { server: server.name, method: 'initialize' }),
    server,
  );
}

/** The handshake did not finish in time: with the stderr tail and advice for this kind of server. */
function handshakeTimeout(
  server: ServerConfig,
  transport: ManagedTransport,
  connectTimeoutMs: number,
): McpxError {
  return new McpxError(
    ErrorCode.ConnectTimeout,
    `'${server.name}' did not complete the MCP handshake within ${connectTimeoutMs} ms`,
    {
      server: server.name,
      origin: server.origin,
      timeoutMs: connectTimeoutMs,
      stderrTail: transport.stderrTail?.() ?? [],
      ...(server.command ? { command: [server.command, ...server.args].join(' ') } : {}),
      ...(server.url ? { url: server.url } : {}),
      ...handshakeTimeoutAdvice(server),
    },
  );
}

/** Why a handshake may time out, and what to do, for this kind of server. */
function handshakeTimeoutAdvice(server: ServerConfig): { causes: string[]; fixes: string[] } {
  const raise = 'raise connect_timeout (seconds) for this server in the config, or pass --timeout SECONDS';
  if (server.url) {
    return {
      causes: [
        'the server is slow to answer, or overloaded',
        'the URL is not an MCP endpoint that answers POST',
        'a proxy or firewall accepts the connection but never answers',
      ],
      fixes: [raise, `check that ${server.url} is the server's MCP endpoint`],
    };
  }
  const launcher = /(^|[\\/])(npx|uvx|bunx|pnpx|pnpm|yarn|pipx)(\.cmd|\.exe)?$/i.test(server.command ?? '');
  return {
    causes: [
      launcher
        ? `the server is still starting (${server.command} downloading a package can take a while on its first run)`
        : 'the server is still starting',
      'the command is not an MCP server, or waits for input of its own',
    ],
    fixes: [raise, 'run the command by hand to see what it prints'],
  };
}
