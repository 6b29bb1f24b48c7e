/**
 * The thin `mcpx serve`'s protocol (`op: 'gateway'`): the caller sends its
 * command line (as the light caller does, `run-wire.ts`) and the daemon runs
 * that `mcpx serve` session itself, on the servers it holds. After the hello
 * the socket carries the session's MCP stream as it is, both ways: the caller
 * pipes its stdin in and the daemon's bytes out to its stdout, parsing nothing.
 * The daemon's few words for the caller (stderr text, go, direct, exit) are
 * lines that start with CONTROL, a byte JSON text never holds unescaped, so
 * the caller finds them with one `indexOf` per chunk.
 */
import type { RunRequest } from './run-wire.js';

/** ASCII record separator: JSON.stringify escapes every control character, so no MCP line holds it. */
export const CONTROL = 0x1e;

/** What the thin serve sends after the hello: its command line, and its pid for `daemon status`. */
export interface GatewayRequest extends RunRequest {
  readonly pid?: number;
}

/** Daemon → caller, each as CONTROL + JSON + newline, between whole MCP lines. */
export type GatewayEvent =
  /** The session is the daemon's: pipe stdin in from now on (nothing was read before). */
  | { readonly t: 'go' }
  /** Not the daemon's to serve (a server it does not hold, a flag it cannot): run serve in full here. */
  | { readonly t: 'direct' }
  /** Text for the caller's stderr (the session's notices). */
  | { readonly t: 'err'; readonly text: string }
  /** The session ended: the caller exits with this code. */
  | { readonly t: 'exit'; readonly code: number };

export function controlLine(event: GatewayEvent): string {
  return `${String.fromCharCode(CONTROL)}${JSON.stringify(event)}\n`;
}
