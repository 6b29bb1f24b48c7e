import { stat, utimes } from 'node:fs/promises';
import { isSpecType, type Tool } from '@modelcontextprotocol/server';
import { canonicalJson, type ServerConfig } from '../config/index.js';
import { ErrorCode, isMcpxError, type McpxError } from '../errors/index.js';
import { createHomeFiles, type HomeFiles } from '../home/index.js';

/**
 * The tools each server last listed, kept between runs of the gateway, so a client's first
 * `tools/list` can be whole while servers are still starting (a headless client app such as
 * `claude -p` works from its first list: a short run is over before a late server's list
 * change). Keyed by the entry's trust fingerprint: an entry
 * edited in any way that changes what runs (which would be approved afresh) never gets the
 * old list. Kept as the server listed it, before the config's allow/deny lists, which are
 * applied to a remembered list exactly as to a live one.
 */
export interface CatalogueMemory {
  /** What a server with this entry listed last, if remembered and sound; never rejects. */
  recall(server: ServerConfig): Promise<readonly Tool[] | undefined>;
  /** Remember what the server listed now (nothing is written when it is what was remembered); never rejects. */
  remember(server: ServerConfig, tools: readonly Tool[]): Promise<void>;
}

/** Where the lists are kept in the mcpx home: one file per entry fingerprint. */
export const CATALOGUE_FOLDER = 'catalogues';

// A remembered list is one that passed the list bounds (`client/list-bounds.ts`), so as large at most.
const MAX_BYTES = 16 * 1024 * 1024;
const MAX_TOOLS = 10_000;
const FINGERPRINT = /^[0-9a-f]{64}$/;
const FILE_NAME = /^[0-9a-f]{64}\.json$/;
/**
 * A list not listed again for this long belongs to an entry edited or removed since: its file is
 * removed. A list listed again unchanged is not rewritten, so its file's time is renewed instead.
 */
export const CATALOGUE_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

interface Stored {
  readonly version: 1;
  readonly fingerprint: string;
  /** Epoch ms it was listed, for a person reading the file. */
  readonly listedAt: number;
  readonly tools: readonly Tool[];
}

export interface CatalogueMemoryOptions {
  /**
   * A remembered list that cannot be used safely (a link or another user's file in its place,
   * `HOME_UNSAFE`) or written: told once per file, so the front end can say so. A file that
   * is merely corrupt, too large or of another shape is not an error: it is not used, and
   * the next listing replaces it.
   */
  readonly onError?: (error: McpxError) => void;
  readonly now?: () => number;
}

/**
 * The lists kept under `<home>/catalogues/<fingerprint>.json` (0600, written atomically, links
 * refused: `home/safe-file.ts`). A file there is read as untrusted input: at most 16 MiB, and
 * used only when it is this entry's and every tool in it is a well-formed MCP `Tool`. A file not
 * listed again for 30 days (`CATALOGUE_MAX_AGE_MS`: its entry was edited or removed) is removed.
 *
 * @example
 * const memory = openCatalogueMemory(host.home);
 * const tools = await memory.recall(server); // undefined: never listed, or not usable
 */
export function openCatalogueMemory(home: string, options: CatalogueMemoryOptions = {}): CatalogueMemory {
  const files = createHomeFiles(home);
  const now = options.now ?? Date.now;
  /** The canonical JSON of the list each fingerprint holds on disk, as last read or written. */
  const held = new Map<string, string>();
  const told = new Set<string>();
  const tell = (file: string, error: unknown) => {
    if (told.has(file) || !isMcpxError(error)) return;
    told.add(file);
    options.onError?.(error);
  };
  const fileOf = (server: ServerConfig): string | undefined =>
    !server.unapproved && FINGERPRINT.test(server.fingerprint)
      ? `${CATALOGUE_FOLDER}/${server.fingerprint}.json`
      : undefined;
  // One write per file at a time, each of the newest list: listings of one server can overlap.
  const writing = new Map<string, Promise<void>>();
  const renewed = new Set<string>();
  let pruned: Promise<void> | undefined;
  /** Once per process, after a list is kept: files of entries not listed for a month go. */
  const prune = () => {
    pruned ??= pruneOld(files, now()).catch(() => undefined);
    return pruned;
  };

  return {
    async recall(server) {
      const file = fileOf(server);
      if (file === undefined) return undefined;
      let text: string | undefined;
      try {
        text = await files.readText(file, { maxBytes: MAX_BYTES });
      } catch (error) {
        if (isMcpxError(error) && error.code === ErrorCode.HomeUnsafe) tell(file, error);
        return undefined;
      }
      const tools = text === undefined ? undefined : parseStored(text, server.fingerprint);
      if (tools) held.set(server.fingerprint, canonicalJson(tools));
      return tools;
    },

    async remember(server, tools) {
      const file = fileOf(server);
      if (file === undefined || tools.length > MAX_TOOLS) return;
      const json = canonicalJson(tools);
      if (held.get(server.fingerprint) === json) {
        if (!renewed.has(file)) {
          renewed.add(file);
          const time = new Date(now());
          await utimes(files.path(file), time, time).catch(() => undefined);
        }
        return prune();
      }
      held.set(server.fingerprint, json);
      const stored: Stored = { version: 1, fingerprint: server.fingerprint, listedAt: now(), tools };
      const next = (writing.get(file) ?? Promise.resolve())
        .then(() =>
          held.get(server.fingerprint) === json ? files.writeText(file, JSON.stringify(stored)) : undefined,
        )
        .catch((error: unknown) => {
          // Not on disk after all: the next listing tries again.
          if (held.get(server.fingerprint) === json) held.delete(server.fingerprint);
          tell(file, error);
        });
      writing.set(file, next);
      await next;
      if (writing.get(file) === next) writing.delete(file);
      await prune();
    },
  };
}

/** Removes the remembered lists whose files were last written or renewed over a month ago. */
async function pruneOld(files: HomeFiles, now: number): Promise<void> {
  const names = await files.list(CATALOGUE_FOLDER);
  for (const name of names) {
    if (!FILE_NAME.test(name)) continue;
    const file = `${CATALOGUE_FOLDER}/${name}`;
    const info = await stat(files.path(file)).catch(() => undefined);
    if (info && now - info.mtimeMs > CATALOGUE_MAX_AGE_MS) await files.remove(file).catch(() => undefined);
  }
}

/** A file's tools, if it is a list remembered for `fingerprint` and every tool is well-formed. */
function parseStored(text: string, fingerprint: string): Tool[] | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const stored = data as Partial<Record<keyof Stored, unknown>>;
  if (stored.version !== 1 || stored.fingerprint !== fingerprint || !Array.isArray(stored.tools))
    return undefined;
  if (stored.tools.length > MAX_TOOLS || !stored.tools.every((tool) => isSpecType.Tool(tool)))
    return undefined;
  return stored.tools as Tool[];
}
