import {
  approvedRecord,
  configPaths,
  describeForTrust,
  describeSettingsForTrust,
  loadTrustStore,
  trustServers,
  validateConfig,
} from '../../config/index.js';
import { displayPath, ErrorCode, McpxError } from '../../errors/index.js';
import { forTerminal, say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { renderTable } from '../output/table.js';
import { renderError, writeError } from '../target/report.js';

function loadOptions(session: CliContext) {
  const { io, options } = session;
  return {
    cwd: io.cwd,
    env: io.env,
    home: session.host.home,
    homedir: io.homedir,
    platform: process.platform,
    ...(options.config ? { configFile: options.config } : {}),
  };
}

/** `mcpx config path`: every file mcpx reads, in precedence order (later wins). */
export async function runConfigPath(session: CliContext): Promise<number> {
  const { io, options } = session;
  const paths = await configPaths(loadOptions(session));
  if (options.json) io.stdout.write(toJson(paths));
  else
    io.stdout.write(
      say`${renderTable(
        ['LAYER', 'FILE', 'EXISTS'],
        paths.map((p) => [p.layer, displayPath(p.path, io.homedir), p.exists ? 'yes' : 'no']),
      )}\n`,
    );
  return ExitCode.Ok;
}

/** `mcpx config validate`: every problem in every file, not just the first. */
export async function runConfigValidate(session: CliContext): Promise<number> {
  const { io, options } = session;
  const result = await validateConfig(loadOptions(session));
  for (const warning of result.warnings)
    io.stderr.write(say`warning: ${session.forPerson(warning.message)}\n`);
  if (options.json) {
    io.stdout.write(
      toJson({
        ok: result.problems.length === 0,
        files: result.files,
        servers: result.serverCount,
        problems: result.problems.map((p) => ({ code: p.code, message: p.message, ...p.context })),
      }),
    );
  } else if (result.problems.length === 0) {
    io.stdout.write(
      say`ok: ${plural(result.serverCount, 'server')} in ${plural(result.files.length, 'file')}\n`,
    );
  } else {
    for (const problem of result.problems)
      io.stderr.write(say`${renderError(problem, true, io.homedir)}\n\n`);
    io.stderr.write(say`${plural(result.problems.length, 'problem')} found\n`);
  }
  return result.problems.length === 0 ? ExitCode.Ok : ExitCode.Config;
}

/** `mcpx config trust [--yes]`: approve the project entries and host-wide settings that are not trusted yet. */
export async function runConfigTrust(session: CliContext, yes: boolean): Promise<number> {
  const { io } = session;
  const config = await session.host.config();
  const store = await loadTrustStore(session.host.home);
  const pending = config.unapproved;
  const settings = config.heldSettings.filter((held) => held.reason === 'untrusted');
  for (const held of config.heldSettings.filter((h) => h.reason === 'raises')) {
    io.stderr.write(say`${session.forPerson(describeSettingsForTrust(held).join('\n'))}\n`);
  }
  if (pending.length === 0 && settings.length === 0) {
    io.stdout.write(say`nothing to approve: every project server and setting is trusted\n`);
    return ExitCode.Ok;
  }
  if (!yes && !io.interactive) {
    for (const server of pending) {
      // Nobody is asked here: the description without its closing question.
      const lines = describeForTrust(server, approvedRecord(store, server)).slice(0, -1);
      io.stderr.write(say`${session.forPerson(lines.join('\n'))}\n`);
    }
    for (const held of settings)
      io.stderr.write(say`${session.forPerson(describeSettingsForTrust(held).join('\n'))}\n`);
    writeError(
      session,
      new McpxError(ErrorCode.ConfigUntrusted, 'no terminal to ask on, so nothing was approved', {
        fixes: ['review the entries above, then run `mcpx config trust --yes` to approve them'],
      }),
    );
    return ExitCode.Config;
  }
  const approved = [];
  for (const server of pending) {
    const lines = describeForTrust(server, approvedRecord(store, server));
    // --yes approves without questions: the description stays, its question goes.
    const text = forTerminal(session.forPerson((yes ? lines.slice(0, -1) : lines).join('\n')));
    if (yes) {
      io.stderr.write(say`${text}\n`);
      approved.push(server);
    } else if (io.confirm && (await io.confirm(text))) approved.push(server);
  }
  const approvedSettings = [];
  for (const held of settings) {
    const text = forTerminal(session.forPerson(describeSettingsForTrust(held).join('\n')));
    if (yes) {
      io.stderr.write(say`${text}\n`);
      approvedSettings.push(held);
    } else if (
      io.confirm &&
      (await io.confirm(say`${text}\nApply these settings? Only say yes if you trust this repository.`))
    ) {
      approvedSettings.push(held);
    }
  }
  if (approved.length || approvedSettings.length)
    await trustServers(session.host.home, approved, approvedSettings);
  const total = pending.length + settings.length;
  const done = approved.length + approvedSettings.length;
  io.stdout.write(
    say`approved ${done} of ${total} (${plural(pending.length, 'server')}, ${plural(settings.length, 'settings file')})\n`,
  );
  return done === total ? ExitCode.Ok : ExitCode.Config;
}

/**
 * `mcpx config profiles`: every profile of the config (`--profile NAME`), each with the
 * file that defines it and every repository file that narrows it.
 */
export async function runConfigProfiles(session: CliContext): Promise<number> {
  const { io, options } = session;
  const config = await session.host.config();
  const rows = config.profiles.flatMap((profile) =>
    profile.layers.map((layer, i) => ({
      name: profile.name,
      narrows: i > 0 || layer.origin.layer === 'project' || layer.origin.layer === 'ancestor',
      layer,
    })),
  );
  if (options.json) {
    io.stdout.write(
      toJson(
        config.profiles.map((profile) => ({
          name: profile.name,
          layers: profile.layers.map(({ origin, servers, tools, excludeTools, permission }) => ({
            file: origin.file,
            ...(origin.line ? { line: origin.line } : {}),
            layer: origin.layer,
            ...(servers ? { servers } : {}),
            ...(tools ? { tools } : {}),
            ...(excludeTools ? { exclude_tools: excludeTools } : {}),
            ...(permission ? { permission } : {}),
          })),
        })),
      ),
    );
    return ExitCode.Ok;
  }
  if (rows.length === 0) {
    io.stdout.write(
      say`no profiles: define them under "profiles" in ~/.mcpx/mcp.json, e.g. "profiles": {"review": {"servers": ["github"], "tools": ["github.get_*"]}}\n`,
    );
    return ExitCode.Ok;
  }
  const list = (items: readonly string[] | undefined) => (items ? items.join(', ') : 'all');
  io.stdout.write(
    say`${renderTable(
      ['PROFILE', 'SERVERS', 'TOOLS', 'EXCLUDED', 'PERMISSION', 'DEFINED IN'],
      rows.map(({ name, narrows, layer }) =>
        [
          narrows ? `${name} (narrowed)` : name,
          list(layer.servers),
          list(layer.tools),
          layer.excludeTools ? layer.excludeTools.join(', ') : '-',
          layer.permission ?? '-',
          `${layer.origin.file ? displayPath(layer.origin.file, io.homedir) : layer.origin.layer}${layer.origin.line ? `:${layer.origin.line}` : ''}`,
        ].map(forTerminal),
      ),
    )}\n`,
  );
  return ExitCode.Ok;
}
