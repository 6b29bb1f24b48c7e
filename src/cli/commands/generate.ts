import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import {
  catalogueDrift,
  driftError,
  driftLine,
  generateModule,
  type ListedCatalogue,
  readManifest,
  staleFiles,
  type ToolDrift,
} from '../../codegen/index.js';
import { toolSwitchedOff } from '../../config/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../../errors/index.js';
import { forTerminal, say } from '../../text/index.js';
import { PROMPT_ACTION, RESOURCE_ACTIONS } from '../../tools/index.js';
import { VERSION } from '../../version.js';
import type { CliContext } from '../context/context.js';
import { ExitCode, exitCodeFor } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { writeErrors } from '../target/report.js';

/** Flags of `mcpx generate`. */
export interface GenerateFlags {
  /** A `.ts` file (one server), or a directory that gets `<server>.ts` per server. */
  readonly out?: string;
  /** Compare the files at `--out` with the servers instead of writing them. */
  readonly check?: boolean;
  /** The module specifier the generated code imports mcpx from (default `mcpx`). */
  readonly importFrom?: string;
  /** `module` (default): a file per server; `tree`: a folder per server, a file per tool and an index. */
  readonly layout?: string;
}

/** One server's outcome, as `--json` reports it. */
interface GenerateReport {
  readonly server: string;
  readonly file?: string;
  readonly tools: number;
  readonly resources: number;
  readonly prompts: number;
  readonly fingerprint: string;
  readonly drift?: readonly ToolDrift[];
  /** With `--layout tree`: the files of tools that are gone, removed. */
  readonly removed?: readonly string[];
}

/** `mcpx generate <server...> [--out file|dir] [--check] [--import-from spec]` */
export async function runGenerate(
  session: CliContext,
  servers: readonly string[],
  flags: GenerateFlags,
): Promise<number> {
  const files = outputFiles(session, servers, flags);
  const reports: GenerateReport[] = [];
  const errors: McpxError[] = [];
  for (const server of servers) {
    const file = files.get(server);
    try {
      const catalogue = await listedCatalogue(session, server);
      const report = flags.check
        ? await checkOne(server, catalogue, file as string)
        : await generateOne(session, server, catalogue, file, flags);
      reports.push(report);
      if (report.drift?.length)
        errors.push(driftError(server, report.drift, { file: report.file as string }));
    } catch (error) {
      errors.push(toMcpxError(error));
    }
  }
  const { io, options } = session;
  if (options.json) io.stdout.write(toJson(reports));
  else if (files.size > 0) {
    for (const r of reports) {
      const what = !flags.check ? 'written' : r.drift?.length ? 'differs' : 'matches';
      io.stdout.write(say`${r.file ?? ''}: ${what} (${r.server}, ${counts(r)})\n`);
      for (const removed of r.removed ?? []) io.stdout.write(say`  removed ${removed}\n`);
      // What changed, one line each: the tools' names are the server's text.
      for (const drift of r.drift ?? []) io.stdout.write(say`  ${forTerminal(driftLine(drift))}\n`);
    }
  }
  writeErrors(session, errors);
  const first = errors[0];
  return first ? exitCodeFor(first.code) : ExitCode.Ok;
}

/** Each server's file: `--out` itself for one server and a `.ts` name, else `<dir>/<server>.ts`. */
function outputFiles(
  session: CliContext,
  servers: readonly string[],
  flags: GenerateFlags,
): Map<string, string> {
  const files = new Map<string, string>();
  if (flags.layout !== undefined && flags.layout !== 'module' && flags.layout !== 'tree') {
    throw new McpxError(ErrorCode.Usage, `unknown layout '${flags.layout}'`, {
      fixes: ['--layout module (a file per server) or --layout tree (a folder per server, a file per tool)'],
    });
  }
  if (flags.out === undefined) {
    if (flags.check || servers.length > 1 || isTree(flags)) {
      throw new McpxError(
        ErrorCode.Usage,
        flags.check
          ? '--check needs the generated files: name them with --out'
          : 'several servers need a directory',
        { fixes: [`mcpx generate ${flags.check ? '--check ' : ''}${servers.join(' ')} --out <dir>`] },
      );
    }
    return files;
  }
  const out = resolve(session.io.cwd, flags.out);
  if (isTree(flags)) {
    // A folder per server: its index is the file the manifest is in.
    for (const server of servers) files.set(server, join(out, fileNameFor(server), 'index.ts'));
    return files;
  }
  const oneFile = servers.length === 1 && extname(out) === '.ts';
  for (const server of servers) files.set(server, oneFile ? out : join(out, `${fileNameFor(server)}.ts`));
  return files;
}

