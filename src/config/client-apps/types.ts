import type { ClientAppId, InputRequest } from '../types.js';

// Declared in config/types.ts: a config file's `"import"` names these ids, and the reader of a config
// file needs nothing of this folder (which stands above it: its import planner reads files as mcpx does).
export { CLIENT_APP_IDS, type ClientAppId } from '../types.js';

/** What locating a client app's files needs; passed in, since the library never reads `process`. */
export interface ClientAppContext {
  readonly homedir: string;
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The project folder: project files are found here, and Claude Code keys its per-project servers by it. */
  readonly cwd: string;
}

/**
 * One of a client app's config files. `user` files belong to the person; `project`
 * files may have arrived with a repository and are trusted no more than
 * mcpx's own project files.
 */
export interface ClientAppFile {
  readonly path: string;
  readonly scope: 'user' | 'project';
}

/**
 * A server in mcpx's own spelling, exactly as it is written into `mcp.json`
 * (`command`, `args`, `env`, `env_passthrough`, `cwd`, `url`, `type`,
 * `headers`, `enabled`, `connect_timeout`, `request_timeout`,
 * `allowed_tools`, `disabled_tools`), in the canonical form `canonicalEntry`
 * gives it, so two entries that mean the same compare equal.
 */
export type McpxEntry = Readonly<Record<string, unknown>>;

/** One server found in a client app's file. */
export interface ClientAppServer {
  readonly name: string;
  readonly entry: McpxEntry;
  /** 1-based line of the server's key in the file. */
  readonly line?: number;
}

/** What reading one client app file found. */
export interface ClientAppRead {
  readonly servers: readonly ClientAppServer[];
  /** Keys that look like typos of the client app's or mcpx's keys. */
  readonly warnings: readonly string[];
  /** Things the person should know: a variable to set, a field mcpx left out. */
  readonly notes: readonly string[];
  /** VS Code's `${input:id}` the servers use, now `${MCPX_INPUT_<ID>}` references. */
  readonly inputs?: readonly InputRequest[];
}

/** One server in the client app's spelling, and what the client app's dialect could not say. */
export interface ClientAppWrite {
  /** `undefined` when the client app cannot hold this server at all (a remote server for Claude Desktop). */
  readonly value: unknown;
  readonly dropped: readonly string[];
  /** Written, but the client app will read it differently (Codex does not expand `${VAR}` in `env`). */
  readonly caveats?: readonly string[];
}

/** Everything mcpx knows about one client app's config dialect. */
export interface ClientAppDialect {
  readonly id: ClientAppId;
  /** The client app's name as people know it. */
  readonly label: string;
  /** Where the client app keeps its servers, user files first. */
  files(ctx: ClientAppContext): ClientAppFile[];
  /** The servers in one of those files; throws `McpxError` when the file is not valid JSON/TOML. */
  read(text: string, file: ClientAppFile, ctx: ClientAppContext): ClientAppRead;
  /** One server in the client app's spelling. */
  write(entry: McpxEntry): ClientAppWrite;
  /**
   * The file's text with these servers (already in the client app's spelling) put
   * in, everything else kept: JSON files are edited in place so comments and
   * the client app's other keys survive. A server whose value is `undefined` is
   * taken out of the file.
   */
  merge(text: string | undefined, servers: Readonly<Record<string, unknown>>, ctx: ClientAppContext): string;
}
