import { ErrorCode, type McpxError } from '../../errors/index.js';
import {
  configProblem,
  describeValue,
  type ProblemOptions,
  type ProblemSite,
  typoWarning,
} from '../parse/config-problem.js';
import type { JsonPath } from '../parse/json-path.js';
import type { ParsedDocument } from '../parse/parse-jsonc.js';
import { suggest } from '../parse/suggest.js';
import type {
  ConfigLayer,
  ConfigWarning,
  ProtocolPin,
  ServerConfig,
  ServerOrigin,
  TransportKind,
} from '../types.js';
import { urlProblem } from './check-url.js';
import {
  createReaders,
  type DraftString,
  type Fail,
  fieldLabel,
  type Given,
  isRecord,
} from './field-readers.js';
import { canonicalJson, fingerprintEntry } from './fingerprint.js';
import { type CanonicalField, FINGERPRINTED_FIELDS, fieldFor, SERVER_FIELDS } from './server-fields.js';

/** One server entry as found in a file, before validation. */
export interface ServerEntry {
  readonly name: string;
  readonly value: unknown;
  /** JSON path of the entry (`['mcpServers', 'fs']` or `['servers', 2]`). */
  readonly path: JsonPath;
}

type Interpolated = 'command' | 'args' | 'env' | 'cwd' | 'url' | 'headers';

/**
 * A validated entry whose strings are not interpolated yet. Interpolation
 * needs the environment and may fail for one server without the file being
 * wrong, so it is a separate step (`resolveServer`).
 */
export interface ServerDraft {
  readonly site: ProblemSite;
  readonly base: Omit<ServerConfig, Interpolated>;
  readonly command?: DraftString;
  readonly args: readonly DraftString[];
  readonly env: ReadonlyArray<readonly [string, DraftString]>;
  readonly headers: ReadonlyArray<readonly [string, DraftString]>;
  readonly cwd?: DraftString;
  readonly url?: DraftString;
  /** The string settings of the `oauth` block (`client_secret: "${SECRET}"`), by key. */
  readonly oauth?: ReadonlyArray<readonly [string, DraftString]>;
}

export interface NormalizeResult {
  readonly draft?: ServerDraft;
  /**
   * The entry only switches the server off (`"demo": {"enabled": false}`, no
   * command or url): it turns off the server of that name from an earlier
   * layer (the built-in `demo`, a global server in a project) instead of
   * defining one.
   */
  readonly switchOff?: { readonly name: string; readonly origin: ServerOrigin };
  readonly problems: readonly McpxError[];
  /** Lenient files only: keys that look like typos of mcpx's. */
  readonly warnings?: readonly ConfigWarning[];
}

const TYPE_SYNONYMS: Readonly<Record<string, TransportKind>> = {
  stdio: 'stdio',
  http: 'http',
  streamablehttp: 'http',
  sse: 'sse',
};
const PROTOCOLS: readonly ProtocolPin[] = ['auto', 'legacy', 'modern'];

/**
 * Validate one server entry and map every accepted spelling onto mcpx's
 * fields. Collects every problem in the entry (so `mcpx config validate`
 * shows them all at once) and returns a draft only when there are none.
 *
 * `lenient` (another client app's file): keys mcpx does not know are that client app's,
 * never an error (a warning when one looks like a typo of mcpx's).
 * Long because it is one pass over an entry's fields collecting every problem, each field a few lines
 * of the same pattern.
 */
