import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { basename } from 'node:path';
import { claudeCodeServers, planHandOver } from '../../config/client-apps/index.js';
import type { ServerConfig } from '../../config/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { processIdentity, removeStaleHandovers, writeHandoverFile } from '../../handover/index.js';
import { forTerminal } from '../../text/index.js';
import type { CliContext, CliDoor } from '../context/context.js';
import { usageError } from '../context/global-options.js';
import { profileFlag } from '../context/permission-level.js';
import { plural } from '../output/plural.js';
import { claudeServeEntry, skillsEntry } from './exec-skills.js';

export interface ExecFlags {
  /** `--servers a,b`: only these (default: every enabled, trusted server). */
  readonly servers?: string;
  /** `--no-strict` makes this false: leave out `--strict-mcp-config`. */
  readonly strict?: boolean;
  /** `--config-flag`: the flag that names the file (default `--mcp-config`). */
  readonly configFlag?: string;
  /** `--profile P`: hand over one `mcpx serve --profile P` entry instead of the servers. */
  readonly profile?: string;
  /** `--quiet`: say nothing on stderr about what is handed over. */
  readonly quiet?: boolean;
  /** `--no-skills` makes this false: no skills entry, and the servers are not asked for skills first. */
  readonly skills?: boolean;
}

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * `mcpx exec [--servers a,b] [--no-strict] [--config-flag F] -- <command> [args…]`:
 * hand the servers to an agent CLI in a private temporary file
 * (`{"mcpServers": …}` in Claude Code's dialect), run it with
 * `--mcp-config <file> --strict-mcp-config` where its grammar takes them
 * (`planHandOver`: before Claude Code's prompt, never into `claude mcp …`),
 * pass stdin, stdout, stderr and signals through, and exit with its exit code
 * (128+n when a signal ended it). The file is removed however the command ends.
 * A subcommand that takes no hand-over runs as given, after a notice saying so.
 */
export async function runExec(door: CliDoor, command: readonly string[], flags: ExecFlags): Promise<number> {
  const [executable, ...args] = command;
  if (executable === undefined)
    throw usageError('exec needs the command to run after --', 'e.g. mcpx exec -- claude');
  const flag = flags.configFlag ?? '--mcp-config';
  if (!/^-{1,2}[A-Za-z0-9][A-Za-z0-9-]*$/.test(flag))
    throw usageError(`--config-flag takes a flag such as --mcp-config, got '${flag}'`);
  const strict = flags.strict !== false;
  const profile = profileFlag(flags.profile, door.io);
  const session = door.open(profile !== undefined ? { profile } : {});
  if (profile !== undefined && flags.servers !== undefined)
    throw usageError(
      `--servers and --profile ${profile} both choose servers`,
      "leave out --servers (the profile's servers are handed over)",
    );
  // Where the flags would go, known before any secret is written.
  const placement = planHandOver(executable, args, { flag, file: '', strict });
  // The agent's own output is the point; with --json or --quiet mcpx says nothing of its own.
  const say = flags.quiet || session.options.json ? () => {} : (line: string) => session.notice(line);
  if (!placement.handsOver) {
    say(
      `mcpx: '${forTerminal(`claude ${placement.subcommand}`)}' takes no --mcp-config (it reads Claude Code's own ` +
        'files, ~/.claude.json and .mcp.json): no servers are handed over, it runs as given. ' +
        'A session gets them: mcpx exec -- claude, or mcpx exec -- claude -p "…"',
    );
    return await runChild(session, executable, args);
  }
  // A killed mcpx left its file (resolved secrets) behind: clear those first.
  await removeStaleHandovers(session.host.home, isAlive);
  const chosen = profile === undefined ? await chosenServers(session, flags.servers) : [];
  const mcpServers = profile === undefined ? claudeCodeServers(chosen) : await profileEntry(session, profile);
  for (const line of await handOverReport(session, executable, { chosen, profile, named: flags.servers }))
    say(line);
  // Under a profile the one `mcpx serve` entry offers the skills already.
  const skills = flags.skills === false ? undefined : await skillsEntry(session, chosen);
  if (skills) {
    mcpServers[skills.name] = skills.entry;
    say(
      `mcpx exec: and their skills as one more server, ${skills.name} (mcpx serve --skills-only: ` +
        `mcpx__load_skill, verified on every read), from ${skills.servers.join(', ')}`,
    );
  }
  const text = `${JSON.stringify({ mcpServers }, null, 2)}\n`;
  const handover = await writeHandoverFile(
    session.host.home,
    await processIdentity(process.pid),
    'mcp-config.json',
    text,
  );
  try {
    const plan = planHandOver(executable, args, { flag, file: handover.file, strict });
    return await runChild(session, executable, plan.args);
  } finally {
    await handover.remove();
  }
}

/**
 * Under a profile the agent gets one `mcpx serve --profile P` entry: an agent CLI applies
 * none of mcpx's tool filters, so a tool the profile hides would reach it in a server's copy.
 * The profile is checked here first (the agent would only show a server that failed).
 */
async function profileEntry(session: CliContext, profile: string): Promise<Record<string, unknown>> {
  await session.host.servers();
  return { mcpx: await claudeServeEntry(session, { profile }) };
}

/**
 * What the person is told before the agent starts: which servers it gets, and which of the
 * configured ones it does not, each with why (disabled, not trusted yet, outside the profile…).
 *
 * @example
 * // mcpx exec: handing 2 servers to claude: fs, github
 * // mcpx exec: left out: db (disabled), repo (not trusted yet: review it, then `mcpx config trust`)
 */
async function handOverReport(
  session: CliContext,
  executable: string,
  given: { readonly chosen: readonly ServerConfig[]; readonly profile?: string; readonly named?: string },
): Promise<string[]> {
  const config = await session.host.config();
  const usable = await session.host.servers();
  const untrusted = new Set((await session.host.untrusted()).map((s) => s.name));
  const selfSkipped = await session.host.selfSkipped();
  const { profile } = given;
  // Under a profile the agent gets one `mcpx serve --profile` entry, serving the profile's servers.
  const handed = profile === undefined ? given.chosen : usable;
  const handedNames = new Set(handed.map((s) => s.name));
  const why = (server: ServerConfig): string => {
    if (!server.enabled) return 'disabled';
    if (untrusted.has(server.name)) return 'not trusted yet: review it, then `mcpx config trust`';
    if (selfSkipped.has(server.name)) return 'it would start mcpx itself';
    if (profile !== undefined) return `outside profile '${profile}'`;
    if (given.named !== undefined) return 'not named in --servers';
    if (server.origin.layer === 'builtin') return 'built in: name it in --servers to hand it over';
    return 'not usable';
  };
  const left = [
    ...[...config.servers, ...config.unapproved]
      .filter((s) => !handedNames.has(s.name))
      .map((s) => `${s.name} (${why(s)})`),
    ...[...config.unusable.keys()].map((name) => `${name} (its entry has an error)`),
  ];
  const names = handed.map((s) => s.name).join(', ');
  const to = basename(executable);
  const lines = [
    profile === undefined
      ? handed.length === 0
        ? `mcpx exec: handing no servers to ${to}`
        : `mcpx exec: handing ${plural(handed.length, 'server')} to ${to}: ${names}`
      : `mcpx exec: handing profile '${profile}' to ${to} as one server, mcpx (mcpx serve --profile ${profile}), with ${handed.length === 0 ? 'no servers' : names}`,
  ];
  if (left.length > 0) lines.push(`mcpx exec: left out: ${left.join(', ')}`);
  return lines;
}

/** Every enabled, trusted server of the config, or the ones named (each must be usable). */
async function chosenServers(session: CliContext, names: string | undefined): Promise<ServerConfig[]> {
  if (names === undefined) {
    const usable = await session.host.servers();
    // The built-in demo is mcpx's own test server: handed over only when named.
    return usable.filter((s) => s.origin.layer !== 'builtin');
  }
  const wanted = [...new Set(names.split(',').map((n) => n.trim()))].filter(Boolean);
  if (wanted.length === 0)
    throw usageError('--servers takes server names separated by commas', 'e.g. --servers fs,github');
  const out: ServerConfig[] = [];
  for (const name of wanted) out.push(await session.host.server(name));
  return out;
}

function runChild(session: CliContext, executable: string, args: readonly string[]): Promise<number> {
  const { io } = session;
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(executable, [...args], { stdio: 'inherit', cwd: io.cwd, env: { ...io.env } });
    } catch (error) {
      reject(spawnFailure(executable, error));
      return;
    }
    // On a terminal, Ctrl-C and a hang-up reach the whole foreground process group, the
    // command included: passing them on again would make it see two (and an agent CLI
    // takes a second Ctrl-C as "quit now"). Sent to mcpx alone (kill, a supervisor), they
    // are passed on; SIGTERM always is.
    const onTerminal = io.stdoutIsTTY || io.stderrIsTTY || process.stdin.isTTY === true;
    const forward = (signal: NodeJS.Signals) => () => {
      if (signal !== 'SIGTERM' && onTerminal) return;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    const handlers = FORWARDED.map((signal) => [signal, forward(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    // mcpx's own Ctrl-C handling would cancel (or on a second one, exit without cleaning up).
    const release = io.onInterrupt?.(forward('SIGINT'));
    const done = () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      release?.();
    };
    child.once('error', (error) => {
      done();
      reject(spawnFailure(executable, error));
    });
    child.once('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}

function spawnFailure(executable: string, error: unknown): McpxError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT')
    return new McpxError(ErrorCode.CommandNotFound, `command not found: ${executable}`, {
      cause: error,
      command: executable,
      fixes: [`check the name and that it is on your PATH (which ${executable})`],
    });
  if (code === 'EACCES')
    return new McpxError(ErrorCode.SpawnPermissionDenied, `permission denied running ${executable}`, {
      cause: error,
      command: executable,
      fixes: [`make it executable: chmod +x ${executable}`],
    });
  return new McpxError(ErrorCode.SpawnFailed, `cannot run ${executable}: ${(error as Error).message}`, {
    cause: error,
    command: executable,
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
