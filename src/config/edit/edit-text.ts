import { applyEdits, type FormattingOptions, type JSONPath, modify } from 'jsonc-parser';
import { ErrorCode, McpxError } from '../../errors/index.js';
import type { ServerEntry } from '../entry/normalize-server.js';
import { fieldFor } from '../entry/server-fields.js';
import { collectEntries } from '../file/collect-entries.js';
import { loadConfigText } from '../file/load-file.js';
import { type ParsedDocument, parseJsonc } from '../parse/parse-jsonc.js';
import type { ConfigLayer } from '../types.js';
import { insertProperty, removeProperty } from './jsonc-lines.js';

/** A server entry as mcpx writes it: stdio (`command`, `args`, `env`) or remote (`url`, `type`, `headers`). */
export interface NewServerEntry {
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly url?: string;
  readonly type?: 'http' | 'sse';
  readonly headers?: Readonly<Record<string, string>>;
}

/** One change to one server of one file. */
export type ServerEdit =
  | {
      readonly kind: 'add';
      readonly name: string;
      readonly entry: NewServerEntry;
      /** Replace an entry of that name instead of refusing. */
      readonly overwrite?: boolean;
    }
  | { readonly kind: 'remove' | 'enable' | 'disable'; readonly name: string }
  /**
   * Switch tools of one server on or off: off takes a tool out of the entry's
   * `allowed_tools` when it has one, else puts it into `disabled_tools`; on undoes either.
   */
  | { readonly kind: 'enable' | 'disable'; readonly name: string; readonly tools: readonly string[] };

/** The text of a config file after one edit, and what the edit did. */
export interface TextEditResult {
  readonly text: string;
  /** `added`, `replaced`, `removed`, `enabled`, `disabled`, or `unchanged` (already so). */
  readonly outcome: 'added' | 'replaced' | 'removed' | 'enabled' | 'disabled' | 'unchanged';
  /** The JSON path of the entry in the file (before a removal, after the other edits). */
  readonly path: readonly (string | number)[];
}

/** The text a new config file starts from. */
export const EMPTY_CONFIG = '{\n  "mcpServers": {}\n}\n';

/**
 * Apply one edit to a config file's text, keeping every comment and all
 * formatting outside the edited entry (jsonc-parser's `modify`). The result
 * is checked the way mcpx loads a file before it is returned: an edit that
 * would leave the file invalid throws, and a file that was invalid before is
 * refused too (editing it would hide the problem behind a new one).
 *
 * Throws `UnknownServer` for a name not in the file (naming those that are),
 * `ServerExists` for an `add` of a name already there without `overwrite`.
 *
 * @example
 * editConfigText(text, '/home/me/.mcpx/mcp.json', 'global', { kind: 'disable', name: 'fs' }).text
 */
