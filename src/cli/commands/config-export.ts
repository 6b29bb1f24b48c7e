import {
  CLIENT_APPS,
  type ClientAppFile,
  type ClientAppId,
  exportServers,
} from '../../config/client-apps/index.js';
import {
  findProfile,
  type LoadedConfig,
  readConfigText,
  type ServerConfig,
  updateProjectFile,
} from '../../config/index.js';
import { forTerminal, say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { usageError } from '../context/global-options.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { clientAppContext, clientAppId } from './client-app-context.js';
import { exportedCopies, gatewayEntry } from './gateway-entry.js';

export interface ExportFlags {
  readonly to?: string;
  readonly servers?: string;
  readonly write?: boolean;
  /** One `mcpx serve` entry instead of a copy of every server. */
  readonly viaGateway?: boolean;
  /** Take the copies an earlier plain export wrote out of the client app's file. */
  readonly removeCopies?: boolean;
  /** With `--via-gateway`: the entry serves this profile of the config. */
  readonly profile?: string;
}

/**
 * `mcpx config export --to <host> [--servers a,b] [--via-gateway [--name N]]
 * [--remove-copies] [--write]`: mcpx's servers in that client app's dialect, printed,
 * or merged into the client app's own file. Only trusted servers go: a repository's
 * entry nobody approved stays behind. With `--via-gateway` the client app gets one
 * entry that runs `mcpx serve` instead, so it sees mcpx's servers, filters
 * and policy, and a change to mcpx's config reaches every client app at once.
 */
export async function runConfigExport(session: CliContext, flags: ExportFlags): Promise<number> {
  const { io } = session;
  const { to, name } = exportFlags(session, flags);
  const app = clientAppId(to);
  const dialect = CLIENT_APPS[app];
  const config = await session.host.config();
  // Checked now: a client app that starts `mcpx serve --profile P` shows no error the person would see.
  if (flags.profile !== undefined) findProfile(config, flags.profile);
  const trusted = trustedServers(session, config, flags);
  const ctx = clientAppContext(session);
  const file = dialect.files(ctx).find((f) => f.scope === 'user');
  const base = file ? await readIfThere(file.path) : undefined;
  const result = flags.viaGateway
    ? gatewayExport(session, config, flags, name, app)
    : exportServers(app, trusted, ctx);
  const plan: ExportPlan = {
    app,
    name,
    file,
    trusted,
    ctx,
    result,
    writing: flags.write === true && file !== undefined,
  };
  for (const note of result.notes) io.stderr.write(say`note: ${session.forPerson(note)}\n`);
  if (!plan.writing || file === undefined) return showExport(session, flags, plan, base);
  return writeExport(session, flags, plan, file, base);
}

/** The client app asked for and the `--via-gateway` entry's name, the flags checked against one another. */
function exportFlags(session: CliContext, flags: ExportFlags): { to: string; name: string } {
  if (flags.to === undefined) throw usageError('config export needs --to <host>', 'e.g. --to claude-code');
  // `--name` is the global option (it names an ad-hoc server too): here it names the entry.
  const given = session.options.name;
  if (given !== undefined && !flags.viaGateway)
    throw usageError('--name names the --via-gateway entry', 'add --via-gateway, or leave out --name');
  if (flags.viaGateway && flags.servers !== undefined)
    throw usageError(
      '--servers chooses copies; the --via-gateway entry serves every server of the config',
      'leave out --servers (narrow what the gateway serves in mcpx’s config instead)',
    );
  if (flags.profile !== undefined && !flags.viaGateway)
    throw usageError(
      '--profile chooses what the --via-gateway entry serves; copies of servers carry no tool filter',
      'add --via-gateway',
    );
  const name = given ?? 'mcpx';
  if (name.trim() === '') throw usageError('--name is empty', 'e.g. --name mcpx');
  return { to: flags.to, name };
}

/**
 * The servers `--servers` names (every configured one without it), less those a repository
 * brought that nobody approved: each of those is named on stderr, unless the export is the
 * gateway's entry (which copies no server).
 */
function trustedServers(session: CliContext, config: LoadedConfig, flags: ExportFlags): ServerConfig[] {
  const { io } = session;
  const wanted = flags.servers
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const defined = [...config.servers, ...config.unapproved];
  for (const wantedName of wanted ?? []) {
    if (!defined.some((s) => s.name === wantedName))
      throw usageError(`no server named '${wantedName}'`, 'run `mcpx list` to see the configured servers');
  }
  const chosen = defined.filter((s) =>
    wanted ? wanted.includes(s.name) : s.origin.layer !== 'builtin' && s.origin.layer !== 'adhoc',
  );
  const trusted = chosen.filter((s) => {
    if (!s.unapproved) return true;
    if (!flags.viaGateway)
      io.stderr.write(
        say`skipped '${s.name}' from ${session.forPerson(s.origin.file ?? '')}: not trusted yet — review it and run \`mcpx config trust\`\n`,
      );
    return false;
  });
  if (trusted.length === 0 && !flags.viaGateway) io.stderr.write(say`note: no trusted servers to export\n`);
  return trusted;
}

/** A client app's file as it is now, or undefined when there is none yet. */
async function readIfThere(path: string): Promise<string | undefined> {
  return readConfigText(path).then(
    (read) => read.text,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    },
  );
}

type Exported = ReturnType<typeof exportServers>;

