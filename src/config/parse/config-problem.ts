import { ErrorCode as Codes, type ErrorCode, McpxError } from '../../errors/index.js';
import type { ConfigLayer, ConfigWarning } from '../types.js';
import { formatJsonPath, type JsonPath } from './json-path.js';
import type { ParsedDocument } from './parse-jsonc.js';
import { suggest } from './suggest.js';

/** Where in which file a problem sits: the document, its layer and (if any) the server entry. */
export interface ProblemSite {
  readonly doc: ParsedDocument;
  readonly layer: ConfigLayer;
  readonly server?: string;
  /** Path of the server's entry, so fields can be named relative to it (`env.API_KEY`). */
  readonly serverPath?: JsonPath;
}

export interface ProblemOptions {
  readonly code?: ErrorCode;
  /** Point at the property key (unknown keys, names) rather than its value. */
  readonly target?: 'key' | 'value';
  readonly expected?: string;
  readonly received?: string;
  readonly causes?: readonly string[];
  readonly fixes?: readonly string[];
}

/** The field name people look for: relative to the server entry when there is one. */
export function fieldName(site: ProblemSite, path: JsonPath): string {
  const base = site.serverPath;
  if (base && path.length > base.length && base.every((segment, i) => path[i] === segment)) {
    return formatJsonPath(path.slice(base.length));
  }
  return formatJsonPath(path);
}

/**
 * A config error located at `path`: the message starts with `file:line:column`
 * (the compiler convention editors and terminals turn into links) and names
 * the server; the context carries the same facts for `--json` and `--verbose`.
 */
export function configProblem(
  site: ProblemSite,
  path: JsonPath,
  text: string,
  options: ProblemOptions = {},
): McpxError {
  const { doc, layer, server } = site;
  const position = doc.locate(path, options.target ?? 'value') ?? doc.locate(site.serverPath ?? [], 'key');
  const where = position ? `${doc.file}:${position.line}:${position.column}` : doc.file;
  const subject = server === undefined ? '' : `server '${server}': `;
  return new McpxError(options.code ?? Codes.ConfigInvalid, `${where}: ${subject}${text}`, {
    ...(server === undefined ? {} : { server }),
    origin: { layer, file: doc.file, ...(position ? { line: position.line, column: position.column } : {}) },
    // The entry itself is not a field: its position and the server name already say where.
    ...(path.length && !samePath(path, site.serverPath) ? { field: fieldName(site, path) } : {}),
    ...(options.expected === undefined ? {} : { expected: options.expected }),
    ...(options.received === undefined ? {} : { received: options.received }),
    ...(position ? { excerpt: doc.excerpt(position) } : {}),
    ...(options.causes ? { causes: options.causes } : {}),
    ...(options.fixes ? { fixes: options.fixes } : {}),
  });
}

function samePath(a: JsonPath, b: JsonPath | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((segment, i) => segment === b[i]);
}

/** A value as a person would describe it: `number 3`, `string "npx"`, `array of 2 items`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  switch (typeof value) {
    case 'string':
      return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number':
    case 'boolean':
      return `${typeof value} ${String(value)}`;
    case 'object':
      return 'object';
    default:
      return typeof value;
  }
}

/**
 * A key of another client app's file that is one edit or two away from one of
 * mcpx's (`mcpServer`, `comand`): worth a word, since the client app may ignore it
 * as silently as mcpx does. Any other unknown key is that client app's business.
 */
export function typoWarning(
  site: ProblemSite,
  path: JsonPath,
  known: readonly string[],
): ConfigWarning | undefined {
  const key = String(path.at(-1));
  const guess = suggest(key, known);
  if (guess === undefined) return undefined;
  const line = site.doc.locate(path, 'key')?.line;
  const subject = site.server === undefined ? '' : `server '${site.server}': `;
  return {
    message: `${site.doc.file}${line ? `:${line}` : ''}: ${subject}unknown key '${key}' — did you mean '${guess}'? (ignored: this file is shared with another client app)`,
    origin: { layer: site.layer, file: site.doc.file, ...(line ? { line } : {}) },
    ...(site.server === undefined ? {} : { server: site.server }),
  };
}
