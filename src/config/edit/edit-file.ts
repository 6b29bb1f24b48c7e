import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { createHomeFiles, type FileChange, type FileLockOptions, updateUnderLock } from '../../home/index.js';
import { loadConfigFile } from '../file/load-file.js';
import { configCandidates, globalConfigPath } from '../load/discover.js';
import { readConfigText } from '../parse/read-config-text.js';
import type { ConfigLayer } from '../types.js';
import { editConfigText, type ServerEdit, type TextEditResult } from './edit-text.js';

/** Which file an edit goes to: the user's global `mcp.json` or the project's `.mcpx/mcp.json`. */
export type ConfigScope = 'global' | 'project';

/** Which config file `editConfigFile` changes, and the change: add, replace or remove one server entry. */
export interface EditConfigFileOptions {
  readonly scope: ConfigScope;
  /** The project folder (for `project`, and to find the server in other layers for an error). */
  readonly cwd: string;
  /** The mcpx home (`resolveMcpxHome`): the global file is `<home>/mcp.json`. */
  readonly home: string;
  readonly edit: ServerEdit;
  /** Ends a wait for the file's lock (Ctrl-C). */
  readonly signal?: AbortSignal;
}

/** The file `editConfigFile` changed, and what it did to it. */
export interface EditConfigFileResult extends TextEditResult {
  readonly file: string;
  readonly scope: ConfigScope;
  /** True when the file did not exist and was made for this edit. */
  readonly created: boolean;
}

/** The file a scope edits. */
export function scopeFile(scope: ConfigScope, cwd: string, home: string): string {
  return scope === 'global' ? globalConfigPath(home) : join(resolve(cwd), '.mcpx', 'mcp.json');
}

/**
 * Edit one server in the global or project config file, as `claude mcp add`
 * does: comments and formatting kept (`editConfigText`), the new text checked
 * as mcpx loads it, then written atomically (a temporary file beside it and a
 * rename), so a refused or failed edit leaves the file as it was. The global
 * file is written through `home/` (0600, links refused); a missing file and
 * its folder are created for an `add`. The file is read, edited and written
 * under its lock (`updateConfigFile`), so edits from many processes at once
 * all land.
 *
 * A name that is not in the file is an `UnknownServer` error naming the
 * servers there and, when another layer defines it, that file and scope.
 *
 * @example
 * await editConfigFile({ scope: 'global', cwd, home, edit: { kind: 'disable', name: 'fs' } });
 */
export async function editConfigFile(options: EditConfigFileOptions): Promise<EditConfigFileResult> {
  const { scope, cwd, home, edit } = options;
  const file = scopeFile(scope, cwd, home);
  const layer: ConfigLayer = scope;
  const builtinSwitch = edit.name === 'demo' && (edit.kind === 'enable' || edit.kind === 'disable');
  let result: TextEditResult | undefined;
  let created = false;
  try {
    const lockOptions = options.signal ? { signal: options.signal } : {};
    await updateConfigFile(scope, file, home, lockOptions, (current) => {
      created = current === undefined;
      if (current === undefined && edit.kind !== 'add' && !builtinSwitch) {
        throw new McpxError(
          ErrorCode.UnknownServer,
          `no server named '${edit.name}': ${file} does not exist`,
          {
            server: edit.name,
            origin: { layer, file },
          },
        );
      }
      result = editConfigText(current ?? '', file, layer, edit);
      return result.outcome === 'unchanged' ? undefined : result.text;
    });
  } catch (error) {
    if (error instanceof McpxError && error.code === ErrorCode.UnknownServer)
      throw await withOtherLayers(error, options, file);
    throw error;
  }
  // `update` runs the change or throws: a result is there.
  if (result === undefined) throw new McpxError(ErrorCode.Internal, `the edit of ${file} did not run`);
  return { ...result, file, scope, created };
}

/**
 * Read-modify-write the global (`<home>/mcp.json`, through `home/`) or a
 * project config file under its lock: lock, read afresh, `change`, write
 * atomically, unlock. Every writer of mcpx's own config files goes through
 * here (`config add|remove|enable|disable`, `config import`).
 */
export async function updateConfigFile(
  scope: ConfigScope,
  file: string,
  home: string,
  options: FileLockOptions,
  change: FileChange,
): Promise<string | undefined> {
  if (scope === 'global') return createHomeFiles(resolve(home)).update('mcp.json', change, options);
  return updateProjectFile(file, change, options);
}

