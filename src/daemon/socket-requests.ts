import type { Socket } from 'node:net';
import type { ServerConfig } from '../config/index.js';
import {
  type CallerOffer,
  controlLine,
  DAEMON_PROTOCOL,
  type DaemonCallerInfo,
  type DaemonReply,
  type DaemonRequest,
  type DaemonStatus,
  errorToWire,
  readLine,
  readOffer,
  writeLine,
} from '../daemon-client/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../errors/index.js';
import type { ServingMetrics } from '../metrics/index.js';
import { ServingStdioTransport } from '../transport/index.js';
import type { Attach } from './attach.js';
import { type GatewayCommand, serveGatewaySession } from './gateway-session.js';
import { type RunCommand, serveRun } from './serve-run.js';

// Requests wait this long for their first line; a client that says nothing is dropped.
const REQUEST_TIMEOUT_MS = 10_000;

/** What the daemon's socket answers with: each request kind's handler. */
export interface SocketRequestHandlers {
  readonly attach: Attach;
  /** Why this daemon does not serve `config` for a caller, if it does not. */
  readonly refusal: (config: ServerConfig) => McpxError | undefined;
  readonly status: () => DaemonStatus;
  readonly metrics?: ServingMetrics;
  readonly runCommand?: RunCommand;
  readonly runGateway?: GatewayCommand;
  readonly onStop: () => void;
}

/** One connection to the daemon's socket: its request read, and routed by its `op`. */
export async function answerSocket(socket: Socket, handlers: SocketRequestHandlers): Promise<void> {
  let request: DaemonRequest;
  try {
    request = JSON.parse(await readLine(socket, REQUEST_TIMEOUT_MS)) as DaemonRequest;
    if (request.protocol !== DAEMON_PROTOCOL) throw new Error(`unknown protocol ${String(request.protocol)}`);
  } catch (error) {
    reply(socket, {
      ok: false,
      error: errorToWire(
        new McpxError(
          ErrorCode.DaemonUnavailable,
          `the mcpx daemon could not read the request: ${(error as Error).message}`,
          {
            fixes: ['a different mcpx version may be running: run `mcpx daemon restart`'],
          },
        ),
      ),
    });
    socket.end();
    return;
  }
  if (request.op === 'status') {
    reply(socket, { ok: true, status: handlers.status() });
    socket.end();
  } else if (request.op === 'metrics') {
    const text = (await handlers.metrics?.prometheus()) ?? '';
    reply(socket, { ok: true });
    socket.end(text);
  } else if (request.op === 'run') {
    reply(socket, { ok: true });
    const { protocol: _protocol, op: _op, ...run } = request;
    if (handlers.runCommand) await serveRun(socket, run, handlers.runCommand);
    else {
      writeLine(socket, { t: 'direct' });
      socket.end();
    }
  } else if (request.op === 'gateway') {
    reply(socket, { ok: true });
    const { protocol: _protocol, op: _op, ...session } = request;
    if (handlers.runGateway) await serveGatewaySession(socket, session, handlers.runGateway);
    else socket.end(controlLine({ t: 'direct' }));
  } else if (request.op === 'stop') {
    reply(socket, { ok: true });
    socket.end();
    handlers.onStop();
  } else if (request.op === 'serve') {
    const refused = handlers.refusal(request.server);
    if (refused) {
      reply(socket, { ok: false, error: errorToWire(refused) });
      socket.end();
      return;
    }
    await serve(
      socket,
      handlers.attach,
      request.server,
      callerInfo(request.caller),
      readOffer(request.offer),
    );
  }
}

/** A caller joined to its server's instance, served over the socket as MCP. */
async function serve(
  socket: Socket,
  attach: Attach,
  config: ServerConfig,
  caller: DaemonCallerInfo | undefined,
  offer: CallerOffer,
): Promise<void> {
  let attached: Awaited<ReturnType<Attach>>;
  try {
    attached = await attach(config, caller, offer);
  } catch (error) {
    reply(socket, { ok: false, error: errorToWire(toMcpxError(error)) });
    socket.end();
    return;
  }
  const { serveOn, ...said } = attached;
  reply(socket, { ok: true, ...said });
  // mcpx's own newline transport, as `mcpx serve`'s stdio: no zod parse of every line.
  const leave = serveOn(new ServingStdioTransport(socket, socket));
  // readLine() paused the socket; a listener added to a paused stream does not resume it.
  socket.resume();
  socket.once('close', () => void leave());
}

/** The caller's introduction as far as it is well formed (its words reach a terminal only through forTerminal). */
function callerInfo(value: unknown): DaemonCallerInfo | undefined {
  const { pid, command } = (value ?? {}) as Partial<DaemonCallerInfo>;
  if (typeof command !== 'string') return undefined;
  return { ...(Number.isSafeInteger(pid) ? { pid: pid as number } : {}), command: command.slice(0, 80) };
}

function reply(socket: Socket, value: DaemonReply): void {
  writeLine(socket, value);
}
