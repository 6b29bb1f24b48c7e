import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { exportServers, HOSTS } from '../../config/hosts/index.js';
import { readConfigText } from '../../config/index.js';
import { forTerminal } from '../../text/index.js';
import { ExitCode } from '../exit-codes.js';
import { usageError } from '../global-options.js';
import { plural } from '../output/plural.js';
import type { CliSession } from '../session.js';
import { hostContext, hostId } from './host-context.js';

export interface ExportFlags {
  readonly to?: string;
  readonly servers?: string;
  readonly write?: boolean;
}

/**
 * `mcpx config export --to <host> [--servers a,b] [--write]`: mcpx's servers
 * in that host's dialect, printed, or merged into the host's own file. Only
 * trusted servers go: a repository's entry nobody approved stays behind.
 */
export async function runConfigExport(session: CliSession, flags: ExportFlags): Promise<number> {
  const { io } = session;
  if (flags.to === undefined) throw usageError('config export needs --to <host>', 'e.g. --to claude-code');
  const host = hostId(flags.to);
  const dialect = HOSTS[host];
  const config = await session.config();
  const wanted = flags.servers
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const defined = [...config.servers, ...config.unapproved];
  for (const name of wanted ?? []) {
    if (!defined.some((s) => s.name === name))
      throw usageError(`no server named '${name}'`, 'run `mcpx list` to see the configured servers');
  }
  const chosen = defined.filter((s) =>
    wanted ? wanted.includes(s.name) : s.origin.layer !== 'builtin' && s.origin.layer !== 'adhoc',
  );
  const trusted = chosen.filter((s) => {
    if (!s.unapproved) return true;
    io.stderr.write(
      `skipped '${forTerminal(s.name)}' from ${forTerminal(s.origin.file ?? '')}: not trusted yet — review it and run \`mcpx config trust\`\n`,
    );
    return false;
  });
  if (trusted.length === 0) io.stderr.write('note: no trusted servers to export\n');
  const ctx = hostContext(session);
  const file = dialect.files(ctx).find((f) => f.scope === 'user');
  if (!flags.write || !file) {
    const result = exportServers(host, trusted, ctx);
    for (const note of result.notes) io.stderr.write(`note: ${forTerminal(note)}\n`);
    io.stdout.write(result.text);
    return ExitCode.Ok;
  }
  const base = await readConfigText(file.path).then(
    (read) => read.text,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    },
  );
  const result = exportServers(host, trusted, ctx, base);
  for (const note of result.notes) io.stderr.write(`note: ${forTerminal(note)}\n`);
  if (host === 'codex' && base !== undefined)
    io.stderr.write(`note: ${file.path} was rewritten; TOML comments in it are not kept\n`);
  await mkdir(dirname(file.path), { recursive: true });
  await writeFile(file.path, result.text);
  io.stdout.write(
    `wrote ${plural(Object.keys(result.servers).length, 'server')} to ${dialect.label}'s ${file.path}\n`,
  );
  return ExitCode.Ok;
}
