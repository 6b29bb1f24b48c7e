import { dirname, resolve } from 'node:path';
import type { McpxError } from '../../errors/index.js';
import { findClientAppFiles } from '../client-apps/find-client-apps.js';
import { CLIENT_APPS } from '../client-apps/index.js';
import type { ClientAppContext, ClientAppServer } from '../client-apps/types.js';
import { normalizeServer, type ServerDraft } from '../entry/normalize-server.js';
import type { CollectResult } from '../file/collect-entries.js';
import type { ParsedDocument } from '../parse/parse-jsonc.js';
import type { ConfigLayer, ConfigWarning, InputRequest } from '../types.js';
import type { LoadConfigOptions } from './options.js';

/** The file that says `"import": [...]`. */
export interface Importer {
  readonly path: string;
  readonly layer: ConfigLayer;
  readonly imports: NonNullable<CollectResult['imports']>;
}

/**
 * The servers of the client apps an mcpx file imports, read now from the client apps'
 * own files, as drafts whose origin is the client app's file and line.
 *
 * Trust follows where the servers come from and who asked: a client app's project
 * file (a repository's `.vscode/mcp.json`) gives project-layer entries that
 * need approval, and so does everything a project or ancestor file imports
 * (a repository cannot make itself trusted by naming the user's client apps). Only
 * user-level client app files imported from the user's own file are trusted.
 *
 * Another client app's broken file is a warning, not a reason to refuse mcpx's own.
 */
export async function importedDrafts(
  importer: Importer,
  options: LoadConfigOptions,
  skip: ReadonlySet<string>,
): Promise<{ drafts: ServerDraft[]; warnings: ConfigWarning[]; inputs: InputRequest[] }> {
  const ctx: ClientAppContext = {
    homedir: options.homedir ?? dirname(resolve(options.home)),
    platform: options.platform ?? 'linux',
    env: options.env,
    cwd: resolve(options.cwd),
  };
  const repository = importer.layer === 'project' || importer.layer === 'ancestor';
  const drafts: ServerDraft[] = [];
  const warnings: ConfigWarning[] = [];
  const inputs: InputRequest[] = [];
  const warn = (message: string, file: string, line?: number) =>
    warnings.push({ message, origin: { layer: importer.layer, file, ...(line ? { line } : {}) } });
  const found = await findClientAppFiles(importer.imports.apps, ctx);
  for (const { app, file, read, error } of found) {
    // mcpx reads a project's `.mcp.json` itself; importing it again would define its servers twice.
    if (skip.has(resolve(file.path))) continue;
    if (error || !read) {
      warn(
        `${CLIENT_APPS[app].label}'s ${file.path} was not read: ${error?.message ?? 'unknown error'}`,
        file.path,
      );
      continue;
    }
    for (const message of read.warnings) warn(message, file.path);
    inputs.push(...(read.inputs ?? []));
    const layer: ConfigLayer = repository || file.scope === 'project' ? 'project' : importer.layer;
    for (const server of read.servers) {
      const result = normalizeServer(
        { name: server.name, value: server.entry, path: ['mcpServers', server.name] },
        appDocument(file.path, server),
        layer,
      );
      for (const problem of result.problems as McpxError[]) warn(problem.message, file.path, server.line);
      if (result.draft) {
        const origin = { ...result.draft.base.origin, importedBy: importer.path };
        drafts.push({ ...result.draft, base: { ...result.draft.base, origin } });
      }
    }
  }
  return { drafts, warnings, inputs };
}

/**
 * A stand-in for the parsed client app file: the entry in mcpx's spelling, located
 * at the server's line in the client app's file, so every message and origin names
 * the file the person wrote.
 */
function appDocument(file: string, server: ClientAppServer): ParsedDocument {
  const position = { line: server.line ?? 1, column: 1 };
  return {
    file,
    value: { mcpServers: { [server.name]: server.entry } },
    locate: () => position,
    excerpt: () => [],
  };
}
