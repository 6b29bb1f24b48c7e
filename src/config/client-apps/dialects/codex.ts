// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the config syntax this module translates
import { join } from 'node:path';
import { parse, stringify, TomlError } from 'smol-toml';
import { ErrorCode, McpxError } from '../../../errors/index.js';
import { canonicalEntry, isRecord, stringList, stringRecord } from '../entry.js';
import { typoWarnings } from '../json-file.js';
import type { ClientAppDialect, ClientAppServer, McpxEntry } from '../types.js';

const KNOWN = [
  'command',
  'args',
  'env',
  'env_vars',
  'cwd',
  'url',
  'http_headers',
  'env_http_headers',
  'bearer_token_env_var',
  'startup_timeout_sec',
  'startup_timeout_ms',
  'tool_timeout_sec',
  'enabled',
  'enabled_tools',
  'disabled_tools',
];
const VAR = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const BEARER = /^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    const line = error instanceof TomlError ? error.line : undefined;
    throw new McpxError(
      ErrorCode.ConfigInvalidJson,
      `${file}${line ? `:${line}` : ''}: not valid TOML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      { origin: { layer: 'explicit', file, ...(line ? { line } : {}) }, cause: error },
    );
  }
}

/** The line of `[mcp_servers.<name>]` (TOML parsers keep no positions). */
function lineOf(text: string, name: string): number | undefined {
  const quoted = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const header = new RegExp(`^\\s*\\[\\s*mcp_servers\\s*\\.\\s*(?:"${quoted}"|'${quoted}'|${quoted})\\s*\\]`);
  const index = text.split('\n').findIndex((l) => header.test(l));
  return index === -1 ? undefined : index + 1;
}

/**
 * Codex: `~/.codex/config.toml` (`$CODEX_HOME`) and a project's
 * `.codex/config.toml`, one `[mcp_servers.<name>]` table per server. Codex
 * expands no `${VAR}`: it passes named variables through (`env_vars`, mcpx's
 * `env_passthrough`) and takes a bearer token or header values from named
 * variables (`bearer_token_env_var`, `env_http_headers`), which mcpx writes
 * as `${VAR}` references.
 */
export const codex: ClientAppDialect = {
  id: 'codex',
  label: 'Codex',
  files: (ctx) => [
    { path: join(ctx.env.CODEX_HOME || join(ctx.homedir, '.codex'), 'config.toml'), scope: 'user' },
    { path: join(ctx.cwd, '.codex', 'config.toml'), scope: 'project' },
  ],
  read(text, file) {
    const doc = parseToml(text, file.path);
    const tables = isRecord(doc.mcp_servers) ? doc.mcp_servers : {};
    const servers: ClientAppServer[] = [];
    const warnings: string[] = [];
    for (const [name, raw] of Object.entries(tables)) {
      if (!isRecord(raw)) continue;
      const headers: Record<string, string> = { ...stringRecord(raw.http_headers) };
      for (const [header, variable] of Object.entries(stringRecord(raw.env_http_headers) ?? {}))
        headers[header] = `\${${variable}}`;
      if (typeof raw.bearer_token_env_var === 'string')
        headers.Authorization = `Bearer \${${raw.bearer_token_env_var}}`;
      const startup =
        typeof raw.startup_timeout_sec === 'number'
          ? raw.startup_timeout_sec
          : typeof raw.startup_timeout_ms === 'number'
            ? raw.startup_timeout_ms / 1000
            : undefined;
      const entry = canonicalEntry({
        command: typeof raw.command === 'string' ? raw.command : undefined,
        args: stringList(raw.args),
        env: stringRecord(raw.env),
        env_passthrough: stringList(raw.env_vars),
        cwd: typeof raw.cwd === 'string' ? raw.cwd : undefined,
        url: typeof raw.url === 'string' ? raw.url : undefined,
        headers,
        connect_timeout: startup,
        request_timeout: typeof raw.tool_timeout_sec === 'number' ? raw.tool_timeout_sec : undefined,
        enabled: raw.enabled === false ? false : undefined,
        allowed_tools: stringList(raw.enabled_tools),
        disabled_tools: stringList(raw.disabled_tools),
      });
      const line = lineOf(text, name);
      servers.push({ name, entry, ...(line ? { line } : {}) });
      const unknown = Object.keys(raw).filter((k) => !KNOWN.includes(k));
      warnings.push(...typoWarnings(unknown, KNOWN, file.path, name));
    }
    return { servers, warnings, notes: [] };
  },
  write(entry: McpxEntry) {
    const value: Record<string, unknown> = {};
    const dropped: string[] = [];
    if (entry.url !== undefined) value.url = entry.url;
    else {
      value.command = entry.command;
      value.args = Array.isArray(entry.args) ? entry.args : [];
    }
    if (entry.cwd !== undefined) value.cwd = entry.cwd;
    const caveats: string[] = [];
    if (entry.env) {
      value.env = entry.env;
      for (const [key, v] of Object.entries(entry.env as Record<string, string>))
        if (v.includes('${'))
          caveats.push(
            `env ${key} is "${v}": Codex does not expand variables, so the server gets it as written`,
          );
    }
    if (entry.env_passthrough) value.env_vars = entry.env_passthrough;
    const plain: Record<string, string> = {};
    const fromEnv: Record<string, string> = {};
    for (const [header, v] of Object.entries((entry.headers ?? {}) as Record<string, string>)) {
      const bearer = header.toLowerCase() === 'authorization' ? BEARER.exec(v) : null;
      const variable = VAR.exec(v);
      if (bearer) value.bearer_token_env_var = bearer[1];
      else if (variable?.[1]) fromEnv[header] = variable[1];
      else plain[header] = v;
    }
    if (Object.keys(plain).length) value.http_headers = plain;
    if (Object.keys(fromEnv).length) value.env_http_headers = fromEnv;
    if (typeof entry.connect_timeout === 'number') value.startup_timeout_sec = entry.connect_timeout;
    if (typeof entry.request_timeout === 'number') value.tool_timeout_sec = entry.request_timeout;
    if (entry.enabled === false) value.enabled = false;
    if (entry.allowed_tools) value.enabled_tools = entry.allowed_tools;
    if (entry.disabled_tools) value.disabled_tools = entry.disabled_tools;
    // Codex has no SSE transport.
    if (entry.type === 'sse') dropped.push('type');
    const handled = [
      'command',
      'args',
      'cwd',
      'env',
      'env_passthrough',
      'url',
      'type',
      'headers',
      'connect_timeout',
      'request_timeout',
      'enabled',
      'allowed_tools',
      'disabled_tools',
    ];
    dropped.push(...Object.keys(entry).filter((k) => !handled.includes(k)));
    return { value, dropped, ...(caveats.length ? { caveats } : {}) };
  },
  merge(text, servers) {
    // smol-toml keeps no comments: the file is written anew (the export says so).
    const doc = text === undefined || text.trim() === '' ? {} : parseToml(text, 'config.toml');
    const tables = isRecord(doc.mcp_servers) ? { ...doc.mcp_servers } : {};
    for (const [name, value] of Object.entries(servers)) {
      // `undefined` removes the server (`config export --remove-copies`).
      if (value === undefined) delete tables[name];
      else tables[name] = value;
    }
    return `${stringify({ ...doc, mcp_servers: tables })}\n`;
  },
};