export function editConfigText(
  source: string,
  file: string,
  layer: ConfigLayer,
  edit: ServerEdit,
): TextEditResult {
  const text = source.trim() === '' ? EMPTY_CONFIG : source;
  checked(text, file, layer, 'is not valid as it is, so it was not changed');
  const doc = parseJsonc(text, file);
  const entries = collectEntries(doc, layer).entries;
  const existing = entries.find((e) => e.name === edit.name);
  const formatting = formattingOf(text);

  let result: TextEditResult;
  if (edit.kind === 'add') {
    if (existing && !edit.overwrite) {
      throw new McpxError(ErrorCode.ServerExists, `server '${edit.name}' is already in ${file}`, {
        server: edit.name,
        origin: { layer, file, ...lineOf(doc, existing) },
        fixes: [
          'add --overwrite to replace it',
          `or remove it first: mcpx config remove ${edit.name}${layer === 'project' ? ' --scope project' : ''}`,
        ],
      });
    }
    result = existing
      ? {
          text: applyEdits(
            text,
            modify(text, [...existing.path], withName(existing.path, edit), {
              formattingOptions: formatting,
            }),
          ),
          outcome: 'replaced',
          path: existing.path,
        }
      : addEntry(text, doc, entries, edit, formatting);
  } else {
    if (!existing && edit.name === 'demo' && edit.kind !== 'remove' && !('tools' in edit)) {
      // The built-in server has no entry to edit: the top-level switch turns it off.
      const root = isObject(doc.value) ? doc.value : {};
      const next =
        edit.kind === 'disable'
          ? 'demo' in root
            ? applyEdits(text, modify(text, ['demo'], { enabled: false }, { formattingOptions: formatting }))
            : insertProperty(text, [], 'demo', { enabled: false }, formatting)
          : 'demo' in root
            ? removeProperty(text, ['demo'])
            : text;
      checked(next, file, layer, 'would not be valid after this change, so it was not changed');
      return { text: next, outcome: next === text ? 'unchanged' : `${edit.kind}d`, path: ['demo'] };
    }
    if (!existing) throw notInFile(edit.name, file, layer, entries);
    const entry = existing.value as Record<string, unknown>;
    const path = [...existing.path];
    if ('tools' in edit) {
      const next = switchTools(text, path, entry, edit.kind, edit.tools, formatting);
      result = { text: next, outcome: next === text ? 'unchanged' : `${edit.kind}d`, path: existing.path };
    } else if (edit.kind === 'remove') {
      result = { text: removeProperty(text, path), outcome: 'removed', path: existing.path };
    } else {
      let next = text;
      // `disabled` is other client apps' spelling; one switch per entry, mcpx's own.
      if ('disabled' in entry) next = removeProperty(next, [...path, 'disabled']);
      if (edit.kind === 'enable') {
        if ('enabled' in entry) next = removeProperty(next, [...path, 'enabled']);
      } else if ('enabled' in entry) {
        if (entry.enabled !== false) next = applyEdits(next, modify(next, [...path, 'enabled'], false, {}));
      } else next = insertProperty(next, path, 'enabled', false, formatting);
      result = {
        text: next,
        outcome: next === text ? 'unchanged' : edit.kind === 'enable' ? 'enabled' : 'disabled',
        path: existing.path,
      };
    }
  }
  checked(result.text, file, layer, 'would not be valid after this change, so it was not changed');
  return result;
}

/**
 * The entry's tool lists after switching `tools` on or off, in whichever spelling the entry
 * already uses (`allowed_tools`, `includeTools`, …); a deny list emptied by `enable` goes.
 */
function switchTools(
  text: string,
  path: JSONPath,
  entry: Record<string, unknown>,
  kind: 'enable' | 'disable',
  given: readonly string[],
  formatting: FormattingOptions,
): string {
  const tools = [...new Set(given)];
  const keyOf = (field: 'allowTools' | 'denyTools') => Object.keys(entry).find((k) => fieldFor(k) === field);
  const listOf = (key: string | undefined) =>
    key === undefined
      ? undefined
      : (entry[key] as unknown[]).filter((t): t is string => typeof t === 'string');
  const allowKey = keyOf('allowTools');
  const denyKey = keyOf('denyTools');
  const allow = listOf(allowKey);
  const deny = listOf(denyKey) ?? [];
  let nextAllow = allow;
  let nextDeny = deny;
  if (kind === 'disable') {
    // With an allow list, leaving the tool out of it is what switches it off.
    if (allow) nextAllow = allow.filter((t) => !tools.includes(t));
    else nextDeny = [...deny, ...tools.filter((t) => !deny.includes(t))];
  } else {
    nextDeny = deny.filter((t) => !tools.includes(t));
    if (allow) nextAllow = [...allow, ...tools.filter((t) => !allow.includes(t))];
  }
  let next = text;
  const set = (
    key: string | undefined,
    fallback: string,
    before: readonly string[] | undefined,
    after: string[],
  ) => {
    if (before && before.length === after.length && before.every((t, i) => t === after[i])) return;
    if (key === undefined) next = insertProperty(next, path, fallback, after, formatting);
    else if (after.length === 0 && fallback === 'disabled_tools') next = removeProperty(next, [...path, key]);
    else next = applyEdits(next, modify(next, [...path, key], after, { formattingOptions: formatting }));
  };
  if (allowKey !== undefined && nextAllow) set(allowKey, 'allowed_tools', allow, nextAllow);
  if (denyKey !== undefined || nextDeny.length > 0) set(denyKey, 'disabled_tools', listOf(denyKey), nextDeny);
  return next;
}

