import { applyEdits, type FormattingOptions, findNodeAtLocation, modify, parseTree } from 'jsonc-parser';
import type { McpxError } from '../../errors/index.js';
import { runsMcpx } from '../command-line/runs-mcpx.js';
import { normalizeServer } from '../entry/normalize-server.js';
import { collectEntries } from '../file/collect-entries.js';
import { parseJsonc } from '../parse/parse-jsonc.js';
import type { ConfigLayer } from '../types.js';
import { canonicalEntry, isRecord, readableEntry, sameEntry } from './entry.js';
import type { FoundClientAppFile } from './find-client-apps.js';
import { CLIENT_APPS } from './index.js';
import { type ImportedSecret, protectSecrets } from './protect-secrets.js';
import type { ClientAppId, McpxEntry } from './types.js';

/** Where an imported server came from. */
export interface ImportSource {
  readonly app: ClientAppId;
  readonly file: string;
  readonly line?: number;
  /** Its name in the client app's file (before `--rename`). */
  readonly name: string;
}

/** One server an import would add, replace or leave alone, and why. */
export interface ImportItem {
  /** Its name in mcpx's file. */
  readonly name: string;
  readonly from: ImportSource;
  /** What is written: its env, header, argument and URL credentials as `${VAR}` references, unless `copyValues`. */
  readonly entry: McpxEntry;
  /** The entry with references in place of every value found: what a preview may print. */
  readonly shown: McpxEntry;
  /** The values found in places credentials sit, named, never with their value. */
  readonly secrets: readonly ImportedSecret[];
  readonly action: 'add' | 'replace' | 'skip';
  readonly reason?: string;
}

export interface ImportOptions {
  /** `--rename old=new`: import the client app's `old` as `new`. */
  readonly rename?: ReadonlyMap<string, string>;
  /** `--overwrite`: replace an existing server of the same name. */
  readonly overwrite?: boolean;
  /**
   * The layer of the file written to. Into the user's own (global) file,
   * only user-level client app files are imported: a repository's file would
   * otherwise become trusted by being copied.
   */
  readonly targetLayer: ConfigLayer;
  /** `--copy-values`: write env, header, argument and URL values as the client app had them (still named). */
  readonly copyValues?: boolean;
  /** The running mcpx's script, so that an entry running it by path is known for mcpx too. */
  readonly selfScript?: string;
}

export interface ImportPlan {
  readonly items: readonly ImportItem[];
  /** Variables to set, settings left out. */
  readonly notes: readonly string[];
}

/** Servers already in mcpx's file: name → entry as written, and the section holding them. */
function existingServers(text: string | undefined, file: string) {
  const servers = new Map<string, McpxEntry>();
  if (text === undefined) return { servers, section: 'mcpServers' as const };
  const doc = parseJsonc(text, file);
  const root = isRecord(doc.value) ? doc.value : {};
  for (const section of ['mcpServers', 'servers'] as const) {
    const value = root[section];
    if (isRecord(value))
      for (const [name, entry] of Object.entries(value))
        if (isRecord(entry)) servers.set(name, canonicalEntry(entry));
  }
  // Written where the file already keeps its servers.
  const section =
    !isRecord(root.mcpServers) && isRecord(root.servers) ? ('servers' as const) : ('mcpServers' as const);
  return { servers, section };
}

/**
 * What importing the servers of `found` into mcpx's file (`targetText`, at
 * `targetFile`) would do: each server added, replacing one (only with
 * `overwrite`) or skipped with the reason. Every env and header value, and
 * credentials in args and URLs, become `${VAR}` references unless
 * `copyValues` (see `protectSecrets`); the notes name each variable to set.
 */
