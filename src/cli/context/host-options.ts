import type { ServerConfig } from '../../config/index.js';
import type { Ask, ClientFeatures, HostOptions } from '../../host/index.js';
import type { PermissionLevel } from '../../permissions/index.js';
import type { CliIo } from '../io/io.js';
import { terminalAsk } from '../terminal/terminal-ask.js';
import { adhocServer } from './adhoc-flags.js';
import { type GlobalOptions, timeoutMs } from './global-options.js';

/**
 * What one command settles about its host beyond the global flags, before the host is made
 * (each is a knob of `HostOptions`; a command leaves out what it does not need).
 */
export interface CommandSettings {
  /**
   * The command reads `--env`, `--url`, `--name` as its own (`config add`, `config export`):
   * no ad-hoc server is made of them, nor are they checked as one's.
   */
  readonly ownsAdhocFlags?: boolean;
  /** The command, for a refusal with nobody to ask ("mcpx chat has no terminal to ask on"). */
  readonly command?: string;
  /** `--permission`, checked (see `permissionFlag`); absent: the config's level. */
  readonly permission?: PermissionLevel | undefined;
  /** The config's profile this command is limited to (see `profileFlag`). */
  readonly profile?: string | undefined;
  /** Servers allowed whole, and tools excluded, by the person running the command (`mcpx serve`). */
  readonly policy?: HostOptions['policy'];
  /** Sampling and elicitation for the servers (agent commands and a person's own; `mcpx list` offers none). */
  readonly features?: (server: ServerConfig) => ClientFeatures;
  /** Offer the servers the config's trusted `roots` (a person's own commands, the shell, chat). */
  readonly offerConfigRoots?: boolean;
  /**
   * Permission questions and a server's questions go to these (the gateway's client) instead
   * of this terminal; trust approval, `${input:…}` values and sign-ins stay here.
   */
  readonly answers?: Pick<Ask, 'who' | 'approver' | 'features'>;
  /** Every server's log messages to a listener instead of the --verbose notices. */
  readonly serverLogs?: HostOptions['serverLogs'];
  /** `lazy`: a crashed server comes back on its next use, for a command that lives long. */
  readonly reconnect?: HostOptions['reconnect'];
  /** False: a one-shot command hears no list changes (on 2026-07-28 hearing them costs a request). */
  readonly listChanges?: false;
  /** Leave out the built-in `demo` server when the person has servers of their own. */
  readonly omitBuiltinWhenConfigured?: boolean;
  /** How advice names listing a server's tools again, in a console's words (`/mcp retry NAME`). */
  readonly retryAdvice?: (server: string) => string;
  /** How `mcpx daemon status` names this process (`label`), or this process is the daemon (`held`). */
  readonly daemon?: { readonly label?: string; readonly held?: readonly ServerConfig[] | 'usable' };
}

/**
 * The one `HostOptions` of a command: its global flags (`--config`, `--timeout`, `--stdio`/`--url`,
 * `--audit-log`, `--verbose`, `--json`), its io (the terminal to ask at, the environment) and
 * `settings`, all settled here, before `createHost`. A bad flag fails here, with its usage error.
 */
export function hostOptionsFor(
  settings: CommandSettings,
  flags: GlobalOptions,
  io: CliIo,
  notice: (line: string) => void,
): HostOptions {
  const adhoc = settings.ownsAdhocFlags ? undefined : adhocServer(flags, io.cwd);
  const timeout = timeoutMs(flags);
  const verbose = flags.verbose === true;
  const { features } = settings;
  const command = settings.command ?? 'mcpx';
  const ask = terminalAsk(io, notice, (server) => features?.(server) ?? {}, command);
  return {
    cwd: io.cwd,
    env: io.env,
    homedir: io.homedir,
    ...(flags.config ? { configFile: flags.config } : {}),
    ask: settings.answers ? { ...ask, ...settings.answers } : ask,
    signal: io.signal,
    ...(adhoc ? { adhoc } : {}),
    ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
    ...(settings.permission !== undefined ? { permission: settings.permission } : {}),
    ...(settings.profile !== undefined ? { profile: settings.profile } : {}),
    ...(settings.policy ? { policy: settings.policy } : {}),
    ...(settings.offerConfigRoots ? { offerConfigRoots: true } : {}),
    ...(settings.serverLogs ? { serverLogs: settings.serverLogs } : {}),
    // A person's command makes one attempt; a long-lived command (chat) opts into lazy reconnects.
    reconnect: settings.reconnect ?? 'never',
    ...(settings.listChanges === false ? { listChanges: false } : {}),
    ...(settings.omitBuiltinWhenConfigured ? { omitBuiltinWhenConfigured: true } : {}),
    ...(settings.retryAdvice ? { retryAdvice: settings.retryAdvice } : {}),
    verbose,
    // A package runner's install is shown at a terminal (and with --verbose), never inside --json's stderr.
    installs: verbose || (io.stderrIsTTY && flags.json !== true),
    daemon: { ...(io.daemonCaller ? { caller: io.daemonCaller } : {}), ...settings.daemon },
    audit:
      flags.auditLog === false
        ? false
        : { client: 'cli', ...(flags.auditLog ? { file: flags.auditLog } : {}) },
  };
}
