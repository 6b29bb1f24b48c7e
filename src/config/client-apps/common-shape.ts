import { canonicalEntry, stringList, stringRecord } from './entry.js';
import { mergeJsonServers, readJsonSections } from './json-file.js';
import type { ClientAppDialect, ClientAppWrite, McpxEntry } from './types.js';
import { fromMcpxVariables, toMcpxVariables, type VariableStyle } from './variables.js';

/**
 * The `mcpServers` dialect most client apps share (Claude Desktop, Claude Code,
 * Cursor, Windsurf, VS Code): `command`, `args`, `env`, a URL under some key,
 * `headers`, sometimes `type`, `cwd` and `disabled`.
 */
export interface CommonShape {
  readonly vars: VariableStyle;
  /** Where the client app writes a remote server's address (`serverUrl` for Windsurf); `undefined` when it has none. */
  readonly urlKey?: 'url' | 'serverUrl';
  /** The client app writes `"type": "stdio" | "http" | "sse"`. */
  readonly type: boolean;
  readonly cwd: boolean;
  /** The client app switches a server off with `"disabled": true`. */
  readonly disabled: boolean;
  /** Keys the client app knows that mean nothing to mcpx (passed over in silence). */
  readonly appKeys: readonly string[];
}

/** Every key a client app with this shape knows. */
export function knownKeys(shape: CommonShape): string[] {
  return [
    'command',
    'args',
    'env',
    'headers',
    ...(shape.urlKey ? ['url', shape.urlKey] : []),
    ...(shape.type ? ['type'] : []),
    ...(shape.cwd ? ['cwd'] : []),
    ...(shape.disabled ? ['disabled'] : []),
    ...shape.appKeys,
  ];
}

/** One raw entry of a common-shape client app in mcpx's spelling; `mapString` resolves the client app's own placeholders. */
export function readCommon(
  raw: Record<string, unknown>,
  shape: CommonShape,
  mapString: (s: string) => string = (s) => s,
) {
  const str = (s: string) => toMcpxVariables(mapString(s), shape.vars);
  const known = knownKeys(shape);
  const url = shape.urlKey ? (raw[shape.urlKey] ?? raw.url) : undefined;
  const entry = canonicalEntry({
    command: typeof raw.command === 'string' ? str(raw.command) : undefined,
    args: stringList(raw.args, str),
    env: stringRecord(raw.env, str),
    cwd: shape.cwd && typeof raw.cwd === 'string' ? str(raw.cwd) : undefined,
    url: typeof url === 'string' ? str(url) : undefined,
    type: raw.type === 'sse' ? 'sse' : undefined,
    headers: stringRecord(raw.headers, str),
    enabled: shape.disabled && raw.disabled === true ? false : undefined,
  });
  return { entry, unknownKeys: Object.keys(raw).filter((k) => !known.includes(k)) };
}

/** An mcpx entry in a common-shape client app's spelling, and the settings it cannot say. */
export function writeCommon(entry: McpxEntry, shape: CommonShape): ClientAppWrite {
  const str = (s: unknown) => (typeof s === 'string' ? fromMcpxVariables(s, shape.vars) : s);
  const map = (record: unknown) =>
    record && typeof record === 'object'
      ? Object.fromEntries(Object.entries(record).map(([k, v]) => [k, str(v)]))
      : undefined;
  const handled = new Set(['command', 'args', 'env', 'url', 'type', 'headers']);
  if (shape.cwd) handled.add('cwd');
  if (shape.disabled) handled.add('enabled');
  if (entry.url !== undefined && !shape.urlKey) return { value: undefined, dropped: ['url'] };
  const remote = entry.url !== undefined;
  const value: Record<string, unknown> = {};
  if (shape.type) value.type = remote ? (entry.type === 'sse' ? 'sse' : 'http') : 'stdio';
  if (remote && shape.urlKey) value[shape.urlKey] = str(entry.url);
  else {
    value.command = str(entry.command);
    value.args = Array.isArray(entry.args) ? entry.args.map(str) : [];
  }
  if (entry.env) value.env = map(entry.env);
  if (shape.cwd && entry.cwd !== undefined) value.cwd = str(entry.cwd);
  if (entry.headers) value.headers = map(entry.headers);
  if (shape.disabled && entry.enabled === false) value.disabled = true;
  // Without a type, the SSE transport cannot be said: the client app will try Streamable HTTP.
  const dropped = Object.keys(entry).filter(
    (k) => !handled.has(k) || (k === 'type' && !shape.type) || (k === 'enabled' && !shape.disabled),
  );
  return { value, dropped: [...new Set(dropped)] };
}

/**
 * A client app whose file is `{"mcpServers": {...}}` of the common shape beside the
 * client app's own keys (Claude Desktop, Cursor, Windsurf): only where it lives and
 * how it spells things differ.
 */
export function mcpServersDialect(
  app: Pick<ClientAppDialect, 'id' | 'label' | 'files'>,
  shape: CommonShape,
): ClientAppDialect {
  return {
    ...app,
    read(text, file) {
      const { servers, warnings, notes } = readJsonSections(
        text,
        file.path,
        [['mcpServers']],
        (raw) => readCommon(raw, shape),
        knownKeys(shape),
      );
      return { servers, warnings, notes };
    },
    write: (entry) => writeCommon(entry, shape),
    merge: (text, servers) => mergeJsonServers(text, ['mcpServers'], servers),
  };
}
