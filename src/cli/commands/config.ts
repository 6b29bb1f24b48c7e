import {
  configPaths,
  loadTrustStore,
  trustServers,
  untrustedServers,
  validateConfig,
} from '../../config/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { ExitCode } from '../exit-codes.js';
import { toJson } from '../output/json.js';
import { renderTable } from '../output/table.js';
import { renderError, writeError } from '../report.js';
import { type CliSession, describeForTrust } from '../session.js';

function loadOptions(session: CliSession) {
  const { io, options } = session;
  return {
    cwd: io.cwd,
    env: io.env,
    home: session.home,
    ...(options.config ? { configFile: options.config } : {}),
  };
}

/** `mcpx config path`: every file mcpx reads, in precedence order (later wins). */
export async function runConfigPath(session: CliSession): Promise<number> {
  const { io, options } = session;
  const paths = await configPaths(loadOptions(session));
  if (options.json) io.stdout.write(toJson(paths));
  else
    io.stdout.write(
      `${renderTable(
        ['LAYER', 'FILE', 'EXISTS'],
        paths.map((p) => [p.layer, p.path, p.exists ? 'yes' : 'no']),
      )}\n`,
    );
  return ExitCode.Ok;
}

/** `mcpx config validate`: every problem in every file, not just the first. */
export async function runConfigValidate(session: CliSession): Promise<number> {
  const { io, options } = session;
  const result = await validateConfig(loadOptions(session));
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
    io.stdout.write(`ok: ${result.serverCount} servers in ${result.files.length} files\n`);
  } else {
    for (const problem of result.problems) io.stderr.write(`${renderError(problem, true)}\n\n`);
    io.stderr.write(`${result.problems.length} problem(s) found\n`);
  }
  return result.problems.length === 0 ? ExitCode.Ok : ExitCode.Config;
}

/** `mcpx config trust [--yes]`: approve the project entries that are not trusted yet. */
export async function runConfigTrust(session: CliSession, yes: boolean): Promise<number> {
  const { io } = session;
  const config = await session.config();
  const store = await loadTrustStore(session.home);
  const pending = untrustedServers(
    store,
    config.servers.filter((s) => s.requiresTrust),
  );
  if (pending.length === 0) {
    io.stdout.write('nothing to approve: every project server is trusted\n');
    return ExitCode.Ok;
  }
  const approved = [];
  for (const server of pending) {
    io.stderr.write(`${describeForTrust(server)}\n`);
    if (yes) approved.push(server);
    else if (io.interactive && io.confirm && (await io.confirm('Trust this server?'))) approved.push(server);
  }
  if (!yes && !io.interactive) {
    writeError(
      session,
      new McpxError(ErrorCode.ConfigUntrusted, 'no terminal to ask on, so nothing was approved', {
        fixes: ['review the entries above, then run `mcpx config trust --yes` to approve them'],
      }),
    );
    return ExitCode.Config;
  }
  if (approved.length) await trustServers(session.home, approved);
  io.stdout.write(`approved ${approved.length} of ${pending.length} server(s)\n`);
  return approved.length === pending.length ? ExitCode.Ok : ExitCode.Config;
}
