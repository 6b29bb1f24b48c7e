import type { InputRequest } from '../input-variable.js';

/** The hosts whose config files mcpx reads and writes. */
export const HOST_IDS = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'windsurf',
  'codex',
  'gemini',
  'opencode',
  'zed',
] as const;

export type HostId = (typeof HOST_IDS)[number];

/** What locating a host's files needs; passed in, since the library never reads `process`. */
export interface HostContext {
  readonly homedir: string;
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The project folder: project files are found here, and Claude Code keys its per-project servers by it. */
  readonly cwd: string;
}

/**
 * One of a host's config files. `user` files belong to the person; `project`
 * files may have arrived with a repository and are trusted no more than
 * mcpx's own project files.
 */
export interface HostFile {
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

/** One server found in a host's file. */
export interface HostServer {
  readonly name: string;
  readonly entry: McpxEntry;
  /** 1-based line of the server's key in the file. */
  readonly line?: number;
}

/** What reading one host file found. */
export interface HostRead {
  readonly servers: readonly HostServer[];
  /** Keys that look like typos of the host's or mcpx's keys. */
  readonly warnings: readonly string[];
  /** Things the person should know: a variable to set, a field mcpx left out. */
  readonly notes: readonly string[];
  /** VS Code's `${input:id}` the servers use, now `${MCPX_INPUT_<ID>}` references. */
  readonly inputs?: readonly InputRequest[];
}

/** One server in the host's spelling, and what the host's dialect could not say. */
export interface HostWrite {
  /** `undefined` when the host cannot hold this server at all (a remote server for Claude Desktop). */
  readonly value: unknown;
  readonly dropped: readonly string[];
  /** Written, but the host will read it differently (Codex does not expand `${VAR}` in `env`). */
  readonly caveats?: readonly string[];
}

/** Everything mcpx knows about one host's config dialect. */
export interface HostDialect {
  readonly id: HostId;
  /** The host's name as people know it. */
  readonly label: string;
  /** Where the host keeps its servers, user files first. */
  files(ctx: HostContext): HostFile[];
  /** The servers in one of those files; throws `McpxError` when the file is not valid JSON/TOML. */
  read(text: string, file: HostFile, ctx: HostContext): HostRead;
  /** One server in the host's spelling. */
  write(entry: McpxEntry): HostWrite;
  /**
   * The file's text with these servers (already in the host's spelling) put
   * in, everything else kept: JSON files are edited in place so comments and
   * the host's other keys survive. A server whose value is `undefined` is
   * taken out of the file.
   */
  merge(text: string | undefined, servers: Readonly<Record<string, unknown>>, ctx: HostContext): string;
}
