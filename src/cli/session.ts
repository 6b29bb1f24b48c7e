import type { LoggingLevel } from '@modelcontextprotocol/client';
import type { AuditTrail } from '../audit/index.js';
import type { LoadedConfig, ServerConfig } from '../config/index.js';
import type { DaemonPaths } from '../daemon/index.js';
import { displayPaths, type McpxError } from '../errors/index.js';
import {
  type Ask,
  type ClientFeatures,
  createHost,
  formatSdkDiagnostic,
  type Host,
  type HostEvent,
  type HostOptions,
  type HostPolicy,
  rollBackInstallsNow,
  type SdkDiagnostic,
  type ServerConnection,
  type ServerLogEvent,
} from '../host/index.js';
import type { PermissionGuard, PermissionLevel } from '../permissions/index.js';
import type { ConnectOptions, ServerRegistry } from '../registry/index.js';
import { say } from '../text/index.js';
import { adhocServer } from './adhoc-flags.js';
import { type GlobalOptions, timeoutMs } from './global-options.js';
import { heldSettingsNotices } from './held-settings.js';
import type { CliIo } from './io.js';
import { installNotice } from './output/install-notice.js';
import { terminalAsk } from './terminal-ask.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * What one CLI invocation knows: a host (src/host) asking the person at this
 * terminal, its notices on stderr, and the knobs the command sets before it
 * first uses the servers (the host reads them then).
 */
export class CliSession {
  readonly home: string;
  readonly #host: Host;
  readonly #knobs: Mutable<HostOptions>;
  #features: ((server: ServerConfig) => ClientFeatures) | undefined;
  /** The command, for a refusal with nobody to ask ("mcpx chat has no terminal to ask on"). */
  #command = 'mcpx';

