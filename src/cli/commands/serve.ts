import { randomUUID } from 'node:crypto';
import { ErrorCode, McpxError } from '../../errors/index.js';
import type { GatewayEvent } from '../../gateway/index.js';
import { claimConsole } from '../../host/index.js';
import type { Metrics } from '../../metrics/index.js';
import type { CliDoor } from '../context/context.js';
import { noticeHeldSettings } from '../context/held-settings.js';
import { permissionFlag, profileFlag } from '../context/permission-level.js';
import { ExitCode } from '../io/exit-codes.js';
import type { CliIo } from '../io/io.js';
import { openAccessLog } from '../serve/access-log.js';
import { checkServeFlags, readServeSettings, type ServeOptions, servePolicy } from '../serve/serve-flags.js';

export type { ServeOptions } from '../serve/serve-flags.js';

/**
 * `mcpx serve`: the configured servers as one MCP server, on stdio or (with
 * --http) on Streamable HTTP, until stdin closes or SIGTERM/SIGINT; then the
 * calls in flight finish and every upstream is closed. The gateway is
 * `createGateway` over the session's host; this is its flags and its words.
 */
export async function runServe(door: CliDoor, options: ServeOptions): Promise<number> {
  const { io } = door;
  // This process is the gateway's alone: no per-call console capture (see claimConsole).
  claimConsole();
  const token = checkServeFlags(options);
  // It runs until stopped: a script waits on its notices (where it listens) as they come.
  io.jsonStderr?.writeEachLine();
  const settings = readServeSettings(options, token);
  const permission = permissionFlag(options.permission);
  const { createGateway, gatewayWiring, openFleetState, servedServers } = await import(
    '../../gateway/index.js'
  );
  // The gateway's client answers what servers and the permission engine ask; trust stays here.
  const wiring = gatewayWiring();
  const session = door.open({
    command: 'mcpx serve',
    profile: profileFlag(options.profile, io),
    permission,
    policy: servePolicy(options),
    answers: wiring.ask,
    serverLogs: { listener: wiring.serverLogs.listener },
    // The built-in demo is offered only when nothing else is configured (as agents get it).
    omitBuiltinWhenConfigured: true,
    daemon: { label: 'mcpx serve' },
    reconnect: 'lazy',
  });
  // A repository's file can only lower the level, and only once trusted, as for chat and the shell.
  await noticeHeldSettings(session);
  // A profile asking for more than the level in force fails here, before anything is served.
  await session.host.permissionLevel();
  const metrics = await startMetrics(io.env, settings.http !== undefined);
  // Inside the daemon for a thin serve (cli/daemon-handoff/thin-serve.ts): the session is the
  // daemon's only when every server it serves is held there; else it goes back, unread, to a full
  // `mcpx serve`.
  const caller = io.daemonCaller;
  if (caller) {
    if (settings.http || options.accessLog !== undefined) throw caller.direct('--http');
    for (const server of await servedServers(session.host, settings))
      if (!(await session.host.daemon?.routes(server))) throw caller.direct(server.name);
    caller.warm();
  }
  // A fleet instance that cannot reach its shared state does not start (fleet-state.ts says why).
  const fleet =
    settings.http && options.state !== undefined
      ? await openFleetState(options.state, {
          instanceId: settings.http.instanceId ?? randomUUID().slice(0, 8),
        }).catch(async (error: unknown) => {
          await metrics?.shutdown();
          throw error;
        })
      : undefined;
  const log =
    options.accessLog === undefined
      ? undefined
      : openAccessLog({
          target: options.accessLog,
          logArguments: Boolean(options.logArguments),
          stderr: io.stderr,
          notice: (message) => session.notice(message),
        });
  // The gateway's tool calls reach the access log as the audit log records them.
  const unhook = log ? session.host.audit().add(log) : undefined;
  const gateway = await createGateway(session.host, {
    ...settings,
    ...(settings.http ? { http: { ...settings.http, ...(fleet ? { fleet } : {}) } } : {}),
    wiring,
    ...(settings.http ? {} : { stdio: { stdin: io.stdin ?? process.stdin, stdout: protocolOut(io) } }),
    // Its tool calls come from the audit trail (see above), with the rest of the audit log's.
    ...(log ? { onRequest: (event) => event.method !== 'tools/call' && log.record(event) } : {}),
    ...(metrics ? { metrics } : {}),
    // MCPX_GATEWAY_FAST_PATH=0: every request the full way (to compare the two, or to rule it out).
    fastPath: io.env.MCPX_GATEWAY_FAST_PATH !== '0',
    watchConfig: true,
    on: (event) => session.notice(describe(event)),
  }).catch(async (error: unknown) => {
    unhook?.();
    await log?.close();
    await metrics?.shutdown();
    await fleet?.close();
    throw error;
  });
  // One reload at a time (the gateway queues them): a saved file and a SIGHUP together do not interleave.
  const stopHangup = io.onHangup?.(() => void gateway.reload());
  if (gateway.url !== undefined) {
    const n = gateway.servers.length;
    session.notice(`mcpx serve: listening on ${gateway.url} (${n} server${n === 1 ? '' : 's'})`);
  }
  await Promise.race([gateway.closed, stopped(io.signal)]);
  stopHangup?.();
  await gateway.close();
  if (session.options.verbose) session.notice(`mcpx serve: ${gateway.fastCalls} call(s) took the fast path`);
  unhook?.();
  await log?.close();
  await metrics?.shutdown();
  await fleet?.close();
  return ExitCode.Ok;
}

/**
 * The gateway's metrics: over HTTP always (`GET /metrics`); on stdio only when the environment
 * names an OTLP destination, the one place they could go, so a plain stdio serve never loads the SDK.
 */
async function startMetrics(
  env: Readonly<Record<string, string | undefined>>,
  http: boolean,
): Promise<Metrics | undefined> {
  const otlpNamed =
    env.OTEL_METRICS_EXPORTER !== undefined ||
    env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined ||
    env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT !== undefined;
  if (!http && !otlpNamed) return undefined;
  const { createMetrics } = await import('../../metrics/index.js');
  const metrics = await createMetrics({ env });
  if (http || metrics.otlp) return metrics;
  await metrics.shutdown();
  return undefined;
}

function describe(event: GatewayEvent): string {
  const list = (names: readonly string[]) => (names.length ? names.join(', ') : 'none');
  switch (event.type) {
    case 'unavailable':
      return `mcpx serve: '${event.server}' is not available: ${event.error.message}`;
    case 'no-tools':
      return `mcpx serve: '${event.server}' offers no tools: ${event.error.message}`;
    case 'reloaded': {
      const { added, removed, restarted } = event.result;
      return `mcpx serve: config reloaded — added ${list(added)}; removed ${list(removed)}; restarted ${list(restarted)}`;
    }
    case 'not-reloaded':
      return `mcpx serve: config not reloaded, still serving the previous one: ${event.error.message}`;
    case 'catalogue-unusable':
      return `mcpx serve: a remembered tool list is not used: ${event.error.message}`;
    case 'fleet-store':
      return `mcpx serve: ${event.error.message}`;
    case 'sse-overflow':
      return `mcpx serve: ended SSE session ${event.sessionId}: its client left ${event.buffered} bytes unread on its stream (the limit is ${event.limit}); it must read its stream, or open a new one`;
  }
}

function stopped(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** stdout as the stdio gateway's byte channel: JSON-RPC lines, never a person's text. */
function protocolOut(io: CliIo): NodeJS.WritableStream {
  if (io.protocolOut) return io.protocolOut;
  throw new McpxError(ErrorCode.Internal, 'mcpx serve over stdio has no stdout to serve on');
}
