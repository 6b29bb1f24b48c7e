import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ErrorCode, McpxError } from '../errors/index.js';
import { collectEntries } from './collect-entries.js';
import { type NormalizeResult, normalizeServer, type ServerDraft } from './normalize-server.js';
import { parseJsonc } from './parse-jsonc.js';
import type { ConfigLayer, ServerOrigin } from './types.js';

/** One file read and validated: its valid entries as drafts, and every problem found. */
export interface FileLoad {
  readonly path: string;
  readonly layer: ConfigLayer;
  /** Server entries in the file, valid or not. */
  readonly serverCount: number;
  readonly drafts: readonly ServerDraft[];
  readonly problems: readonly McpxError[];
  /** The file's `roots`, made absolute against the file's directory. */
  readonly roots?: readonly string[];
  readonly permission?: 'yolo' | 'trusted' | 'sandboxed';
  /** Entries that only switch off a server of an earlier layer (see NormalizeResult.switchOff). */
  readonly switchOffs?: readonly NonNullable<NormalizeResult['switchOff']>[];
  /** `"demo": {"enabled": …}`: the built-in demo server on or off. */
  readonly demo?: { readonly enabled: boolean; readonly origin: ServerOrigin };
}

/**
 * Read, parse and validate one config file. Returns `undefined` when the file
 * does not exist (absent layers are normal); any other read failure and every
 * syntax or schema problem is returned in `problems`, not thrown, so a caller
 * can report all files at once.
 */
export async function loadConfigFile(path: string, layer: ConfigLayer): Promise<FileLoad | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: `.mcpx` exists but is a file, so `.mcpx/mcp.json` cannot exist either.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { path, layer, serverCount: 0, drafts: [], problems: [unreadable(path, layer, error)] };
  }
  return loadConfigText(text, path, layer);
}

/**
 * Parse and validate a config file's text as if it were read from `path`:
 * what `loadConfigFile` does after reading, for text not written yet (an edit
 * is checked before it replaces the file).
 */
export function loadConfigText(text: string, path: string, layer: ConfigLayer): FileLoad {
  let doc: ReturnType<typeof parseJsonc>;
  try {
    doc = parseJsonc(text, path);
  } catch (error) {
    const problem =
      error instanceof McpxError ? error.withContext({ origin: { ...error.context.origin, layer } }) : error;
    return { path, layer, serverCount: 0, drafts: [], problems: [problem as McpxError] };
  }
  const collected = collectEntries(doc, layer);
  const problems = [...collected.problems];
  const drafts: ServerDraft[] = [];
  const switchOffs: NonNullable<NormalizeResult['switchOff']>[] = [];
  for (const entry of collected.entries) {
    const result = normalizeServer(entry, doc, layer);
    problems.push(...result.problems);
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
    ...(roots ? { roots } : {}),
    ...(collected.permission ? { permission: collected.permission } : {}),
    ...(switchOffs.length ? { switchOffs } : {}),
    ...(demo ? { demo } : {}),
  };
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