export function planImport(
  found: readonly FoundClientAppFile[],
  targetText: string | undefined,
  targetFile: string,
  options: ImportOptions,
): ImportPlan {
  const { servers: existing } = existingServers(targetText, targetFile);
  const items: ImportItem[] = [];
  const notes: string[] = [];
  const taken = new Map<string, ImportItem>();
  const chosen = new Map<string, string>();
  const repositoryTarget = options.targetLayer === 'project' || options.targetLayer === 'ancestor';
  for (const { app, file, read } of found) {
    if (!read) continue;
    notes.push(...read.notes);
    for (const server of read.servers) {
      const from: ImportSource = {
        app,
        file: file.path,
        name: server.name,
        ...(server.line ? { line: server.line } : {}),
      };
      const name = options.rename?.get(server.name) ?? server.name;
      const guarded = protectSecrets(
        name,
        server.entry,
        `${file.path}${server.line ? `:${server.line}` : ''}`,
        {
          chosen,
          ...(options.copyValues ? { copyValues: true } : {}),
        },
      );
      const entry = canonicalEntry(guarded.entry);
      const item = (action: ImportItem['action'], reason?: string): ImportItem => ({
        name,
        from,
        entry,
        shown: canonicalEntry(guarded.shown),
        secrets: guarded.secrets,
        action,
        ...(reason ? { reason } : {}),
      });
      if (file.scope === 'project' && !repositoryTarget) {
        items.push(
          item(
            'skip',
            "a repository's file: import it with --scope project, where it needs `mcpx config trust` like any project server",
          ),
        );
        continue;
      }
      const mcpx = runsMcpx(commandLine(entry), options.selfScript ? { selfScript: options.selfScript } : {});
      if (mcpx !== undefined) {
        // What `config export --via-gateway` wrote: copied back, mcpx would start itself (and skip it each run).
        items.push(item('skip', `it runs mcpx itself (${mcpx}): mcpx already serves its own servers`));
        continue;
      }
      if (!/^[^.\s]+$/.test(name)) {
        items.push(
          item('skip', `mcpx names cannot hold '.' or spaces: use --rename '${server.name}=<new-name>'`),
        );
        continue;
      }
      const earlier = taken.get(name);
      if (earlier) {
        items.push(
          item(
            'skip',
            sameEntry(earlier.entry, entry)
              ? `same as the one from ${CLIENT_APPS[earlier.from.app].label}`
              : `${CLIENT_APPS[earlier.from.app].label} has a different '${name}': use --rename ${server.name}=<new-name>`,
          ),
        );
        continue;
      }
      const current = existing.get(name);
      let planned: ImportItem;
      if (!current) planned = item('add');
      else if (sameEntry(current, entry)) planned = item('skip', 'already in mcpx, the same');
      else if (options.overwrite) planned = item('replace', 'replaces the existing entry (--overwrite)');
      else
        planned = item(
          'skip',
          `mcpx already has a different '${name}': use --rename ${server.name}=<new-name> or --overwrite`,
        );
      items.push(planned);
      if (planned.action !== 'skip') notes.push(...guarded.secrets.map(secretNote));
      taken.set(name, planned);
    }
  }
  return { items, notes: [...new Set(notes)] };
}

/** What the preview says of one value: where it was and which variable to set, never the value. */
function secretNote(secret: ImportedSecret): string {
  return secret.copied
    ? `${secret.server}: ${secret.where} from ${secret.source} copied in clear (--copy-values)`
    : `${secret.server}: ${secret.where} from ${secret.source} not copied — set ${secret.variable} to it`;
}

const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };

/**
 * mcpx's file with the plan's servers written in, everything else as it was
 * (jsonc-parser edits in place, so comments survive), each new server under
 * a comment naming its source. The result is validated as mcpx reads it;
 * a problem throws and nothing should be written.
 */
export function applyImport(
  targetText: string | undefined,
  targetFile: string,
  layer: ConfigLayer,
  plan: ImportPlan,
): string {
  const { section } = existingServers(targetText, targetFile);
  let text = targetText === undefined || targetText.trim() === '' ? '{}\n' : targetText;
  for (const item of plan.items) {
    if (item.action === 'skip') continue;
    text = applyEdits(
      text,
      modify(text, [section, item.name], readableEntry(item.entry), { formattingOptions: FORMAT }),
    );
    text = commentAbove(text, [section, item.name], sourceComment(item.from));
  }
  if (!text.endsWith('\n')) text += '\n';
  validateOwnFile(text, targetFile, layer);
  return text;
}

/** `// imported from Cursor: /home/me/.cursor/mcp.json:3 ('fs')` */
export function sourceComment(from: ImportSource): string {
  return `// imported from ${CLIENT_APPS[from.app].label}: ${from.file}${from.line ? `:${from.line}` : ''}${
    from.name ? ` ('${from.name}')` : ''
  }`;
}

function commentAbove(text: string, path: string[], comment: string): string {
  const node = findNodeAtLocation(parseTree(text) ?? { type: 'null', offset: 0, length: 0 }, path)?.parent;
  if (!node) return text;
  const lineStart = text.lastIndexOf('\n', node.offset - 1) + 1;
  const indent = text.slice(lineStart, node.offset);
  // Only on a line of its own: a property jsonc-parser put on one line with others gets none.
  if (indent.trim() !== '') return text;
  const previousStart = text.lastIndexOf('\n', lineStart - 2) + 1;
  const previous = text.slice(previousStart, lineStart - 1).trim();
  if (previous.startsWith('// imported from ')) {
    return `${text.slice(0, previousStart)}${indent}${comment}\n${text.slice(lineStart)}`;
  }
  return `${text.slice(0, lineStart)}${indent}${comment}\n${text.slice(lineStart)}`;
}

/** mcpx's own strict reading of `text`: the first problem is thrown. */
export function validateOwnFile(text: string, file: string, layer: ConfigLayer): void {
  const doc = parseJsonc(text, file);
  const collected = collectEntries(doc, layer);
  const problems: McpxError[] = [...collected.problems];
  for (const entry of collected.entries) problems.push(...normalizeServer(entry, doc, layer).problems);
  const first = problems[0];
  if (first) throw first;
}

/** An entry's command line, as far as it is one (a URL entry has none; `command` may be an array). */
function commandLine(entry: McpxEntry): { command?: string; args: readonly string[] } {
  const words = (value: unknown) =>
    Array.isArray(value) ? value.filter((w): w is string => typeof w === 'string') : [];
  const [command, ...rest]: (string | undefined)[] = Array.isArray(entry.command)
    ? words(entry.command)
    : [typeof entry.command === 'string' ? entry.command : undefined];
  return {
    ...(command === undefined ? {} : { command }),
    args: [...(rest as string[]), ...words(entry.args)],
  };
}
