/**
 * Stable error codes. Scripts switch on these (they appear in `--json` error
 * output), so a code is never renamed once shipped.
 */
export const ErrorCode = {
  // usage
  Usage: 'USAGE',
  UnknownServer: 'UNKNOWN_SERVER',
  /** `mcpx config add` of a name the file already has. */
  ServerExists: 'SERVER_EXISTS',
  UnknownTool: 'UNKNOWN_TOOL',
  /** `--profile NAME` (or `HostOptions.profile`) naming no profile of the config, or one that cannot be used. */
  UnknownProfile: 'UNKNOWN_PROFILE',
  /** A prompt name the server does not list. */
  UnknownPrompt: 'UNKNOWN_PROMPT',
  /** A skill name the server does not list (or lists only as an entry mcpx refused). */
  UnknownSkill: 'UNKNOWN_SKILL',
  InvalidArguments: 'INVALID_ARGUMENTS',
  // configuration
  ConfigNotFound: 'CONFIG_NOT_FOUND',
  ConfigUnreadable: 'CONFIG_UNREADABLE',
  ConfigInvalidJson: 'CONFIG_INVALID_JSON',
  ConfigInvalid: 'CONFIG_INVALID',
  ConfigMissingTransport: 'CONFIG_MISSING_TRANSPORT',
  ConfigInterpolation: 'CONFIG_INTERPOLATION',
  ConfigUntrusted: 'CONFIG_UNTRUSTED',
  /** A file changed between a preview and its write (`config import`) so the preview no longer holds. */
  ConfigChanged: 'CONFIG_CHANGED',
  /** A project-scope write whose `.mcpx` folder or file is a symbolic link. */
  ConfigLinked: 'CONFIG_LINKED',
  /** An entry that would start mcpx itself (by its command, or by `MCPX_SERVER_CHAIN`): skipped. */
  SelfReference: 'SELF_REFERENCE',
  /** `mcpx chat` against OpenAI itself with no `OPENAI_API_KEY`. */
  ModelKeyMissing: 'MODEL_KEY_MISSING',
  // mcpx's own files under its home
  HomeUnsafe: 'HOME_UNSAFE',
  HomeAccess: 'HOME_ACCESS',
  /** A file mcpx edits stayed locked by another live mcpx process past the wait (`home/file-lock.ts`). */
  FileLocked: 'FILE_LOCKED',
  // the keep-alive daemon
  DaemonUnsafe: 'DAEMON_UNSAFE',
  DaemonUnavailable: 'DAEMON_UNAVAILABLE',
  DaemonAlreadyRunning: 'DAEMON_ALREADY_RUNNING',
  // the gateway
  /** `mcpx serve --state-key-file` naming a file other users can read, or too short to be a key. */
  StateKeyUnsafe: 'STATE_KEY_UNSAFE',
  /** `mcpx serve --state <url>`: the fleet's shared store (Redis) is not a URL mcpx can use, or cannot be reached. */
  FleetStateUnavailable: 'FLEET_STATE_UNAVAILABLE',
  // starting and talking to a server
  CommandNotFound: 'COMMAND_NOT_FOUND',
  SpawnPermissionDenied: 'SPAWN_PERMISSION_DENIED',
  SpawnFailed: 'SPAWN_FAILED',
  ServerCrashed: 'SERVER_CRASHED',
  ConnectTimeout: 'CONNECT_TIMEOUT',
  /** A package runner (`npx`, `uvx`, …) still installing the server's package when its install budget ran out. */
  PackageInstallTimeout: 'PACKAGE_INSTALL_TIMEOUT',
  /** npx's `_npx/<hash>` folder for the server holds an unfinished install (a killed npx left it). */
  NpxCacheDamaged: 'NPX_CACHE_DAMAGED',
  RequestTimeout: 'REQUEST_TIMEOUT',
  MessageTooLarge: 'MESSAGE_TOO_LARGE',
  InvalidServerOutput: 'INVALID_SERVER_OUTPUT',
  /** A server answered a request with a line that is not a valid JSON-RPC message. */
  MalformedReply: 'MALFORMED_REPLY',
  ConnectionClosed: 'CONNECTION_CLOSED',
  UnsupportedTransport: 'UNSUPPORTED_TRANSPORT',
  // remote (HTTP) servers
  HttpUnreachable: 'HTTP_UNREACHABLE',
  HttpStatus: 'HTTP_STATUS',
  RedirectRefused: 'REDIRECT_REFUSED',
  SsrfBlocked: 'SSRF_BLOCKED',
  SessionExpired: 'SESSION_EXPIRED',
  InvalidSessionId: 'INVALID_SESSION_ID',
  AuthRequired: 'AUTH_REQUIRED',
  // what the server answered
  ServerRejected: 'SERVER_REJECTED',
  ToolError: 'TOOL_ERROR',
  /**
   * A server's request mid-call (elicitation, sampling, roots) needed a client capability the
   * host did not declare, because nobody here can answer it (no terminal, no model): -32021.
   */
  ClientCapabilityMissing: 'CLIENT_CAPABILITY_MISSING',
  InvalidToolOutput: 'INVALID_TOOL_OUTPUT',
  /**
   * A skill file that failed verification against the server's listing (SEP-2640): not listed,
   * a size or sha256 digest that differs, or a `SKILL.md` whose frontmatter differs from the entry.
   */
  SkillRefused: 'SKILL_REFUSED',
  /** A list whose cursors never end or come back (the server's pagination is broken). */
  ListPaginationBroken: 'LIST_PAGINATION_BROKEN',
  /** A list past mcpx's caps on pages, items or bytes. */
  ListTooLarge: 'LIST_TOO_LARGE',
  /**
   * A server's tools no longer match the code `mcpx generate` wrote from them: a tool added,
   * removed or changed (`--check`, or a generated function's call refused at run time).
   */
  ToolsChanged: 'TOOLS_CHANGED',
  // permissions and consent
  PermissionDenied: 'PERMISSION_DENIED',
  // the user
  Cancelled: 'CANCELLED',
  Internal: 'INTERNAL',
} as const;

/** One of the stable codes: what `McpxError.code` holds. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
