import type { Socket } from 'node:net';
import type { ServerConfig } from '../config/index.js';
import { type ErrorCode, McpxError } from '../errors/index.js';
import type { CallerOffer } from './caller-offer.js';
import type { GatewayRequest } from './gateway-wire.js';
import type { DAEMON_PROTOCOL, RunRequest } from './run-wire.js';

/**
 * The socket protocol: one JSON line from the client saying what it wants, one
 * JSON line back; after a `serve` the connection is plain MCP (newline JSON,
 * as on stdio) with that one server, re-served transparently. After a `run`
 * (the light caller, see `run-wire.ts`) it is the caller's terminal as JSON lines;
 * after a `gateway` (the thin serve, `gateway-wire.ts`) its client's MCP stream.
 */
export { DAEMON_PROTOCOL } from './run-wire.js';

export type DaemonRequest =
  | {
      readonly protocol: typeof DAEMON_PROTOCOL;
      readonly op: 'serve';
      readonly server: ServerConfig;
      /** Who the connection serves, for `daemon status` (an older caller says nothing). */
      readonly caller?: DaemonCallerInfo;
      /** What the caller can answer for the server (`caller-offer.ts`); absent: nothing. */
      readonly offer?: CallerOffer;
    }
  | ({ readonly protocol: typeof DAEMON_PROTOCOL; readonly op: 'run' } & RunRequest)
  /** A thin `mcpx serve` (see `gateway-wire.ts`): the daemon runs its session. */
  | ({ readonly protocol: typeof DAEMON_PROTOCOL; readonly op: 'gateway' } & GatewayRequest)
  | { readonly protocol: typeof DAEMON_PROTOCOL; readonly op: 'status' }
  /**
   * The daemon's metrics in the Prometheus text format (`mcpx daemon metrics`): after the
   * reply line, the text itself until the daemon ends the connection (a reply line is capped).
   */
  | { readonly protocol: typeof DAEMON_PROTOCOL; readonly op: 'metrics' }
  | { readonly protocol: typeof DAEMON_PROTOCOL; readonly op: 'stop' };

/** The process a connection to a held server belongs to, as it introduces itself. */
export interface DaemonCallerInfo {
  /** Absent for a command the daemon runs for a light caller (it is the daemon's own). */
  readonly pid?: number;
  /** What it is, for a person: `mcpx serve`, `mcpx call`. */
  readonly command: string;
}

/** One caller connected to an instance now: an `mcpx serve` session, a command in flight. */
export interface DaemonSessionStatus {
  readonly pid?: number;
  readonly command: string;
  /** Since it joined the instance. */
  readonly sinceMs: number;
  /** Its `tools/call` requests on this instance. */
  readonly calls: number;
}

/** One instance the daemon holds: a server for one distinct environment. */
export interface WarmServerStatus {
  readonly name: string;
  /**
   * Which instance of `name` this is: a short keyed digest of the entry as its
   * callers resolved it (their env_passthrough values, their `${VAR}`s) and of
   * what they can answer (`offers`), never the values.
   */
  readonly envTag: string;
  /** What its server was told its client can answer (`roots`, `sampling`, `elicitation`); absent from an older daemon. */
  readonly offers?: readonly string[];
  readonly state: string;
  /** Since the server's current process connected; absent while it is not running. */
  readonly uptimeMs?: number;
  readonly calls: number;
  readonly lastError?: string;
  readonly pid?: number;
  /** The callers using it now, each with its own calls (absent from an older daemon). */
  readonly sessions?: readonly DaemonSessionStatus[];
}

export interface DaemonStatus {
  readonly pid: number;
  readonly uptimeMs: number;
  readonly all: boolean;
  readonly clients: number;
  readonly servers: readonly WarmServerStatus[];
}

export interface WireError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly context?: Record<string, unknown>;
  readonly causes?: readonly string[];
  readonly fixes?: readonly string[];
}

export type DaemonReply =
  | {
      readonly ok: true;
      readonly notice?: string;
      readonly status?: DaemonStatus;
      /** The held server's own protocol version (the socket link speaks 2025-11-25 whatever it is). */
      readonly protocolVersion?: string;
    }
  | { readonly ok: false; readonly error: WireError };

// A request line carries one server config: far below this.
const MAX_LINE_BYTES = 1024 * 1024;

export function errorToWire(error: McpxError): WireError {
  return {
    code: error.code,
    message: error.message,
    context: { ...error.context },
    causes: error.causes,
    fixes: error.fixes,
  };
}

export function errorFromWire(wire: WireError): McpxError {
  return new McpxError(wire.code, wire.message, {
    ...(wire.context ?? {}),
    causes: wire.causes ?? [],
    fixes: wire.fixes ?? [],
  });
}

/**
 * Read one line from the socket, then put back whatever came after it (the
 * first MCP messages may share the chunk) and pause, for the next reader.
 */
export function readLine(socket: Socket, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error('no answer in time')), timeoutMs);
    const finish = (error: Error | undefined, line?: string) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
      if (error) reject(error);
      else resolve(line as string);
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf(10);
      if (end === -1) {
        if (buffer.length > MAX_LINE_BYTES) finish(new Error('request line too long'));
        return;
      }
      socket.pause();
      const rest = buffer.subarray(end + 1);
      if (rest.length) socket.unshift(rest);
      finish(undefined, buffer.subarray(0, end).toString('utf8'));
    };
    const onClose = () => finish(new Error('the connection closed'));
    const onError = (error: Error) => finish(error);
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.once('error', onError);
    socket.resume();
  });
}

export function writeLine(socket: Socket, value: unknown): void {
  socket.write(`${JSON.stringify(value)}\n`);
}
