import type { ServerLogEvent } from '../client/index.js';
import type { McpxError } from '../errors/index.js';
import { forTerminal, stripTerminalControls } from '../text/index.js';
import type { PackageInstallEvent, SdkDiagnostic } from '../transport/index.js';

/**
 * What the host has to say; the library never prints, a front end shows these
 * where it shows things. Every message is one sanitized line (or a few), fit
 * for a terminal: they quote servers and repository files.
 */
export type HostEvent =
  /** Something left out or changed on the person's behalf: a skipped server, say. */
  | { readonly type: 'notice'; readonly message: string }
  /** A config's or a server's fault that did not stop anything. */
  | { readonly type: 'warning'; readonly message: string }
  /**
   * A server that was to run cannot be used as configured: it failed to start or connect
   * (command not found, a crash, a handshake timeout, no MCP on its stdout), its connection
   * was lost, or listing what it offers failed (its tools are then missing, not empty).
   * `error` is the typed error; `Host.failures()` lists those still standing.
   */
  | {
      readonly type: 'failure';
      readonly server: string;
      readonly error: McpxError;
      readonly message: string;
    }
  /** A package runner's install (npx, uvx, …), with `installs: true`. */
  | { readonly type: 'install'; readonly event: PackageInstallEvent }
  /** Only with `verbose: true`: servers' stderr and logs, retries, the SDK's diagnostics. */
  | { readonly type: 'verbose'; readonly message: string };

/** Told each `HostEvent`; given to `host.on()`. */
export type HostListener = (event: HostEvent) => void;

/** A line of a server's output, shortened. */
export function preview(line: string): string {
  const clean = forTerminal(line);
  return clean.length > 200 ? `${clean.slice(0, 200)}… (${line.length} chars)` : clean;
}

/** What the SDK said about a server; it quotes the server (tool names, schema text), so terminal controls go. */
export function formatSdkDiagnostic(diagnostic: SdkDiagnostic): string {
  const clean = stripTerminalControls(diagnostic.message.replace(/^\[mcp-sdk\]\s*/, ''));
  const text = clean.length > 1000 ? `${clean.slice(0, 1000)}…` : clean;
  return forTerminal(`${diagnostic.server}: sdk ${diagnostic.level}: ${text}`);
}

export function formatLog(event: ServerLogEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  // Level and logger come from the server too.
  return forTerminal(
    `${event.server} [${event.level}]${event.logger ? ` ${event.logger}:` : ''} ${preview(data ?? '')}`,
  );
}
