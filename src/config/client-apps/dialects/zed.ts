import { join } from 'node:path';
import { canonicalEntry, isRecord, stringList, stringRecord } from '../entry.js';
import { mergeJsonServers, readJsonSections } from '../json-file.js';
import { xdgConfigDir } from '../locations.js';
import type { ClientAppDialect, McpxEntry } from '../types.js';

const KNOWN = ['command', 'args', 'env', 'url', 'headers', 'source', 'settings', 'enabled'];

/**
 * Zed: `settings.json` (`~/.config/zed`, `%APPDATA%\Zed` on Windows) and a
 * project's `.zed/settings.json`, `context_servers`: a command either as
 * `{"command": {"path", "args", "env"}}` (older releases) or flat
 * `{"command": "...", "args": [...], "env": {...}}`, or a remote `url` with
 * `headers`; `source` and `settings` are Zed's own.
 */
export const zed: ClientAppDialect = {
  id: 'zed',
  label: 'Zed',
  files: (ctx) => [
    {
      path:
        ctx.platform === 'win32'
          ? join(ctx.env.APPDATA || join(ctx.homedir, 'AppData', 'Roaming'), 'Zed', 'settings.json')
          : join(xdgConfigDir(ctx), 'zed', 'settings.json'),
      scope: 'user',
    },
    { path: join(ctx.cwd, '.zed', 'settings.json'), scope: 'project' },
  ],
  read(text, file) {
    const { servers, warnings, notes } = readJsonSections(
      text,
      file.path,
      [['context_servers']],
      (raw) => {
        const nested = isRecord(raw.command) ? raw.command : undefined;
        const command = nested ? nested.path : raw.command;
        const entry = canonicalEntry({
          command: typeof command === 'string' ? command : undefined,
          args: stringList(nested ? nested.args : raw.args),
          env: stringRecord(nested ? nested.env : raw.env),
          url: typeof raw.url === 'string' ? raw.url : undefined,
          headers: stringRecord(raw.headers),
          enabled: raw.enabled === false ? false : undefined,
        });
        return { entry, unknownKeys: Object.keys(raw).filter((k) => !KNOWN.includes(k)) };
      },
      KNOWN,
    );
    return { servers, warnings, notes };
  },
  write(entry: McpxEntry) {
    const value: Record<string, unknown> =
      entry.url !== undefined
        ? { url: entry.url }
        : { command: entry.command, args: Array.isArray(entry.args) ? entry.args : [] };
    if (entry.env) value.env = entry.env;
    if (entry.headers) value.headers = entry.headers;
    if (entry.enabled === false) value.enabled = false;
    const handled = ['command', 'args', 'env', 'url', 'headers', 'enabled'];
    return { value, dropped: Object.keys(entry).filter((k) => !handled.includes(k)) };
  },
  merge: (text, servers) => mergeJsonServers(text, ['context_servers'], servers),
};
