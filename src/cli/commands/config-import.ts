import {
  applyImport,
  findClientAppFiles,
  type ImportItem,
  planImport,
  sourceComment,
} from '../../config/client-apps/import.js';
import { CLIENT_APP_IDS, CLIENT_APPS } from '../../config/client-apps/index.js';
import { readProjectFile, scopeFile, updateConfigFile } from '../../config/index.js';
import { displayPath, ErrorCode, McpxError } from '../../errors/index.js';
import { createHomeFiles } from '../../home/index.js';
import { forTerminal, say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { usageError } from '../context/global-options.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { writeError } from '../target/report.js';
import { clientAppContext, clientAppId } from './client-app-context.js';

export interface ImportFlags {
  readonly scope?: string;
  readonly dryRun?: boolean;
  readonly yes?: boolean;
  readonly rename?: readonly string[];
  readonly overwrite?: boolean;
  readonly copyValues?: boolean;
}

function renames(flags: readonly string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  for (const flag of flags) {
    const at = flag.indexOf('=');
    if (at <= 0 || at === flag.length - 1)
      throw usageError(`--rename takes old=new, got '${flag}'`, 'e.g. --rename github=github-work');
    out.set(flag.slice(0, at), flag.slice(at + 1));
  }
  return out;
}

const MARK = { add: '+', replace: '~', skip: '-' } as const;

/** The same servers with the same actions: what the person said yes to. */
function samePlan(a: ReturnType<typeof planImport>, b: ReturnType<typeof planImport>): boolean {
  const key = (plan: ReturnType<typeof planImport>) =>
    plan.items.map((i) => `${i.action} ${i.name}`).join('\n');
  return key(a) === key(b);
}

function changedMeanwhile(target: string): McpxError {
  return new McpxError(
    ErrorCode.ConfigChanged,
    `${target} changed while the import was being previewed; nothing was written`,
    {
      origin: { file: target },
      causes: [
        'another command edited it since it was read, so what the preview showed is no longer what would happen',
      ],
      fixes: ['run the same command again to see the new preview'],
    },
  );
}

function describe(item: ImportItem): string {
  const source = sourceComment(item.from).replace(/^\/\/ imported from /, '');
  const head = `${MARK[item.action]} ${item.name}  from ${source}`;
  return forTerminal(
    item.reason ? `${head}\n    ${item.action === 'skip' ? 'skipped: ' : ''}${item.reason}` : head,
  );
}

/**
 * `mcpx config import [hosts…]`: the servers of every client app found (or those
 * named) copied into mcpx's global file (`--scope project`: `./.mcpx/mcp.json`),
 * after a preview of what is added, replaced or skipped and why.
 */
export async function runConfigImport(session: CliContext, names: readonly string[], flags: ImportFlags) {
  const { io, options } = session;
  const scope = flags.scope ?? 'global';
  if (scope !== 'global' && scope !== 'project')
    throw usageError(`--scope is global or project, not '${scope}'`);
  const apps = names.length ? names.map(clientAppId) : [...CLIENT_APP_IDS];
  const ctx = clientAppContext(session);
  const found = await findClientAppFiles(apps, ctx);
  for (const f of found) {
    if (f.error)
      io.stderr.write(say`warning: ${CLIENT_APPS[f.app].label}: ${session.forPerson(f.error.message)}\n`);
    for (const w of f.read?.warnings ?? []) io.stderr.write(say`warning: ${session.forPerson(w)}\n`);
  }
  const target = scopeFile(scope, io.cwd, session.host.home);
  const layer = scope === 'global' ? 'global' : 'project';
  const home = createHomeFiles(session.host.home);
  const current = scope === 'global' ? await home.readText('mcp.json') : await readProjectFile(target);
  const planFor = (text: string | undefined) =>
    planImport(found, text, target, {
      targetLayer: layer,
      ...(flags.overwrite ? { overwrite: true } : {}),
      ...(flags.copyValues ? { copyValues: true } : {}),
      rename: renames(flags.rename),
      ...(process.argv[1] ? { selfScript: process.argv[1] } : {}),
    });
  const plan = planFor(current);
  const writing = plan.items.filter((i) => i.action !== 'skip');
  if (options.json) {
    // The preview never prints a value: each entry as it reads with references (`secrets` says which were copied).
    // The client app a server came from stays `from.host` in the JSON, which scripts read.
    const items = plan.items.map(({ name, from: { app, ...from }, shown, ...item }) => ({
      name,
      from: { host: app, ...from },
      ...item,
      entry: shown,
    }));
    io.stdout.write(toJson({ target, dryRun: flags.dryRun === true, items, notes: plan.notes }));
  } else {
    const files = found
      .filter((f) => f.read)
      .map((f) => `${CLIENT_APPS[f.app].label}: ${displayPath(f.file.path, io.homedir)}`);
    io.stdout.write(
      files.length
        ? say`read ${plural(files.length, 'file')}:\n${files.map((f) => `  ${forTerminal(f)}`).join('\n')}\n`
        : say`no config file of ${apps.length === CLIENT_APP_IDS.length ? 'any client app' : apps.join(', ')} was found\n`,
    );
    if (plan.items.length)
      io.stdout.write(say`${session.forPerson(`into ${target}:\n${plan.items.map(describe).join('\n')}`)}\n`);
    for (const note of plan.notes) io.stdout.write(say`note: ${session.forPerson(note)}\n`);
  }
  if (writing.length === 0) {
    if (!options.json) io.stdout.write(say`nothing to write\n`);
    return ExitCode.Ok;
  }
  if (flags.dryRun) return ExitCode.Ok;
  if (!flags.yes) {
    if (!io.interactive || !io.confirm) {
      writeError(
        session,
        new McpxError(ErrorCode.Usage, 'no terminal to ask on, so nothing was written', {
          fixes: ['review the preview above, then run the same command with --yes to write it'],
        }),
      );
      return ExitCode.Usage;
    }
    if (
      !(await io.confirm(
        say`Write ${plural(writing.length, 'server')} into ${displayPath(target, io.homedir)}?`,
      ))
    ) {
      io.stdout.write(say`nothing written\n`);
      return ExitCode.Ok;
    }
  }
  // The preview was of the file as it was; under the lock it is read again, and another
  // command's edit made meanwhile is kept, unless it changed what this import would do.
  await updateConfigFile(scope, target, session.host.home, { signal: io.signal }, (now) => {
    if (now === current) return applyImport(now, target, layer, plan);
    const replanned = planFor(now);
    if (!samePlan(replanned, plan)) throw changedMeanwhile(target);
    return applyImport(now, target, layer, replanned);
  });
  if (!options.json) {
    io.stdout.write(say`wrote ${plural(writing.length, 'server')} to ${displayPath(target, io.homedir)}\n`);
    if (scope === 'project')
      io.stdout.write(say`project servers start once approved: review them and run \`mcpx config trust\`\n`);
  }
  return ExitCode.Ok;
}