const isTree = (flags: GenerateFlags): boolean => flags.layout === 'tree';

/** A server's name as a file name: as it is when it is a plain one, else its unsafe characters as `_`. */
function fileNameFor(server: string): string {
  const name = server.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return name === '' ? 'server' : name;
}

/** `3 tools, 2 resources, 1 prompt`: what a module was generated from (nothing left out but zeros past the tools). */
const counts = (r: GenerateReport): string =>
  [
    plural(r.tools, 'tool'),
    ...(r.resources > 0 ? [plural(r.resources, 'resource')] : []),
    ...(r.prompts > 0 ? [plural(r.prompts, 'prompt')] : []),
  ].join(', ');

/**
 * The server's tools as the host lists them (connected, its config's tool lists applied), and
 * its resources, resource templates and prompts.
 */
async function listedCatalogue(session: CliContext, name: string): Promise<ListedCatalogue> {
  const { host } = session;
  const config = await host.server(name);
  await host.connect(config);
  const registry = await host.registry();
  await registry.toolsSettled(name);
  const { tools, listingError } = registry.status(name);
  if (listingError) throw listingError;
  // An entry that switches off `resources/read` or `prompts/get` gets no functions for them, as a tool.
  const readable = toolSwitchedOff(config, RESOURCE_ACTIONS.read.name) === undefined;
  const prompting = toolSwitchedOff(config, PROMPT_ACTION.name) === undefined;
  const [resources, resourceTemplates, prompts] = await registry.use(name, (c) =>
    Promise.all([
      readable ? c.listResources() : [],
      readable ? c.listResourceTemplates() : [],
      prompting ? c.listPrompts() : [],
    ]),
  );
  return { tools, resources, resourceTemplates, prompts };
}

const sizes = (catalogue: ListedCatalogue) => ({
  tools: catalogue.tools.length,
  resources: catalogue.resources.length + catalogue.resourceTemplates.length,
  prompts: catalogue.prompts.length,
});

async function generateOne(
  session: CliContext,
  server: string,
  catalogue: ListedCatalogue,
  file: string | undefined,
  flags: GenerateFlags,
): Promise<GenerateReport> {
  const generated = generateModule({
    server,
    ...catalogue,
    generator: VERSION,
    ...(flags.importFrom ? { importFrom: flags.importFrom } : {}),
    ...(isTree(flags) ? { layout: 'tree' as const } : {}),
  });
  const summary = { server, ...sizes(catalogue), fingerprint: generated.manifest.fingerprint };
  if (file === undefined) {
    // The source is ASCII in its literals and made fit in its comments: forTerminal changes nothing.
    if (!session.options.json) session.io.stdout.write(forTerminal(generated.source));
    return summary;
  }
  await mkdir(dirname(file), { recursive: true });
  const folder = dirname(file);
  // Before anything is written: the files the index there now says it wrote, of tools now gone.
  const stale = isTree(flags) ? await staleFiles(folder, await readOrNothing(file), generated.toolFiles) : [];
  // The tools' files first, the index last: a folder with an index is a whole one.
  for (const [name, source] of generated.toolFiles) await writeFile(join(folder, name), source);
  await writeFile(file, generated.source);
  for (const name of stale) await unlink(join(folder, name));
  return { ...summary, file, ...(stale.length > 0 ? { removed: stale } : {}) };
}

/** A file's text, or undefined when there is none yet. */
async function readOrNothing(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

async function checkOne(server: string, catalogue: ListedCatalogue, file: string): Promise<GenerateReport> {
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (error) {
    throw new McpxError(ErrorCode.Usage, `cannot read ${file}: ${(error as Error).message}`, {
      server,
      origin: { file },
      fixes: [`generate it first: mcpx generate ${server} --out ${file}`],
    });
  }
  const manifest = readManifest(source, file);
  if (manifest.server !== server) {
    throw new McpxError(ErrorCode.Usage, `${file} was generated for '${manifest.server}', not '${server}'`, {
      server,
      origin: { file },
      fixes: [`mcpx generate --check ${manifest.server} --out ${file}`],
    });
  }
  const drift = catalogueDrift(manifest, catalogue);
  return { server, file, ...sizes(catalogue), fingerprint: manifest.fingerprint, drift };
}