/** Throws the file's first problem, worded as a refusal. */
function checked(text: string, file: string, layer: ConfigLayer, why: string): void {
  const load = loadConfigText(text, file, layer);
  const first = load.problems[0];
  if (!first) return;
  throw new McpxError(first.code, `${file} ${why}: ${first.message}`, {
    ...first.context,
    causes: first.causes,
    fixes: [
      ...first.fixes,
      ...(load.problems.length > 1
        ? [`run \`mcpx config validate\` to see all ${load.problems.length} problems`]
        : []),
    ],
    cause: first,
  });
}

/** A new server goes beside the file's other servers, else into `mcpServers` (made when missing). */
function addEntry(
  text: string,
  doc: ParsedDocument,
  entries: readonly ServerEntry[],
  edit: Extract<ServerEdit, { kind: 'add' }>,
  formatting: FormattingOptions,
): TextEditResult {
  const root = isObject(doc.value) ? doc.value : {};
  const last = entries.at(-1);
  const section: JSONPath = last
    ? last.path.slice(0, -1)
    : isObject(root.servers) || Array.isArray(root.servers)
      ? ['servers']
      : ['mcpServers'];
  const current = section.reduce<unknown>(
    (value, key) => (value as Record<string | number, unknown>)?.[key],
    root,
  );
  if (Array.isArray(current)) {
    const path = [...section, current.length];
    const value = withName(path, edit);
    return {
      text: applyEdits(
        text,
        modify(text, path, value, { formattingOptions: formatting, isArrayInsertion: true }),
      ),
      outcome: 'added',
      path,
    };
  }
  const path = [...section, edit.name];
  const added =
    current === undefined
      ? insertProperty(
          text,
          section.slice(0, -1),
          String(section.at(-1)),
          { [edit.name]: edit.entry },
          formatting,
        )
      : insertProperty(text, section, edit.name, edit.entry, formatting);
  return { text: added, outcome: 'added', path };
}

/** In an array of servers the name is a field of the entry. */
function withName(path: readonly (string | number)[], edit: Extract<ServerEdit, { kind: 'add' }>): unknown {
  return typeof path.at(-1) === 'number' ? { name: edit.name, ...edit.entry } : edit.entry;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function lineOf(doc: ParsedDocument, entry: ServerEntry): { line?: number } {
  const line = doc.locate(entry.path, 'key')?.line ?? doc.locate(entry.path)?.line;
  return line ? { line } : {};
}

function notInFile(
  name: string,
  file: string,
  layer: ConfigLayer,
  entries: readonly ServerEntry[],
): McpxError {
  const names = entries.map((e) => e.name);
  return new McpxError(ErrorCode.UnknownServer, `no server named '${name}' in ${file}`, {
    server: name,
    origin: { layer, file },
    fixes: [names.length ? `servers in this file: ${names.join(', ')}` : 'this file has no servers'],
  });
}

/** The file's own indentation and line ends, so inserted lines look like their neighbours. */
function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = text.split(/\r?\n/).find((line) => /^[ \t]+\S/.test(line));
  if (indented?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  const width = indented ? indented.length - indented.trimStart().length : 2;
  return { insertSpaces: true, tabSize: Math.min(Math.max(width, 1), 8), eol };
}