  constructor(
    readonly io: CliIo,
    readonly options: GlobalOptions,
  ) {
    const session = this;
    const verbose = options.verbose === true;
    this.#knobs = {
      cwd: io.cwd,
      env: io.env,
      homedir: io.homedir,
      ...(options.config ? { configFile: options.config } : {}),
      ask: terminalAsk(
        io,
        (line) => this.notice(line),
        (server) => this.#features?.(server) ?? {},
        () => this.#command,
      ),
      signal: io.signal,
      // Flags parsed when first needed, so a bad one fails the command where it always did.
      get adhoc() {
        return session.adhoc();
      },
      get timeoutMs() {
        return timeoutMs(options);
      },
      // A person's command makes one attempt; a long-lived command (chat) opts into lazy reconnects.
      reconnect: 'never',
      verbose,
      // A package runner's install is shown at a terminal (and with --verbose), never inside --json's stderr.
      installs: verbose || (io.stderrIsTTY && options.json !== true),
      daemon: io.daemonCaller ? { caller: io.daemonCaller } : {},
      audit:
        options.auditLog === false
          ? false
          : { client: 'cli', ...(options.auditLog ? { file: options.auditLog } : {}) },
    };
    this.#host = createHost(this.#knobs);
    this.home = this.#host.home;
    this.#host.on((event) => {
      // Each command reports a server's failure itself, in its place (a row, a FAIL, an error).
      if (event.type !== 'failure') this.notice(describe(event));
    });
    // A second Ctrl-C leaves at once: a package runner still installing is ended and its
    // unfinished folder removed first, never left half written.
    io.onForcedExit?.(rollBackInstallsNow);
  }

  /** The merged config (global → ancestors → project, or --config). */
  config(): Promise<LoadedConfig> {
    return this.#host.config();
  }

  /**
   * Say which host-wide settings of repository files are not in force (agent
   * commands, where `permission` and `roots` matter).
   */
  async noticeHeldSettings(): Promise<void> {
    if (this.adhoc()) return;
    for (const line of heldSettingsNotices(await this.config())) this.notice(line);
  }

  /** The ad-hoc server from --stdio or --url, if any. */
  adhoc(): ServerConfig | undefined {
    return adhocServer(this.options, this.io.cwd);
  }

  /** Servers that may be started: enabled, and trusted or approved now at the terminal. */
  usableServers(): Promise<ServerConfig[]> {
    return this.#host.servers();
  }

  /** Entries left out because they would start mcpx itself, each with why. */
  selfSkippedServers(): Promise<ReadonlyMap<string, McpxError>> {
    return this.#host.selfSkipped();
  }

  /** The permission level an agent command runs at: `usePermission`'s, else the config's (see `Host.permissionLevel`). */
  permissionLevel(): Promise<PermissionLevel> {
    return this.#host.permissionLevel();
  }

  /** Project entries left out because they are not trusted yet. */
  untrustedServers(): Promise<ServerConfig[]> {
    return this.#host.untrusted();
  }

  /** One server by name, with an error that says what to do when it cannot be used. */
  server(name: string): Promise<ServerConfig> {
    return this.#host.server(name);
  }

  registry(): Promise<ServerRegistry> {
    return this.#host.registry();
  }

  /** Another registry for exactly `servers` (the daemon keeps one per instance); whoever makes it closes it. */
  createRegistry(servers: readonly ServerConfig[]): Promise<ServerRegistry> {
    return this.#host.createRegistry(servers);
  }

  /** The one permission engine, at `permissionLevel()`, asking this terminal's person (or refusing with none). */
  guard(): Promise<PermissionGuard> {
    return this.#host.guard();
  }

  /** Another guard for exactly `servers` (the daemon keeps one per instance). */
  createGuard(servers: readonly ServerConfig[]): Promise<PermissionGuard> {
    return this.#host.createGuard(servers);
  }

  /** The host's audit trail: every tool call this command makes is recorded there once. */
  audit(): AuditTrail {
    return this.#host.audit();
  }

  /** The host under this session, for a front end built on it whole (the gateway). */
  get host(): Host {
    return this.#host;
  }

  /** Connect to a server (closed with the session). */
  connect(server: ServerConfig, options: ConnectOptions = {}): Promise<ServerConnection> {
    return this.#host.connect(server, options);
  }

  // The knobs below are read by the host when it first makes its servers or registry.

  /** Roots, sampling and elicitation for the servers (agent commands offer them; `mcpx call` does not). */
  useFeatures(features: (server: ServerConfig) => ClientFeatures): void {
    this.#features = features;
  }

  /**
   * The permission level (`--permission`), when the command was given one, and the command's
   * name for a refusal with no terminal to ask on. Set before the first `guard()`.
   */
  usePermission(level: PermissionLevel | undefined, command?: string): void {
    if (level !== undefined) this.#knobs.permission = level;
    if (command !== undefined) this.#command = command;
  }

  /**
   * The config's profile this command is limited to: `--profile NAME`, else `MCPX_PROFILE`
   * (serve, chat, exec, the shell). Resolves to the name in force, if any.
   */
  useProfile(flag: string | undefined): string | undefined {
    const name = flag ?? (this.io.env.MCPX_PROFILE || undefined);
    if (name !== undefined) this.#knobs.profile = name;
    return name;
  }

  /** Servers allowed whole, and tools excluded, by the person running the command (`mcpx serve`). */
  usePolicy(policy: HostPolicy): void {
    this.#knobs.policy = policy;
  }

  /**
   * Permission questions and a server's questions go to `ask` (the gateway's client)
   * instead of this terminal; trust approval, `${input:…}` values and sign-ins stay here.
   */
  answerWith(ask: Pick<Ask, 'who' | 'approver' | 'features'>): void {
    this.#knobs.ask = { ...this.#knobs.ask, ...ask } as Ask;
  }

  /** Every server's log messages (from `level` up) to `listener` instead of the --verbose notices. */
  useServerLogs(listener: (event: ServerLogEvent) => void, level: LoggingLevel = 'info'): void {
    this.#knobs.serverLogs = { listener, level };
  }

  /** Leave out the built-in `demo` server when the person has servers of their own. */
  omitBuiltinWhenConfigured(): void {
    this.#knobs.omitBuiltinWhenConfigured = true;
  }

  /** How advice names listing a server's tools again, in a console's words (`/mcp retry NAME`). */
  useRetryAdvice(advice: (server: string) => string): void {
    this.#knobs.retryAdvice = advice;
  }

  /** A crashed server comes back on its next use, for a command that lives longer than one request. */
  reconnectLazily(): void {
    this.#knobs.reconnect = 'lazy';
  }

  /** A one-shot command hears no list changes (on 2026-07-28 hearing them costs a request). */
  ignoreListChanges(): void {
    this.#knobs.listChanges = false;
  }

  /** How `mcpx daemon status` names this process among the sessions of a warm server (`mcpx serve`). */
  nameForDaemon(label: string): void {
    this.#knobs.daemon = { ...this.#knobs.daemon, label };
  }

  /** This session is the keep-alive daemon's: it holds exactly `servers` (more as callers ask). */
  runAsDaemon(servers: readonly ServerConfig[]): void {
    this.#knobs.daemon = { ...this.#knobs.daemon, held: [...servers] };
  }

  /** The daemon's socket, pid and lock files for this session's resolved config. */
  daemonPaths(): Promise<DaemonPaths> {
    return this.#daemon().paths();
  }

  /** Start a detached daemon for this config (`mcpx daemon run`); it outlives this command on purpose. */
  spawnDaemon(key: string, options: { all?: boolean; idleSeconds?: string } = {}): void {
    this.#daemon().spawnDaemon(key, options);
  }

  #daemon(): NonNullable<Host['daemon']> {
    // Always made: the constructor hands the host `daemon`.
    return this.#host.daemon as NonNullable<Host['daemon']>;
  }

  /**
   * A line for the person on stderr (never stdout, which --json reserves for the result).
   * Notices quote servers (logs, errors, tool results): every one is made fit for a terminal
   * here (`say`), whatever its caller did.
   */
  notice(line: string): void {
    this.io.stderr.write(say`${this.forPerson(line)}\n`);
  }

  /**
   * Text for the person: every path under the home folder as `~/…` (`~/.mcpx/mcp.json`). With
   * --json the text is for a script, which needs real paths: unchanged.
   */
  forPerson(text: string): string {
    return this.options.json ? text : displayPaths(text, this.io.homedir);
  }

  /** What the SDK said about a server (--verbose); it quotes the server, so it is sanitized. */
  sdkNotice(diagnostic: SdkDiagnostic): void {
    this.notice(formatSdkDiagnostic(diagnostic));
  }

  close(): Promise<void> {
    return this.#host.close();
  }
}

function describe(event: Exclude<HostEvent, { type: 'failure' }>): string {
  if (event.type === 'install') return installNotice(event.event);
  return event.type === 'warning' ? `warning: ${event.message}` : event.message;
}