/** The one `mcpx serve` entry `--via-gateway` puts in the client app's file, in its dialect. */
function gatewayExport(
  session: CliContext,
  config: LoadedConfig,
  flags: ExportFlags,
  name: string,
  app: ClientAppId,
): Exported {
  const { io } = session;
  const dialect = CLIENT_APPS[app];
  const entry = gatewayEntry(config, {
    configFile: session.options.config,
    cwd: io.cwd,
    env: io.env,
    execPath: process.execPath,
    script: process.argv[1] ?? '',
    profile: flags.profile,
  });
  const { value, dropped } = dialect.write(entry);
  return {
    text: '',
    servers: { [name]: value },
    notes: dropped.length
      ? [
          `${name}: ${dialect.label} has no setting for ${dropped.join(', ')}; left out${
            dropped.includes('cwd')
              ? ` — mcpx serve finds the project config from the folder ${dialect.label} starts it in (pin one file with mcpx --config FILE config export …)`
              : ''
          }`,
        ]
      : [],
  };
}

/** What an export puts in (or, as `undefined`, takes out of) which client app's file. */
interface ExportPlan {
  readonly app: ClientAppId;
  /** The `--via-gateway` entry's name, never taken out as a copy. */
  readonly name: string;
  readonly file: ClientAppFile | undefined;
  readonly trusted: readonly ServerConfig[];
  readonly ctx: ReturnType<typeof clientAppContext>;
  readonly result: Exported;
  /** `--write`, and the client app has a user file to write to. */
  readonly writing: boolean;
}

/** What goes into the client app's file, from its text: the copies to take out are found in it too. */
function merged(flags: ExportFlags, plan: ExportPlan, text: string | undefined) {
  const dialect = CLIENT_APPS[plan.app];
  const removed = flags.removeCopies
    ? copiesIn(plan.app, text, plan.file, plan.trusted, plan.ctx).filter((n) => n !== plan.name)
    : [];
  const changes: Record<string, unknown> = { ...plan.result.servers };
  for (const gone of removed) changes[gone] = undefined;
  return {
    removed,
    text: dialect.merge(plan.writing || flags.removeCopies ? text : undefined, changes, plan.ctx),
  };
}

/** Without `--write`: the client app's file as it would be written, and the copies that would go. */
function showExport(
  session: CliContext,
  flags: ExportFlags,
  plan: ExportPlan,
  base: string | undefined,
): number {
  const { io } = session;
  const { app, file, result } = plan;
  const dialect = CLIENT_APPS[app];
  const { removed, text } = merged(flags, plan, base);
  if (flags.removeCopies)
    io.stderr.write(
      removed.length
        ? say`would remove ${plural(removed.length, 'copy', 'copies')} from ${session.forPerson(file?.path ?? `${dialect.label}'s file`)}: ${removed.join(', ')} (add --write to do it)\n`
        : say`no copies of mcpx's servers in ${session.forPerson(file?.path ?? `${dialect.label}'s file`)}\n`,
    );
  if (session.options.json)
    // `host` in the JSON (the client app written for), which scripts read.
    io.stdout.write(
      toJson({ host: app, file: file?.path, written: false, servers: result.servers, removed, text }, 0),
    );
  // The client app's file as it would be written: exact into a pipe or a file, shown safe on a terminal.
  else io.stdout.write(io.stdoutIsTTY ? forTerminal(text) : Buffer.from(text, 'utf8'));
  return ExitCode.Ok;
}

/** With `--write`: merged into the client app's file under its lock, and what was done said. */
async function writeExport(
  session: CliContext,
  flags: ExportFlags,
  plan: ExportPlan,
  file: ClientAppFile,
  base: string | undefined,
): Promise<number> {
  const { io } = session;
  const { app, name, result } = plan;
  const dialect = CLIENT_APPS[app];
  if (app === 'codex' && base !== undefined)
    io.stderr.write(
      say`note: ${session.forPerson(file.path)} was rewritten; TOML comments in it are not kept\n`,
    );
  // Merged into the file as it is once locked: another command's edit made meanwhile stays.
  let removed: string[] = [];
  await updateProjectFile(
    file.path,
    (now) => {
      const next = merged(flags, plan, now);
      removed = next.removed;
      return next.text;
    },
    { signal: io.signal },
  );
  if (session.options.json) {
    io.stdout.write(
      toJson({ host: app, file: file.path, written: true, servers: result.servers, removed }, 0),
    );
    return ExitCode.Ok;
  }
  const what = flags.viaGateway
    ? `the '${forTerminal(name)}' entry (mcpx serve)`
    : plural(Object.keys(result.servers).length, 'server');
  io.stdout.write(say`wrote ${what} to ${dialect.label}'s ${file.path}\n`);
  if (removed.length)
    io.stdout.write(
      say`removed ${plural(removed.length, 'copy', 'copies')} mcpx exported before: ${removed.map(forTerminal).join(', ')}\n`,
    );
  return ExitCode.Ok;
}

/** The names of the copies of `servers` that a plain export put in the client app's file. */
function copiesIn(
  app: ClientAppId,
  base: string | undefined,
  file: ClientAppFile | undefined,
  servers: readonly ServerConfig[],
  ctx: ReturnType<typeof clientAppContext>,
): string[] {
  if (base === undefined || file === undefined) return [];
  const dialect = CLIENT_APPS[app];
  // Export writes the user-level section only: a same-named server elsewhere in the
  // file (Claude Code's per-project servers) is not one of its copies, and stays.
  const unchanged = dialect.merge(base, {}, ctx);
  return exportedCopies(dialect.read(base, file, ctx), servers).filter(
    (name) => dialect.merge(base, { [name]: undefined }, ctx) !== unchanged,
  );
}
