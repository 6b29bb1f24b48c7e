import type { McpxError } from '../errors/index.js';

/**
 * The client apps whose config files mcpx reads and writes: other MCP client applications
 * (Claude Desktop, Cursor, VS Code, …), not MCP Apps (a server's UI).
 */
export const CLIENT_APP_IDS = [
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

/** An MCP client app whose config dialect mcpx reads and writes (`mcpx config export`). */
export type ClientAppId = (typeof CLIENT_APP_IDS)[number];

/** How strictly a config file is read: see `ConfigCandidate.dialect` (config/load/discover.ts). */
export type FileDialect = 'mcpx' | 'foreign' | 'detect';

/** The layers a server definition can come from, in increasing precedence. */
export type ConfigLayer = 'builtin' | 'global' | 'ancestor' | 'project' | 'explicit' | 'adhoc';

/** Where one server entry was defined. */
export interface ServerOrigin {
  readonly layer: ConfigLayer;
  /** Absolute path of the file; absent for builtin and ad-hoc servers. */
  readonly file?: string;
  /** 1-based line of the entry's key in that file. */
  readonly line?: number;
  /** For a server read live from another client app's file (`"import": [...]`): the mcpx file that imports it. */
  readonly importedBy?: string;
}

/** How mcpx reaches a server: a child process (`stdio`), Streamable HTTP (`http`), or the older SSE transport (`sse`). */
export type TransportKind = 'stdio' | 'http' | 'sse';

/** Which protocol era to speak: negotiate, force the 2025 handshake, or require 2026-07-28. */
export type ProtocolPin = 'auto' | 'legacy' | 'modern';

/**
 * One server after parsing, validation, normalization and interpolation:
 * everything the transport and client layers need, nothing format-specific.
 */
export interface ServerConfig {
  readonly name: string;
  readonly transport: TransportKind;
  /** stdio: the executable (first element of an array `command`). */
  readonly command?: string;
  readonly args: readonly string[];
  /** stdio: variables set for the server, on top of the safe default environment. */
  readonly env: Readonly<Record<string, string>>;
  /** stdio: names of host variables passed through unchanged. */
  readonly envPassthrough: readonly string[];
  readonly cwd?: string;
  readonly url?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly enabled: boolean;
  readonly failIfNoTools: boolean;
  readonly connectTimeoutMs?: number;
  /** A server started through a package runner (npx, uvx, …): how long its first install may take. */
  readonly installTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly httpMaxRetries?: number;
  readonly httpRetryBackoffMs?: number;
  /** Tool allow list (names); absent means all. */
  readonly allowTools?: readonly string[];
  readonly denyTools?: readonly string[];
  readonly protocol: ProtocolPin;
  /** stdio: largest accepted line from the server, in bytes. */
  readonly maxLineBytes?: number;
  /** OAuth settings for a remote server, kept as written until OAuth support reads them. */
  readonly oauth?: Readonly<Record<string, unknown>>;
  /**
   * Hosts this server may send mcpx to (OAuth endpoints, links) even when they
   * are more private than the server itself, or plain http.
   */
  readonly allowedHosts?: readonly string[];
  /** Kept warm between commands by the per-user daemon (`mcpx daemon`). */
  readonly keepAlive?: boolean;
  /** In the daemon: stopped after this long without a request. */
  readonly keepAliveIdleMs?: number;
  readonly origin: ServerOrigin;
  /**
   * sha256 over every field that changes what runs or where data goes, as
   * written (`${VAR}` templates), and over the command, args, cwd and url as
   * they will run (so a variable that now points elsewhere changes it too).
   * Project and ancestor entries run only once the user has approved this
   * exact fingerprint.
   */
  readonly fingerprint: string;
  /** Those fields as written in the file (config entries only): what the trust prompt shows and the trust store keeps. */
  readonly asWritten?: Readonly<Record<string, unknown>>;
  /**
   * The variables the command, args, cwd and url use, each with a short
   * digest of the value used (`unset` when it was not set): enough for a
   * re-approval to say which one changed, never the value.
   */
  readonly variables?: Readonly<Record<string, string>>;
  /** True when the entry comes from a file that may have arrived with a repository. */
  readonly requiresTrust: boolean;
  /**
   * Set by `loadConfig` on a repository entry the user has not approved
   * (`LoadedConfig.unapproved`): the registry and the connectors refuse to
   * start it, whatever a program does with it.
   */
  readonly unapproved?: true;
}

/** What a config file says about one `${input:<id>}` (VS Code's `inputs`), for the question. */
export interface InputRequest {
  readonly id: string;
  /** The variable that can answer it instead (see `inputVariable`). */
  readonly variable: string;
  readonly description?: string;
  /** Asked without echo. */
  readonly password: boolean;
  /** The file that declares or uses it. */
  readonly file?: string;
}

/** One file's definition of a profile. */
export interface ProfileLayer {
  /** Server names; absent: every server. */
  readonly servers?: readonly string[];
  /** Globs on `<server>.<tool>` or `<tool>` (`*` any run, `?` one character): absent, every tool. */
  readonly tools?: readonly string[];
  /** Globs, as `tools`: such tools are left out. */
  readonly excludeTools?: readonly string[];
  /** The most a session under this profile may run at; never more than the level otherwise in force. */
  readonly permission?: PermissionName;
  /** Where the profile's key is written. */
  readonly origin: ServerOrigin;
}

/**
 * A profile as every layer defines it: the user's own definition (the last of their
 * files that has it), then each repository file's, in precedence order. A tool is in
 * the profile only when every layer lets it through.
 */
export interface ProfileConfig {
  readonly name: string;
  readonly layers: readonly ProfileLayer[];
}

/** What was approved for one entry: its fingerprint, and enough to show what changed later. */
export interface TrustRecord {
  readonly fingerprint: string;
  /** The fingerprinted fields as written when approved (absent in stores from before they were kept). */
  readonly asWritten?: Readonly<Record<string, unknown>>;
  /** Digests of the variables its command, args, cwd and url used (never their values). */
  readonly variables?: Readonly<Record<string, string>>;
}

/**
 * Approved project/ancestor entries: config file → server name → what was
 * approved; and approved host-wide settings (`permission`, `roots`): config
 * file → their fingerprint. Maps, not objects, so a server named `__proto__`
 * is just a name.
 */
export interface TrustStore {
  readonly version: 2;
  readonly entries: ReadonlyMap<string, ReadonlyMap<string, TrustRecord>>;
  readonly settings: ReadonlyMap<string, string>;
}

/** A permission level for agents, as a config file names it. */
export type PermissionName = 'yolo' | 'trusted' | 'sandboxed';

/**
 * Host-wide settings of a project or ancestor file that are not in force:
 * not approved yet (`untrusted`), or approved but asking for a higher
 * permission level than the user's own config gives (`raises`).
 */
export interface HeldSettings {
  readonly file: string;
  readonly layer: ConfigLayer;
  readonly permission?: PermissionName;
  readonly roots?: readonly string[];
  /** What `mcpx config trust` records to approve exactly these settings. */
  readonly fingerprint: string;
  /** Its permission is above the user's own level, so it would not count even once approved. */
  readonly raises: boolean;
  readonly reason: 'untrusted' | 'raises';
}

/** One config file that was read. */
export interface ConfigFileInfo {
  readonly path: string;
  readonly layer: ConfigLayer;
  /** Server entries defined in the file (usable or not). */
  readonly serverCount: number;
}

/** A server defined in more than one layer: `by` won, `was` is hidden. */
export interface ShadowedServer {
  readonly name: string;
  readonly by: ServerOrigin;
  readonly was: ServerOrigin;
}

/** The merged result of every layer. */
export interface LoadedConfig {
  /**
   * Servers that may run (enabled or not), in order of first definition; later
   * layers replace earlier ones by name. A repository's entry is here only
   * once the user approved it (`mcpx config trust`).
   */
  readonly servers: readonly ServerConfig[];
  /**
   * A project's or ancestor's entries the user has not approved (each marked
   * `unapproved`, which the registry refuses): to ask about, or to say why they
   * did not start. Approving one is `trustServers(home, [server])` and a new load.
   */
  readonly unapproved: readonly ServerConfig[];
  /** Servers that are defined but cannot be used as configured (e.g. a missing variable), by name. */
  readonly unusable: ReadonlyMap<string, McpxError>;
  /** Every file read, lowest precedence first. */
  readonly files: readonly ConfigFileInfo[];
  readonly shadowed: readonly ShadowedServer[];
  /** `roots` in force (see `heldSettings`): absolute directories servers may work in. */
  readonly roots?: readonly string[];
  /** `permission` in force: the level agents get unless told otherwise. A repository's file can only lower it. */
  readonly permission?: PermissionName;
  /** `audit_log` of the user's own files: the audit log's file (absolute), or `false` for none. */
  readonly auditLog?: string | false;
  /** Settings of repository files that are not in force, for a notice and for `mcpx config trust`. */
  readonly heldSettings: readonly HeldSettings[];
  /** Keys of other client apps' files that look like typos of mcpx's own, for a notice. */
  readonly warnings: readonly ConfigWarning[];
  /**
   * Named sets of servers and tools (`"profiles"`), for `--profile NAME`: the user's own
   * files define each one, a repository's file can only narrow it (see `ProfileConfig`).
   */
  readonly profiles: readonly ProfileConfig[];
}

/**
 * Something in a config file worth a word but not worth refusing the file:
 * a key in another client app's file that looks like a typo of one of mcpx's.
 */
export interface ConfigWarning {
  readonly message: string;
  readonly origin: ServerOrigin;
  readonly server?: string;
}

/** A file mcpx would read, for `mcpx config path`. */
export interface ConfigPathInfo {
  readonly path: string;
  readonly layer: ConfigLayer;
  readonly exists: boolean;
}

/** Everything wrong across all layers, for `mcpx config validate`. */
export interface ValidationResult {
  readonly files: readonly ConfigFileInfo[];
  /** Usable servers after merging. */
  readonly serverCount: number;
  /** Every problem in every file, plus every unusable server's error. */
  readonly problems: readonly McpxError[];
  readonly warnings: readonly ConfigWarning[];
}
