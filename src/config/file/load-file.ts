import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { type NormalizeResult, normalizeServer, type ServerDraft } from '../entry/normalize-server.js';
import { TOP_LEVEL_KEYS } from '../entry/server-fields.js';
import { parseJsonc } from '../parse/parse-jsonc.js';
import { type ConfigText, hideLinkedContent, readConfigText } from '../parse/read-config-text.js';
import { suggest } from '../parse/suggest.js';
import { inputRequests } from '../resolve/input-variable.js';
import type { ConfigLayer, ConfigWarning, FileDialect, InputRequest, ServerOrigin } from '../types.js';
import { type CollectResult, collectEntries } from './collect-entries.js';

/** One file read and validated: its valid entries as drafts, and every problem found. */
export interface FileLoad {
  readonly path: string;
  readonly layer: ConfigLayer;
  /** Server entries in the file, valid or not. */
  readonly serverCount: number;
  readonly drafts: readonly ServerDraft[];
  readonly problems: readonly McpxError[];
  /** Another client app's keys that look like typos of mcpx's (lenient files only). */
  readonly warnings?: readonly ConfigWarning[];
  /** The file's `roots`, made absolute against the file's directory. */
  readonly roots?: readonly string[];
  readonly permission?: 'yolo' | 'trusted' | 'sandboxed';
  /** The file's `audit_log`, a path made absolute against the file's directory (`~/` is the home), or false. */
  readonly auditLog?: string | false;
  /** Entries that only switch off a server of an earlier layer (see NormalizeResult.switchOff). */
  readonly switchOffs?: readonly NonNullable<NormalizeResult['switchOff']>[];
  /** `"demo": {"enabled": …}`: the built-in demo server on or off. */
  readonly demo?: { readonly enabled: boolean; readonly origin: ServerOrigin };
  /** VS Code's `inputs` (top level, or inside `"mcp"`): what to say when asking for a `${input:id}`. */
  readonly inputs?: readonly InputRequest[];
  /** `"import": [...]`: client apps whose servers this file reads live. */
  readonly imports?: CollectResult['imports'];
  /** `"profiles": {...}`: this file's definitions. */
  readonly profiles?: CollectResult['profiles'];
}

/**
 * Read, parse and validate one config file. Returns `undefined` when the file
 * does not exist (absent layers are normal); any other read failure and every
 * syntax or schema problem is returned in `problems`, not thrown, so a caller
 * can report all files at once.
 *
 * `dialect` says how strictly: mcpx's own files refuse unknown keys, other
 * client apps' files pass over them (see `ConfigCandidate.dialect`).
 */
