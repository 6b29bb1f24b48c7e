import type { McpxError } from '../../errors/index.js';
import type { ServerEntry } from '../entry/normalize-server.js';
import { MCP_SECTION_KEYS, TOP_LEVEL_KEYS } from '../entry/server-fields.js';
import { configProblem, describeValue, type ProblemSite, typoWarning } from '../parse/config-problem.js';
import type { JsonPath } from '../parse/json-path.js';
import type { ParsedDocument } from '../parse/parse-jsonc.js';
import { suggest } from '../parse/suggest.js';
import {
  CLIENT_APP_IDS,
  type ClientAppId,
  type ConfigLayer,
  type ConfigWarning,
  type ProfileLayer,
} from '../types.js';
import { collectProfiles } from './profiles.js';

export interface CollectResult {
  /** Every server entry in the file, in file order. */
  readonly entries: readonly ServerEntry[];
  readonly problems: readonly McpxError[];
  /** Another client app's keys that look like typos of mcpx's own (lenient files only). */
  readonly warnings: readonly ConfigWarning[];
  /** The file's `roots`: directories servers may work in, as written. */
  readonly roots?: readonly string[];
  /** The file's `permission`: the level agents get by default. */
  readonly permission?: 'yolo' | 'trusted' | 'sandboxed';
  /** The file's `"demo": {"enabled": …}`: the built-in demo server switched on or off, and where. */
  readonly demo?: { readonly enabled: boolean; readonly line?: number };
  /** The file's `audit_log`: where the audit log goes (as written), or `false` for none. */
  readonly auditLog?: string | false;
  /** The file's `"import": ["cursor", …]`: client apps whose servers are read live, and where it says so. */
  readonly imports?: { readonly apps: readonly ClientAppId[]; readonly line?: number };
  /** The file's `"profiles": {...}`, each one valid (see `profiles.ts`). */
  readonly profiles?: readonly { readonly name: string; readonly layer: ProfileLayer }[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Find the server entries in a parsed file, whichever shape holds them:
 * `mcpServers` (Claude Desktop and most client apps), `servers` as an object or an
 * array of `{name, ...}` (NEXUS3, VS Code's mcp.json), and VS Code settings'
 * `{"mcp": {"servers": ...}}`. Several sections may coexist; one name in two
 * of them is an error, since either choice would silently drop the other.
 *
 * `lenient` (another client app's file): a top-level key mcpx does not know belongs
 * to that client app and is passed over, with a warning only when it looks like a
 * typo of one of mcpx's keys.
 * Long because it is one pass over the document's top-level keys, each kind of key a branch sharing
 * the problems and warnings.
 */
export function collectEntries(doc: ParsedDocument, layer: ConfigLayer, lenient = false): CollectResult {
  const site: ProblemSite = { doc, layer };
  const problems: McpxError[] = [];
  const warnings: ConfigWarning[] = [];
  const entries: ServerEntry[] = [];
  const root = doc.value;
  if (root === undefined) return { entries, problems, warnings };
  if (!isRecord(root)) {
    problems.push(
      configProblem(
        site,
        [],
        `the top level must be an object such as {"mcpServers": {...}}, not ${describeValue(root)}`,
        {
          expected: 'object',
          received: describeValue(root),
        },
      ),
    );
    return { entries, problems, warnings };
  }
  const unknown = (path: JsonPath, known: readonly string[], value?: unknown) => {
    if (!lenient) problems.push(unknownKey(site, path, known, value));
    else {
      const warning = typoWarning(site, path, known);
      if (warning) warnings.push(warning);
    }
  };

  const seen = new Map<string, ServerEntry>();
  const add = (entry: ServerEntry) => {
    const earlier = seen.get(entry.name);
    if (earlier) {
      const a = doc.locate(earlier.path, 'key')?.line;
      const b = doc.locate(entry.path, 'key')?.line;
      problems.push(
        configProblem(
          { ...site, server: entry.name },
          entry.path,
          `is defined twice in this file (line ${a} and line ${b})`,
          {
            target: 'key',
            fixes: ['remove one of the two definitions or rename one of them'],
          },
        ),
      );
      return;
    }
    seen.set(entry.name, entry);
    entries.push(entry);
  };
  const section = (value: unknown, path: JsonPath) => collectSection(site, value, path, add, problems);
  let roots: string[] | undefined;
  let permission: CollectResult['permission'];
  let demo: CollectResult['demo'];
  let imports: CollectResult['imports'];
  let auditLog: CollectResult['auditLog'];
  let profiles: CollectResult['profiles'];

  for (const [key, value] of Object.entries(root)) {
    if (key === 'mcpServers' || key === 'servers') section(value, [key]);
    else if (key === 'roots') {
      if (Array.isArray(value) && value.every((v) => typeof v === 'string' && v !== '')) roots = value;
      else {
        problems.push(
          configProblem(site, ['roots'], "'roots' must be a list of directories", {
            expected: 'array of paths, e.g. ["./src", "/data"]',
            received: describeValue(value),
          }),
        );
      }
    } else if (key === 'permission') {
      if (value === 'yolo' || value === 'trusted' || value === 'sandboxed') permission = value;
      else {
        problems.push(
          configProblem(site, ['permission'], "'permission' must be yolo, trusted or sandboxed", {
            expected: '"yolo", "trusted" or "sandboxed"',
            received: describeValue(value),
          }),
        );
      }
    } else if (key === 'audit_log') {
      if (value === false || (typeof value === 'string' && value.trim() !== '')) auditLog = value;
      else {
        problems.push(
          configProblem(site, ['audit_log'], "'audit_log' is where the audit log of tool calls goes", {
            expected: 'a file path such as "~/logs/mcpx-audit.jsonl", or false for no audit log',
            received: describeValue(value),
          }),
        );
      }
    } else if (key === 'demo') {
      const enabled = isRecord(value) ? value.enabled : undefined;
      if (isRecord(value) && Object.keys(value).length === 1 && typeof enabled === 'boolean') {
        const line = doc.locate(['demo'], 'key')?.line;
        demo = { enabled, ...(line ? { line } : {}) };
      } else {
        problems.push(
          configProblem(site, ['demo'], "'demo' switches the built-in demo server on or off", {
            expected: '{"enabled": false} or {"enabled": true}',
            received: describeValue(value),
            fixes: ['write "demo": {"enabled": false} to hide the built-in demo server'],
          }),
        );
      }
    } else if (key === 'import') {
      const apps = Array.isArray(value) ? value : [];
      const bad = Array.isArray(value)
        ? apps.findIndex((h) => typeof h !== 'string' || !(CLIENT_APP_IDS as readonly string[]).includes(h))
        : -1;
      if (!Array.isArray(value) || bad !== -1) {
        const wrong = bad === -1 ? value : apps[bad];
        const guess = typeof wrong === 'string' ? suggest(wrong, CLIENT_APP_IDS) : undefined;
        problems.push(
          configProblem(
            site,
            bad === -1 ? ['import'] : ['import', bad],
            `'import' lists client apps whose servers mcpx reads${typeof wrong === 'string' ? `; '${wrong}' is not one${guess ? ` — did you mean '${guess}'?` : ''}` : ''}`,
            {
              expected: `array of client app names: ${CLIENT_APP_IDS.join(', ')}`,
              received: describeValue(wrong),
              fixes: [guess ? `write '${guess}'` : `client apps: ${CLIENT_APP_IDS.join(', ')}`],
            },
          ),
        );
      } else {
        const line = doc.locate(['import'], 'key')?.line;
        imports = { apps: apps as ClientAppId[], ...(line ? { line } : {}) };
      }
    } else if (key === 'profiles') {
      profiles = collectProfiles(site, value, problems);
    } else if (key === 'mcp') {
      if (!isRecord(value)) {
        problems.push(wrongSection(site, ['mcp'], value, 'object such as {"servers": {...}}'));
        continue;
      }
      for (const [inner, innerValue] of Object.entries(value)) {
        if (inner === 'servers') section(innerValue, ['mcp', inner]);
        else if (!(MCP_SECTION_KEYS as readonly string[]).includes(inner)) {
          unknown(['mcp', inner], MCP_SECTION_KEYS);
        }
      }
    } else if (!(TOP_LEVEL_KEYS as readonly string[]).includes(key)) {
      unknown([key], TOP_LEVEL_KEYS, value);
    }
  }
  return {
    entries,
    problems,
    warnings,
    ...(roots ? { roots } : {}),
    ...(permission ? { permission } : {}),
    ...(demo ? { demo } : {}),
    ...(imports ? { imports } : {}),
    ...(auditLog !== undefined ? { auditLog } : {}),
    ...(profiles?.length ? { profiles } : {}),
  };
}

function collectSection(
  site: ProblemSite,
  value: unknown,
  path: JsonPath,
  add: (entry: ServerEntry) => void,
  problems: McpxError[],
): void {
  if (isRecord(value)) {
    for (const [name, entry] of Object.entries(value)) add({ name, value: entry, path: [...path, name] });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((entry, i) => {
      const at = [...path, i];
      const name = isRecord(entry) ? entry.name : undefined;
      if (typeof name === 'string' && name !== '') add({ name, value: entry, path: at });
      else {
        problems.push(
          configProblem(
            site,
            isRecord(entry) && entry.name !== undefined ? [...at, 'name'] : at,
            'a server in an array needs a "name" (a non-empty string)',
            {
              expected: 'object with a "name" string',
              received: describeValue(isRecord(entry) && entry.name !== undefined ? entry.name : entry),
              fixes: [
                'add "name": "my-server" to the entry, or write the servers as an object keyed by name',
              ],
            },
          ),
        );
      }
    });
    return;
  }
  problems.push(wrongSection(site, path, value, 'object of servers by name, or array of servers'));
}

function wrongSection(site: ProblemSite, path: JsonPath, value: unknown, expected: string): McpxError {
  const received = describeValue(value);
  return configProblem(site, path, `${path.join('.')}: expected ${expected}, received ${received}`, {
    expected,
    received,
  });
}

function unknownKey(site: ProblemSite, path: JsonPath, known: readonly string[], value?: unknown): McpxError {
  const key = String(path.at(-1));
  const guess = suggest(key, known);
  // `{"fs": {"command": ...}}` without a wrapper: say where it belongs instead of just "unknown".
  const looksLikeServer = isRecord(value) && ('command' in value || 'url' in value);
  const fixes = looksLikeServer
    ? [`move "${key}" into "mcpServers": { "mcpServers": { "${key}": {...} } }`]
    : [guess ? `rename '${key}' to '${guess}'` : `remove '${key}'`, `known keys here: ${known.join(', ')}`];
  const text = looksLikeServer
    ? `'${key}' looks like a server but is not inside "mcpServers" or "servers"`
    : `unknown key '${key}'${guess ? ` — did you mean '${guess}'?` : ''}`;
  return configProblem(site, path, text, { target: 'key', fixes });
}