/** Adds where else the server is defined (another layer's file) to a "not in this file" error. */
async function withOtherLayers(
  error: McpxError,
  options: EditConfigFileOptions,
  file: string,
): Promise<McpxError> {
  const { name, kind } = options.edit;
  const elsewhere: string[] = [];
  for (const candidate of configCandidates({ cwd: options.cwd, env: {}, home: options.home })) {
    if (resolve(candidate.path) === resolve(file)) continue;
    const load = await loadConfigFile(candidate.path, candidate.layer);
    if (!load?.drafts.some((d) => d.base.name === name)) continue;
    const scope = scopeOf(candidate.path, candidate.layer, options);
    elsewhere.push(
      scope
        ? `'${name}' is in ${candidate.path} (${candidate.layer}): mcpx config ${kind} ${name} --scope ${scope}`
        : `'${name}' is in ${candidate.path} (${candidate.layer}); edit that file`,
    );
  }
  if (name === 'demo' && elsewhere.length === 0)
    elsewhere.push(
      'demo is the built-in server: it cannot be removed, switch it off with mcpx config disable demo',
    );
  return new McpxError(error.code, error.message, {
    ...error.context,
    fixes: [...elsewhere, ...error.fixes],
  });
}

function scopeOf(path: string, layer: ConfigLayer, options: EditConfigFileOptions): ConfigScope | undefined {
  if (layer === 'global') return 'global';
  return resolve(path) === scopeFile('project', options.cwd, options.home) ? 'project' : undefined;
}

/**
 * The project file's text, or `undefined` when there is none. Exported so
 * every project-scope writer (`config add|remove|enable|disable`, `config
 * import --scope project`) reads and writes the one way.
 */
export async function readProjectFile(file: string): Promise<string | undefined> {
  await refuseRepositoryLinks(file);
  try {
    return (await readConfigText(file)).text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error instanceof McpxError ? error : fileFailure(file, 'read', error);
  }
}

/**
 * Read-modify-write a file outside the mcpx home (a project's `.mcpx/mcp.json`,
 * another client app's config on export) under its lock (`.<name>.mcpx-lock` beside it,
 * `home/file-lock.ts`): links refused, the file read afresh once the lock is
 * held, `change`d, written with `writeProjectFile`, the lock removed. A missing
 * folder is made only when there is something to write: `change` then runs once
 * first without the lock (on no file) to find out, so it must not count on
 * running once.
 */
export async function updateProjectFile(
  file: string,
  change: FileChange,
  options: FileLockOptions = {},
): Promise<string | undefined> {
  await refuseRepositoryLinks(file);
  const folder = dirname(file);
  if (!(await isFolder(folder))) {
    // Nothing to lock yet: a change that writes nothing (or throws) leaves no folder behind.
    const next = await change(undefined);
    if (next === undefined) return undefined;
    await mkdir(folder, { recursive: true }).catch((error: unknown) => {
      throw fileFailure(file, 'create the folder of', error);
    });
  }
  return updateUnderLock(
    file,
    { read: () => readProjectFile(file), write: (text) => writeProjectFile(file, text) },
    change,
    { ...options, failed: (error, lockPath) => fileFailure(lockPath, 'lock', error) },
  );
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

/** A temporary file in the same folder, then a rename: readers see the old file or the new one, never half. */
export async function writeProjectFile(file: string, text: string): Promise<void> {
  await refuseRepositoryLinks(file);
  const mode = await stat(file).then(
    (s) => s.mode & 0o777,
    () => undefined,
  );
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(temp, text, { flag: 'wx', mode: mode ?? 0o644 });
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw fileFailure(file, 'write', error);
  }
}

/**
 * A project's `.mcpx` folder and the file in it are the repository's: a
 * planted link (`.mcpx` → `~/.mcpx`) would send a project-scope write into
 * the user's global file, where the repository's server then runs trusted in
 * every folder. Neither may be a symbolic link; the folders above the
 * project are the user's own and are not checked.
 */
async function refuseRepositoryLinks(file: string): Promise<void> {
  for (const path of [dirname(file), file]) {
    const stats = await lstat(path).catch(() => undefined);
    if (!stats?.isSymbolicLink()) continue;
    const target = await realpath(path).catch(() => 'a missing target');
    throw new McpxError(
      ErrorCode.ConfigLinked,
      `refusing to use ${file}: ${path} is a symbolic link (to ${target})`,
      {
        origin: { layer: 'project', file },
        causes: ['a cloned repository can plant a link there to send a project-scope write somewhere else'],
        fixes: [
          `remove the link (rm ${path}) and run the command again`,
          `or, if you made the link yourself, edit ${target} directly`,
        ],
      },
    );
  }
}

function fileFailure(file: string, action: string, error: unknown): McpxError {
  const code = (error as NodeJS.ErrnoException).code;
  return new McpxError(ErrorCode.ConfigUnreadable, `cannot ${action} ${file}${code ? ` (${code})` : ''}`, {
    cause: error,
    origin: { layer: 'project', file },
    fixes: [`check '${file}' and its folder (ls -ld '${dirname(file)}') and run again`],
  });
}
