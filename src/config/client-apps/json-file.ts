import { applyEdits, type FormattingOptions, findNodeAtLocation, modify, parseTree } from 'jsonc-parser';
import { type ParsedDocument, parseJsonc } from '../parse/parse-jsonc.js';
import { suggest } from '../parse/suggest.js';
import { isRecord } from './entry.js';
import type { ClientAppServer, McpxEntry } from './types.js';

type JsonPath = (string | number)[];

const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };

/** What a client app's reader makes of one raw entry. */
export interface MappedEntry {
  readonly entry: McpxEntry;
  /** Keys the client app itself does not know (typo candidates). */
  readonly unknownKeys: readonly string[];
  readonly notes?: readonly string[];
}

/**
 * The servers under each of `sections` of a JSONC file, with the line of
 * each. A later section's server replaces an earlier one of the same name
 * (Claude Code's per-project servers win over its user-level ones).
 */
export function readJsonSections(
  text: string,
  file: string,
  sections: readonly JsonPath[],
  map: (raw: Record<string, unknown>, name: string) => MappedEntry,
  knownKeys: readonly string[],
) {
  const doc = parseJsonc(text, file);
  const byName = new Map<string, ClientAppServer>();
  const warnings: string[] = [];
  const notes: string[] = [];
  for (const section of sections) {
    const servers = valueAt(doc, section);
    if (!isRecord(servers)) continue;
    for (const [name, raw] of Object.entries(servers)) {
      if (!isRecord(raw)) continue;
      const line = doc.locate([...section, name], 'key')?.line;
      const mapped = map(raw, name);
      warnings.push(...typoWarnings(mapped.unknownKeys, knownKeys, file, name, doc, [...section, name]));
      notes.push(...(mapped.notes ?? []));
      byName.delete(name);
      byName.set(name, { name, entry: mapped.entry, ...(line ? { line } : {}) });
    }
  }
  return { doc, servers: [...byName.values()], warnings, notes };
}

function valueAt(doc: ParsedDocument, path: readonly (string | number)[]): unknown {
  let value: unknown = doc.value;
  for (const segment of path) {
    if (!isRecord(value)) return undefined;
    value = value[String(segment)];
  }
  return value;
}

/**
 * Warnings for keys a client app does not know that look like typos of one it does
 * (or of mcpx's); any other unknown key is the client app's own business.
 */
export function typoWarnings(
  keys: readonly string[],
  known: readonly string[],
  file: string,
  server: string,
  doc?: ParsedDocument,
  at?: JsonPath,
): string[] {
  return keys.flatMap((key) => {
    const guess = suggest(key, known);
    if (!guess) return [];
    const line = doc && at ? doc.locate([...at, key], 'key')?.line : undefined;
    return [
      `${file}${line ? `:${line}` : ''}: server '${server}': unknown key '${key}' — did you mean '${guess}'?`,
    ];
  });
}

function hasNode(text: string, path: JsonPath): boolean {
  const tree = parseTree(text);
  return tree !== undefined && findNodeAtLocation(tree, path) !== undefined;
}

/**
 * `text` with each server set at `section.<name>`, everything else (other
 * keys, comments, formatting) left as it was: jsonc-parser edits in place.
 */
export function mergeJsonServers(
  text: string | undefined,
  section: JsonPath,
  servers: Readonly<Record<string, unknown>>,
): string {
  let out = text === undefined || text.trim() === '' ? '{}\n' : text;
  for (const [name, value] of Object.entries(servers)) {
    const path = [...section, name];
    // `undefined` removes the server; there is nothing to remove when it is not there.
    if (value === undefined && !hasNode(out, path)) continue;
    out = applyEdits(out, modify(out, path, value, { formattingOptions: FORMAT }));
  }
  return out.endsWith('\n') ? out : `${out}\n`;
}