export function normalizeServer(
  entry: ServerEntry,
  doc: ParsedDocument,
  layer: ConfigLayer,
  lenient = false,
): NormalizeResult {
  const { name, value, path } = entry;
  const site: ProblemSite = { doc, layer, server: name, serverPath: path };
  const problems: McpxError[] = [];
  const warnings: ConfigWarning[] = [];
  const fail = (at: JsonPath, text: string, options?: ProblemOptions) => {
    problems.push(configProblem(site, at, text, options));
  };
  const wrongType = (g: Given | { path: JsonPath; value: unknown }, expected: string, fixes?: string[]) => {
    const received = describeValue(g.value);
    fail(g.path, `${fieldLabel(site, g.path)}: expected ${expected}, received ${received}`, {
      expected,
      received,
      ...(fixes ? { fixes } : {}),
    });
  };

  checkName(name, path, fail);
  if (!isRecord(value)) {
    wrongType({ path, value }, 'an object such as {"command": "npx"} or {"url": "https://…"}');
    return { problems };
  }

  // Resolve spellings to meanings; the same meaning twice is fine only if both say the same.
  const given = new Map<CanonicalField, Given>();
  let unknownKeys = 0;
  for (const [key, v] of Object.entries(value)) {
    const field = fieldFor(key);
    if (field === undefined && lenient) {
      const warning = typoWarning(site, [...path, key], Object.keys(SERVER_FIELDS));
      if (warning) warnings.push(warning);
      continue;
    }
    if (field === undefined) {
      unknownKeys++;
      const guess = suggest(key, Object.keys(SERVER_FIELDS));
      fail([...path, key], `unknown field '${key}'${guess ? ` — did you mean '${guess}'?` : ''}`, {
        target: 'key',
        fixes: [
          guess ? `rename '${key}' to '${guess}'` : `remove '${key}'`,
          'server fields: command, args, env, env_passthrough, cwd, url, type, headers, enabled, fail_if_no_tools, connect_timeout, install_timeout, request_timeout, http_max_retries, http_retry_backoff, allowed_tools, disabled_tools, protocol, max_line_bytes, oauth, allowed_hosts, keep_alive, keep_alive_idle',
        ],
      });
      continue;
    }
    if (field === 'ignored' || field === 'name') continue;
    const earlier = given.get(field);
    if (earlier && canonicalJson(earlier.value) !== canonicalJson(v)) {
      fail([...path, key], `'${earlier.key}' and '${key}' mean the same setting but differ`, {
        target: 'key',
        fixes: [`keep only one of '${earlier.key}' and '${key}'`],
      });
      continue;
    }
    given.set(field, { key, value: v, path: [...path, key] });
  }

  const readers = createReaders(wrongType, fail);

  // command: a string, or an array whose first element is the executable.
  let command: DraftString | undefined;
  const args: DraftString[] = [];
  const commandGiven = given.get('command');
  if (commandGiven) {
    const c = commandGiven.value;
    if (typeof c === 'string') {
      if (c.trim() === '') fail(commandGiven.path, "'command' is empty");
      else command = { value: c, path: commandGiven.path };
    } else if (Array.isArray(c) && c.length > 0) {
      const words = readers.strings(commandGiven);
      if (words && (words[0]?.value ?? '').trim() === '')
        fail([...commandGiven.path, 0], "'command' starts with an empty string");
      else if (words) {
        command = words[0];
        args.push(...words.slice(1));
      }
    } else {
      wrongType(
        commandGiven,
        Array.isArray(c) ? 'a non-empty array of strings' : 'string or array of strings',
        ['write "command": "npx", "args": ["-y", "package"] or "command": ["npx", "-y", "package"]'],
      );
    }
  }
  args.push(...(readers.strings(given.get('args')) ?? []));
  const env = readers.record(given.get('env'), true) ?? [];
  const headers = readers.record(given.get('headers'), false) ?? [];
  const envPassthrough = (readers.strings(given.get('envPassthrough')) ?? []).map((s) => s.value);
  const cwd = readers.nonEmptyString(given.get('cwd'));
  const url = readers.nonEmptyString(given.get('url'));
  if (url && !url.value.includes('${')) {
    const problem = urlProblem(url.value);
    if (problem)
      fail(url.path, `url: ${problem}`, { fixes: ['write a full URL such as "https://example.com/mcp"'] });
  }
  const type = readers.enumValue(given.get('type'), TYPE_SYNONYMS, '"stdio", "http" or "sse"');
  const protocol = readers.enumValue(
    given.get('protocol'),
    Object.fromEntries(PROTOCOLS.map((p) => [p, p])) as Record<string, ProtocolPin>,
    '"auto", "legacy" or "modern"',
  );

  const enabledGiven = given.get('enabled');
  const disabledGiven = given.get('disabled');
  const enabled = readers.boolean(enabledGiven);
  const disabled = readers.boolean(disabledGiven);
  if (enabled !== undefined && disabled !== undefined && enabled === disabled && disabledGiven) {
    fail(disabledGiven.path, `'enabled': ${enabled} and 'disabled': ${disabled} contradict each other`, {
      target: 'key',
      fixes: ["keep only one of 'enabled' and 'disabled'"],
    });
  }

  const settings = {
    failIfNoTools: readers.boolean(given.get('failIfNoTools')) ?? false,
    connectTimeoutMs: readers.seconds(given.get('connectTimeout'), false),
    installTimeoutMs: readers.seconds(given.get('installTimeout'), false),
    requestTimeoutMs: readers.seconds(given.get('requestTimeout'), false),
    httpMaxRetries: readers.integer(given.get('httpMaxRetries'), 0),
    httpRetryBackoffMs: readers.seconds(given.get('httpRetryBackoff'), true),
    allowTools: readers.strings(given.get('allowTools'))?.map((s) => s.value),
    denyTools: readers.strings(given.get('denyTools'))?.map((s) => s.value),
    maxLineBytes: readers.integer(given.get('maxLineBytes'), 1),
    oauth: readers.object(given.get('oauth')),
    allowedHosts: readers.strings(given.get('allowedHosts'))?.map((s) => s.value),
    keepAlive: readers.boolean(given.get('keepAlive')),
    keepAliveIdleMs: readers.seconds(given.get('keepAliveIdle'), false),
  };

  // Exactly one of command/url. A misspelt key already explains a missing one.
  let transport: TransportKind | undefined;
  if (commandGiven && given.has('url')) {
    fail(path, `has both 'command' and 'url'; a server is either started (command) or reached (url)`, {
      target: 'key',
      fixes: [
        "remove 'url' to start the server locally",
        "remove 'command' (and 'args') to connect to the running server",
      ],
    });
  } else if (!commandGiven && !given.has('url')) {
    const onlySwitch = [...given.keys()].every((field) => field === 'enabled' || field === 'disabled');
    if (
      unknownKeys === 0 &&
      problems.length === 0 &&
      onlySwitch &&
      (enabled === false || disabled === true)
    ) {
      const line = doc.locate(path, 'key')?.line;
      return { problems, switchOff: { name, origin: dropUndefined({ layer, file: doc.file, line }) } };
    }
    if (unknownKeys === 0) {
      fail(path, 'has neither command nor url', {
        code: ErrorCode.ConfigMissingTransport,
        target: 'key',
        causes: [
          'every server needs exactly one of: "command" (start it as a subprocess) or "url" (connect to it)',
        ],
        fixes: [
          // In a lenient file the typo was only a warning, so it is named here, where it matters.
          ...warnings.map((w) => w.message),
          `to start a local server: "${name}": { "command": "npx", "args": ["-y", "<package>"] }`,
          `to connect to a running server: "${name}": { "url": "https://example.com/mcp" }`,
        ],
      });
    }
  } else {
    transport = commandGiven ? 'stdio' : 'http';
    const typeGiven = given.get('type');
    if (type && typeGiven && (type === 'stdio') !== (transport === 'stdio')) {
      fail(
        typeGiven.path,
        `'${typeGiven.key}' is "${String(typeGiven.value)}" but the server has ${commandGiven ? "a 'command'" : "a 'url'"}`,
        {
          fixes: [
            commandGiven
              ? `use "${typeGiven.key}": "stdio" or remove it`
              : `use "${typeGiven.key}": "http" or "sse"`,
          ],
        },
      );
    } else if (type) {
      transport = type;
    }
  }

  if (problems.length > 0 || transport === undefined) return { problems, warnings };

  const line = doc.locate(path, 'key')?.line;
  const asWritten = Object.fromEntries(
    FINGERPRINTED_FIELDS.flatMap((field) => {
      const value = given.get(field)?.value;
      return value === undefined ? [] : [[field, value]];
    }),
  );
  const base: Omit<ServerConfig, Interpolated> = dropUndefined({
    name,
    transport,
    envPassthrough,
    enabled: enabled ?? (disabled === undefined ? true : !disabled),
    protocol: protocol ?? 'auto',
    ...settings,
    origin: dropUndefined({ layer, file: doc.file, line }),
    // Provisional: resolveServer adds the values the templates expand to.
    fingerprint: fingerprintEntry(asWritten),
    asWritten,
    requiresTrust: layer === 'project' || layer === 'ancestor',
  });
  const oauthGiven = given.get('oauth');
  const oauth =
    settings.oauth && oauthGiven
      ? Object.entries(settings.oauth).flatMap(([key, value]) =>
          typeof value === 'string' ? [[key, { value, path: [...oauthGiven.path, key] }] as const] : [],
        )
      : undefined;
  return {
    problems,
    warnings,
    draft: dropUndefined({ site, base, command, args, env, headers, cwd, url, oauth }),
  };
}

function checkName(name: string, path: JsonPath, fail: Fail): void {
  // Names appear as `server.tool` on the command line, so a dot would make the target ambiguous.
  if (name.trim() === '') {
    fail(path, 'server names cannot be empty', {
      target: 'key',
      fixes: ['give the server a short name such as "fs"'],
    });
  } else if (/[.\s]/.test(name) || /[\p{Cc}\p{Cf}]/u.test(name)) {
    const fixed = name.trim().replace(/[.\s\p{Cc}\p{Cf}]+/gu, '-');
    // Invisible and reordering characters make a name that cannot be typed, and can disguise another.
    const what = name.includes('.')
      ? "a '.'"
      : /[\p{Cc}\p{Cf}]/u.test(name)
        ? 'an invisible character'
        : 'whitespace';
    fail(
      path,
      `the name '${name}' contains ${what}; names are typed as <server>.<tool> on the command line`,
      {
        target: 'key',
        fixes: [`rename it to ${fixed}`],
      },
    );
  }
}

/** Leave absent optional fields out of the object instead of holding `undefined`. */
function dropUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}
