/** The mcpx meaning a server key maps to, whatever client app spelled it. */
export type CanonicalField =
  | 'command'
  | 'args'
  | 'env'
  | 'envPassthrough'
  | 'cwd'
  | 'url'
  | 'type'
  | 'headers'
  | 'enabled'
  | 'disabled'
  | 'failIfNoTools'
  | 'connectTimeout'
  | 'installTimeout'
  | 'requestTimeout'
  | 'httpMaxRetries'
  | 'httpRetryBackoff'
  | 'allowTools'
  | 'denyTools'
  | 'protocol'
  | 'maxLineBytes'
  | 'oauth'
  | 'allowedHosts'
  | 'keepAlive'
  | 'keepAliveIdle'
  | 'name'
  | 'ignored';

/**
 * Every key a server entry may hold, mapped to its meaning. mcpx's own
 * spellings come first (did-you-mean suggestions prefer them); the rest are
 * what other client apps write, so their files load unchanged:
 * - Claude Desktop/Code, Cursor: `type`, `disabled`, `autoApprove`, `alwaysAllow`
 * - Cline/Roo: `timeout` (seconds), `disabled`, `alwaysAllow`
 * - Gemini CLI: `includeTools`/`excludeTools`, `trust`, `httpUrl`, `description`
 * - Windsurf: `serverUrl`; VS Code: `type`; some client apps: `transport`
 */
export const SERVER_FIELDS: Readonly<Record<string, CanonicalField>> = Object.freeze({
  command: 'command',
  args: 'args',
  env: 'env',
  env_passthrough: 'envPassthrough',
  cwd: 'cwd',
  url: 'url',
  type: 'type',
  headers: 'headers',
  enabled: 'enabled',
  fail_if_no_tools: 'failIfNoTools',
  connect_timeout: 'connectTimeout',
  install_timeout: 'installTimeout',
  request_timeout: 'requestTimeout',
  http_max_retries: 'httpMaxRetries',
  http_retry_backoff: 'httpRetryBackoff',
  allowed_tools: 'allowTools',
  disabled_tools: 'denyTools',
  protocol: 'protocol',
  max_line_bytes: 'maxLineBytes',
  oauth: 'oauth',
  allowed_hosts: 'allowedHosts',
  keep_alive: 'keepAlive',
  keep_alive_idle: 'keepAliveIdle',
  // camelCase and foreign spellings
  envPassthrough: 'envPassthrough',
  env_passthru: 'envPassthrough',
  failIfNoTools: 'failIfNoTools',
  connectTimeout: 'connectTimeout',
  installTimeout: 'installTimeout',
  requestTimeout: 'requestTimeout',
  timeout: 'requestTimeout',
  httpMaxRetries: 'httpMaxRetries',
  httpRetryBackoff: 'httpRetryBackoff',
  allowedTools: 'allowTools',
  includeTools: 'allowTools',
  disabledTools: 'denyTools',
  excluded_tools: 'denyTools',
  excludedTools: 'denyTools',
  excludeTools: 'denyTools',
  maxLineBytes: 'maxLineBytes',
  allowedHosts: 'allowedHosts',
  keepAlive: 'keepAlive',
  keepAliveIdle: 'keepAliveIdle',
  transport: 'type',
  serverUrl: 'url',
  httpUrl: 'url',
  disabled: 'disabled',
  name: 'name',
  // Meaningful to other client apps only; accepted so shared files load.
  autoApprove: 'ignored',
  alwaysAllow: 'ignored',
  description: 'ignored',
  trust: 'ignored',
  tools: 'ignored',
} satisfies Record<string, CanonicalField>);

/**
 * Whether a field changes what runs or where data goes. `fingerprinted`
 * fields are part of the trust fingerprint, so changing one in a project file
 * asks the person again; `harmless` ones (timeouts, tool filters, other client apps'
 * keys mcpx ignores) do not. Typed over every canonical field: a field added
 * to {@link CanonicalField} without a verdict here does not compile.
 */
export const FIELD_TRUST: Readonly<Record<CanonicalField, 'fingerprinted' | 'harmless'>> = Object.freeze({
  command: 'fingerprinted',
  args: 'fingerprinted',
  env: 'fingerprinted',
  envPassthrough: 'fingerprinted',
  cwd: 'fingerprinted',
  url: 'fingerprinted',
  type: 'fingerprinted',
  headers: 'fingerprinted',
  protocol: 'fingerprinted',
  oauth: 'fingerprinted',
  allowedHosts: 'fingerprinted',
  enabled: 'harmless',
  disabled: 'harmless',
  failIfNoTools: 'harmless',
  connectTimeout: 'harmless',
  installTimeout: 'harmless',
  requestTimeout: 'harmless',
  httpMaxRetries: 'harmless',
  httpRetryBackoff: 'harmless',
  allowTools: 'harmless',
  denyTools: 'harmless',
  maxLineBytes: 'harmless',
  // Where the server runs (warm in the daemon or started per command), not what runs.
  keepAlive: 'harmless',
  keepAliveIdle: 'harmless',
  name: 'harmless',
  ignored: 'harmless',
});

/** The fields whose written value is part of an entry's trust fingerprint, in a fixed order. */
export const FINGERPRINTED_FIELDS: readonly CanonicalField[] = (
  Object.keys(FIELD_TRUST) as CanonicalField[]
).filter((field) => FIELD_TRUST[field] === 'fingerprinted');

/** Top-level keys of a config file. */
export const TOP_LEVEL_KEYS = [
  'mcpServers',
  'servers',
  'mcp',
  '$schema',
  'inputs',
  'roots',
  'permission',
  'demo',
  'import',
  'audit_log',
  'profiles',
] as const;

/** Keys inside VS Code's settings-style `{"mcp": {...}}`. */
export const MCP_SECTION_KEYS = ['servers', 'inputs'] as const;

export function fieldFor(key: string): CanonicalField | undefined {
  return Object.hasOwn(SERVER_FIELDS, key) ? SERVER_FIELDS[key] : undefined;
}
