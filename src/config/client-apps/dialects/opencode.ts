import { join } from 'node:path';
import { canonicalEntry, stringList, stringRecord } from '../entry.js';
import { mergeJsonServers, readJsonSections } from '../json-file.js';
import { xdgConfigDir } from '../locations.js';
import type { ClientAppDialect, McpxEntry } from '../types.js';
import { fromMcpxVariables, toMcpxVariables } from '../variables.js';

const KNOWN = ['type', 'command', 'environment', 'enabled', 'url', 'headers', 'timeout', 'oauth'];
const str = (s: string) => toMcpxVariables(s, 'opencode');

/**
 * OpenCode: `~/.config/opencode/opencode.json` and a project's
 * `opencode.json`, the `mcp` object: `type: "local"` with the whole command
 * line as an array and `environment`, or `type: "remote"` with `url` and
 * `headers`; `enabled`; `timeout` in milliseconds (for listing tools, so
 * mcpx's connect timeout); `{env:VAR}` references.
 */
export const opencode: ClientAppDialect = {
  id: 'opencode',
  label: 'OpenCode',
  files: (ctx) => [
    { path: join(xdgConfigDir(ctx), 'opencode', 'opencode.json'), scope: 'user' },
    { path: join(ctx.cwd, 'opencode.json'), scope: 'project' },
  ],
  read(text, file) {
    const { servers, warnings, notes } = readJsonSections(
      text,
      file.path,
      [['mcp']],
      (raw) => {
        const words =
          stringList(raw.command, str) ?? (typeof raw.command === 'string' ? [str(raw.command)] : []);
        const remote = raw.type === 'remote' || (raw.type === undefined && typeof raw.url === 'string');
        const entry = canonicalEntry({
          command: remote ? undefined : words[0],
          args: remote ? undefined : words.slice(1),
          env: stringRecord(raw.environment, str),
          url: remote && typeof raw.url === 'string' ? str(raw.url) : undefined,
          headers: stringRecord(raw.headers, str),
          enabled: raw.enabled === false ? false : undefined,
          connect_timeout: typeof raw.timeout === 'number' ? raw.timeout / 1000 : undefined,
        });
        return { entry, unknownKeys: Object.keys(raw).filter((k) => !KNOWN.includes(k)) };
      },
      KNOWN,
    );
    return { servers, warnings, notes };
  },
  write(entry: McpxEntry) {
    const out = (s: unknown) => (typeof s === 'string' ? fromMcpxVariables(s, 'opencode') : s);
    const map = (r: unknown) =>
      r && typeof r === 'object'
        ? Object.fromEntries(Object.entries(r).map(([k, v]) => [k, out(v)]))
        : undefined;
    const value: Record<string, unknown> =
      entry.url !== undefined
        ? { type: 'remote', url: out(entry.url) }
        : {
            type: 'local',
            command: [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])].map(out),
          };
    if (entry.env) value.environment = map(entry.env);
    if (entry.headers) value.headers = map(entry.headers);
    if (entry.enabled === false) value.enabled = false;
    if (typeof entry.connect_timeout === 'number') value.timeout = Math.round(entry.connect_timeout * 1000);
    const handled = ['command', 'args', 'env', 'url', 'headers', 'enabled', 'connect_timeout'];
    return { value, dropped: Object.keys(entry).filter((k) => !handled.includes(k)) };
  },
  merge: (text, servers) => mergeJsonServers(text, ['mcp'], servers),
};