export async function loadConfigFile(
  path: string,
  layer: ConfigLayer,
  dialect: FileDialect = 'mcpx',
): Promise<FileLoad | undefined> {
  let read: ConfigText;
  try {
    read = await readConfigText(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: `.mcpx` exists but is a file, so `.mcpx/mcp.json` cannot exist either.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    const problem =
      error instanceof McpxError
        ? error.withContext({ origin: { layer, file: path } })
        : unreadable(path, layer, error);
    return { path, layer, serverCount: 0, drafts: [], problems: [problem] };
  }
  const load = loadConfigText(read.text, path, layer, dialect);
  const { linkedTo } = read;
  if (linkedTo === undefined) return load;
  const { warnings, ...rest } = load;
  // Warnings quote the file's keys; a linked file's content is never shown, so they go too.
  return { ...rest, problems: load.problems.map((p) => hideLinkedContent(p, path, linkedTo)) };
}

/**
 * Parse and validate a config file's text as if it were read from `path`:
 * what `loadConfigFile` does after reading, for text not written yet (an edit
 * is checked before it replaces the file).
 */
export function loadConfigText(
  text: string,
  path: string,
  layer: ConfigLayer,
  dialect: FileDialect = 'mcpx',
): FileLoad {
  let doc: ReturnType<typeof parseJsonc>;
  try {
    doc = parseJsonc(text, path);
  } catch (error) {
    const problem =
      error instanceof McpxError ? error.withContext({ origin: { ...error.context.origin, layer } }) : error;
    return { path, layer, serverCount: 0, drafts: [], problems: [problem as McpxError] };
  }
  const lenient = (dialect === 'detect' ? detectDialect(path, doc.value) : dialect) === 'foreign';
  const collected = collectEntries(doc, layer, lenient);
  const problems = [...collected.problems];
  const warnings = [...collected.warnings];
  const drafts: ServerDraft[] = [];
  const switchOffs: NonNullable<NormalizeResult['switchOff']>[] = [];
  for (const entry of collected.entries) {
    const result = normalizeServer(entry, doc, layer, lenient);
    problems.push(...result.problems);
    warnings.push(...(result.warnings ?? []));
    if (result.draft) drafts.push(result.draft);
    if (result.switchOff) switchOffs.push(result.switchOff);
  }
  const demo = collected.demo && {
    enabled: collected.demo.enabled,
    origin: { layer, file: path, ...(collected.demo.line ? { line: collected.demo.line } : {}) },
  };
  const roots = collected.roots?.map((root) => resolve(dirname(path), root));
  return {
    path,
    layer,
    serverCount: collected.entries.length,
    drafts,
    problems,
    ...(warnings.length ? { warnings } : {}),
    ...(roots ? { roots } : {}),
    ...(collected.permission ? { permission: collected.permission } : {}),
    ...(collected.auditLog !== undefined ? { auditLog: auditLogPath(collected.auditLog, path) } : {}),
    ...(switchOffs.length ? { switchOffs } : {}),
    ...(demo ? { demo } : {}),
    ...(collected.imports ? { imports: collected.imports } : {}),
    ...(collected.profiles ? { profiles: collected.profiles } : {}),
    ...declaredInputs(doc.value, path),
  };
}

function auditLogPath(written: string | false, file: string): string | false {
  if (written === false) return false;
  const path = written.trim();
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  return resolve(dirname(file), path);
}

function declaredInputs(root: unknown, path: string): { inputs?: InputRequest[] } {
  if (root === null || typeof root !== 'object') return {};
  const { inputs, mcp } = root as { inputs?: unknown; mcp?: { inputs?: unknown } };
  const all = [...inputRequests(inputs, path), ...inputRequests(mcp?.inputs, path)];
  return all.length ? { inputs: all } : {};
}

/**
 * Whether a `--config` file is mcpx's own: a `.mcpx/mcp.json`, or a file
 * whose top-level keys are all mcpx's, near misses of them (`mcpServer`) or
 * a server written without its section, which are mistakes to point out.
 * Anything else (`~/.claude.json` with `numStartups`, Claude Desktop's
 * `globalShortcut`, `.mcp.json`) is another client app's, read leniently, so mcpx
 * never tells anyone to delete a client app's own state.
 */
function detectDialect(path: string, root: unknown): 'mcpx' | 'foreign' {
  if (basename(path) === '.mcp.json') return 'foreign';
  if (basename(path) === 'mcp.json' && basename(dirname(path)) === '.mcpx') return 'mcpx';
  if (root === null || typeof root !== 'object' || Array.isArray(root)) return 'mcpx';
  const known: readonly string[] = TOP_LEVEL_KEYS;
  const ours = ([key, value]: [string, unknown]) =>
    known.includes(key) ||
    suggest(key, known) !== undefined ||
    (value !== null && typeof value === 'object' && ('command' in value || 'url' in value));
  return Object.entries(root).every(ours) ? 'mcpx' : 'foreign';
}

function unreadable(path: string, layer: ConfigLayer, error: unknown): McpxError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'EISDIR'
        ? 'it is a directory, not a file'
        : error instanceof Error
          ? error.message
          : String(error);
  return new McpxError(ErrorCode.ConfigUnreadable, `cannot read config file ${path}: ${reason}`, {
    origin: { layer, file: path },
    cause: error,
    fixes:
      code === 'EACCES' || code === 'EPERM'
        ? [`make it readable: chmod u+r ${path}`]
        : code === 'EISDIR'
          ? [`remove or rename the directory ${path}; mcpx expects a JSON file there`]
          : ['check that the file can be read'],
  });
}
