// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the config syntax these functions translate
import { join } from 'node:path';
import { canonicalEntry, stringList, stringRecord } from '../entry.js';
import { mergeJsonServers, readJsonSections } from '../json-file.js';
import type { ClientAppDialect, McpxEntry } from '../types.js';
import { fromMcpxVariables } from '../variables.js';

const KNOWN = [
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'httpUrl',
  'headers',
  'timeout',
  'trust',
  'includeTools',
  'excludeTools',
  'description',
  'oauth',
  'authProviderType',
];

// Gemini CLI expands `$VAR` as well as `${VAR}`; mcpx only the braced form.
const dollar = (s: string) => s.replace(/\$(?!\{)([A-Za-z_][A-Za-z0-9_]*)/g, '${$1}');

/**
 * Gemini CLI: `~/.gemini/settings.json` and a project's `.gemini/settings.json`,
 * `mcpServers`: `httpUrl` (Streamable HTTP), `url` (SSE), `timeout` in
 * milliseconds, `includeTools`/`excludeTools`; `trust` (skip Gemini's own
 * confirmations) has no mcpx meaning and is left out.
 */
export const gemini: ClientAppDialect = {
  id: 'gemini',
  label: 'Gemini CLI',
  files: (ctx) => [
    { path: join(ctx.homedir, '.gemini', 'settings.json'), scope: 'user' },
    { path: join(ctx.cwd, '.gemini', 'settings.json'), scope: 'project' },
  ],
  read(text, file) {
    const { servers, warnings, notes } = readJsonSections(
      text,
      file.path,
      [['mcpServers']],
      (raw) => {
        const url =
          typeof raw.httpUrl === 'string' ? raw.httpUrl : typeof raw.url === 'string' ? raw.url : undefined;
        const entry = canonicalEntry({
          command: typeof raw.command === 'string' ? dollar(raw.command) : undefined,
          args: stringList(raw.args, dollar),
          env: stringRecord(raw.env, dollar),
          cwd: typeof raw.cwd === 'string' ? dollar(raw.cwd) : undefined,
          url: url === undefined ? undefined : dollar(url),
          type: typeof raw.httpUrl !== 'string' && typeof raw.url === 'string' ? 'sse' : undefined,
          headers: stringRecord(raw.headers, dollar),
          request_timeout: typeof raw.timeout === 'number' ? raw.timeout / 1000 : undefined,
          allowed_tools: stringList(raw.includeTools),
          disabled_tools: stringList(raw.excludeTools),
        });
        return { entry, unknownKeys: Object.keys(raw).filter((k) => !KNOWN.includes(k)) };
      },
      KNOWN,
    );
    return { servers, warnings, notes };
  },
  write(entry: McpxEntry) {
    const str = (s: unknown) => (typeof s === 'string' ? fromMcpxVariables(s, 'dollar') : s);
    const value: Record<string, unknown> = {};
    if (entry.url !== undefined) value[entry.type === 'sse' ? 'url' : 'httpUrl'] = str(entry.url);
    else {
      value.command = entry.command;
      value.args = entry.args ?? [];
    }
    if (entry.env) value.env = entry.env;
    if (entry.cwd !== undefined) value.cwd = entry.cwd;
    if (entry.headers) value.headers = entry.headers;
    if (typeof entry.request_timeout === 'number') value.timeout = Math.round(entry.request_timeout * 1000);
    if (entry.allowed_tools) value.includeTools = entry.allowed_tools;
    if (entry.disabled_tools) value.excludeTools = entry.disabled_tools;
    const handled = [
      'command',
      'args',
      'env',
      'cwd',
      'url',
      'type',
      'headers',
      'request_timeout',
      'allowed_tools',
      'disabled_tools',
    ];
    return { value, dropped: Object.keys(entry).filter((k) => !handled.includes(k)) };
  },
  merge: (text, servers) => mergeJsonServers(text, ['mcpServers'], servers),
};
