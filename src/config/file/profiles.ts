/**
 * Profiles: named sets of servers and tools (and a permission level) that a
 * session is limited to with `--profile NAME`. Read from every layer; the
 * user's own files define them, a repository's file can only narrow them (its
 * definition of a name the user also defines is one more filter on top, never
 * a replacement), so naming a profile never grants what the user's file does not.
 */
import { ErrorCode, McpxError } from '../../errors/index.js';
import { configProblem, describeValue, type ProblemSite } from '../parse/config-problem.js';
import { suggest } from '../parse/suggest.js';
import type {
  ConfigLayer,
  LoadedConfig,
  PermissionName,
  ProfileConfig,
  ProfileLayer,
  ServerOrigin,
} from '../types.js';

const PROFILE_KEYS = ['servers', 'tools', 'exclude_tools', 'permission'] as const;
const PERMISSIONS: readonly PermissionName[] = ['sandboxed', 'trusted', 'yolo'];
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The file's `"profiles": {...}`, each checked; a bad one is a problem and left out. */
export function collectProfiles(
  site: ProblemSite,
  value: unknown,
  problems: McpxError[],
): { name: string; layer: ProfileLayer }[] {
  if (!isRecord(value)) {
    problems.push(
      configProblem(site, ['profiles'], "'profiles' must be an object of profiles by name", {
        expected: '{"review": {"servers": ["github"], "tools": ["github.get_*"]}}',
        received: describeValue(value),
      }),
    );
    return [];
  }
  const out: { name: string; layer: ProfileLayer }[] = [];
  for (const [name, body] of Object.entries(value)) {
    const at = ['profiles', name];
    const before = problems.length;
    if (!NAME.test(name))
      problems.push(
        configProblem(site, at, `profile name '${name}' must be letters, digits, '_', '-' or '.'`, {
          target: 'key',
          fixes: ['rename the profile, e.g. "review"'],
        }),
      );
    if (!isRecord(body)) {
      problems.push(
        configProblem(site, at, `profile '${name}' must be an object`, {
          expected: '{"servers": [...], "tools": [...], "exclude_tools": [...], "permission": "trusted"}',
          received: describeValue(body),
        }),
      );
      continue;
    }
    const layer: { -readonly [K in keyof ProfileLayer]: ProfileLayer[K] } = {
      origin: originOf(site, at),
    };
    for (const [key, field] of Object.entries(body)) {
      const path = [...at, key];
      if (key === 'servers') {
        if (isNameList(field)) layer.servers = field;
        else problems.push(listProblem(site, path, 'server names', '["github", "fs"]', field));
      } else if (key === 'tools' || key === 'exclude_tools') {
        const globs = globList(site, path, field, problems);
        if (globs && key === 'tools') layer.tools = globs;
        if (globs && key === 'exclude_tools') layer.excludeTools = globs;
      } else if (key === 'permission') {
        if (PERMISSIONS.includes(field as PermissionName)) layer.permission = field as PermissionName;
        else
          problems.push(
            configProblem(site, path, `profile '${name}': 'permission' must be yolo, trusted or sandboxed`, {
              expected: '"yolo", "trusted" or "sandboxed"',
              received: describeValue(field),
            }),
          );
      } else {
        const guess = suggest(key, PROFILE_KEYS);
        problems.push(
          configProblem(
            site,
            path,
            `profile '${name}': unknown key '${key}'${guess ? ` — did you mean '${guess}'?` : ''}`,
            {
              target: 'key',
              fixes: [
                guess ? `rename '${key}' to '${guess}'` : `remove '${key}'`,
                `known keys here: ${PROFILE_KEYS.join(', ')}`,
              ],
            },
          ),
        );
      }
    }
    if (problems.length === before) out.push({ name, layer });
  }
  return out;
}

function originOf(site: ProblemSite, path: readonly (string | number)[]): ServerOrigin {
  const line = site.doc.locate(path, 'key')?.line;
  return { layer: site.layer, file: site.doc.file, ...(line ? { line } : {}) };
}

function isNameList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' && v !== '');
}

function listProblem(
  site: ProblemSite,
  path: readonly (string | number)[],
  what: string,
  example: string,
  value: unknown,
): McpxError {
  return configProblem(site, path, `'${String(path.at(-1))}' must be a list of ${what}`, {
    expected: `array, e.g. ${example}`,
    received: describeValue(value),
  });
}

/**
 * Tool globs as `--exclude-tools` takes them: `<server>.<tool>` or `<tool>`, `*` and `?`
 * the only wildcards. Brackets and braces would read as classes or alternatives and
 * silently match nothing, so they are refused.
 */
function globList(
  site: ProblemSite,
  path: readonly (string | number)[],
  value: unknown,
  problems: McpxError[],
): string[] | undefined {
  if (!Array.isArray(value)) {
    problems.push(listProblem(site, path, 'tool globs', '["github.get_*", "fs.read_file"]', value));
    return undefined;
  }
  let ok = true;
  value.forEach((glob, i) => {
    const why = globProblem(glob);
    if (why === undefined) return;
    ok = false;
    problems.push(
      configProblem(site, [...path, i], `bad tool glob: ${why}`, {
        expected: '"<server>.<tool>" or "<tool>", with * and ? as wildcards, e.g. "github.get_*"',
        received: describeValue(glob),
      }),
    );
  });
  return ok ? (value as string[]) : undefined;
}

function globProblem(glob: unknown): string | undefined {
  if (typeof glob !== 'string' || glob === '') return 'a glob is a non-empty string';
  if (/[\s\u0000-\u001f\u007f]/.test(glob)) return 'it contains a space or a control character';
  if (/[[\]{}]/.test(glob)) return 'only * and ? are wildcards ([...] and {...} are not supported)';
  if (glob.startsWith('.') || glob.endsWith('.')) return 'write <server>.<tool>, with both parts';
  return undefined;
}

function isRepositoryLayer(layer: ConfigLayer): boolean {
  return layer === 'project' || layer === 'ancestor';
}

/**
 * Every file's profiles as one list: the user's own files define a name (a later
 * one replacing an earlier one), a repository's file adds a layer that narrows it.
 */
export function mergeProfiles(
  definitions: readonly { name: string; layer: ProfileLayer }[],
): ProfileConfig[] {
  const own = new Map<string, ProfileLayer>();
  const narrowing = new Map<string, ProfileLayer[]>();
  for (const { name, layer } of definitions) {
    if (isRepositoryLayer(layer.origin.layer)) narrowing.set(name, [...(narrowing.get(name) ?? []), layer]);
    else own.set(name, layer);
  }
  const names = [...new Set(definitions.map((d) => d.name))];
  return names.map((name) => {
    const mine = own.get(name);
    return { name, layers: [...(mine ? [mine] : []), ...(narrowing.get(name) ?? [])] };
  });
}

/**
 * The profile called `name`, checked against the config it belongs to: every server
 * it names must be configured, and a tool glob written `<server>__<tool>` or
 * `<server>/<tool>` (another client app's spelling) is refused with the form mcpx reads.
 */
export function findProfile(config: LoadedConfig, name: string): ProfileConfig {
  const profile = config.profiles.find((p) => p.name === name);
  if (!profile) {
    const names = config.profiles.map((p) => p.name);
    const guess = suggest(name, names);
    throw new McpxError(
      ErrorCode.UnknownProfile,
      `no profile named '${name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
      {
        fixes: [
          names.length
            ? `profiles: ${names.join(', ')} (\`mcpx config profiles\` lists them)`
            : 'define one under "profiles" in ~/.mcpx/mcp.json, e.g. "profiles": {"review": {"servers": ["github"]}}',
        ],
      },
    );
  }
  const problem = profileProblem(
    profile,
    new Set([
      ...config.servers.map((s) => s.name),
      ...config.unapproved.map((s) => s.name),
      ...config.unusable.keys(),
    ]),
  );
  if (problem) throw problem;
  return profile;
}

/**
 * What is wrong with a profile against the servers `configured` (by name), if anything:
 * a server it names that is not one of them, or a tool glob in another client app's spelling.
 */
export function profileProblem(
  profile: ProfileConfig,
  configured: ReadonlySet<string>,
): McpxError | undefined {
  const { name } = profile;
  for (const layer of profile.layers) {
    const where = `${layer.origin.file ?? layer.origin.layer}${layer.origin.line ? `:${layer.origin.line}` : ''}`;
    for (const [i, server] of (layer.servers ?? []).entries()) {
      if (configured.has(server)) continue;
      const guess = suggest(server, [...configured]);
      return new McpxError(
        ErrorCode.UnknownProfile,
        `${where}: profile '${name}' names server '${server}', which is not configured${guess ? ` — did you mean '${guess}'?` : ''}`,
        {
          origin: layer.origin,
          field: `profiles.${name}.servers[${i}]`,
          fixes: [
            guess ? `write '${guess}'` : `remove '${server}' from the profile's servers`,
            'run `mcpx list` to see the configured servers',
          ],
        },
      );
    }
    for (const key of ['tools', 'excludeTools'] as const) {
      for (const [i, glob] of (layer[key] ?? []).entries()) {
        const split = /^([^.]+?)(__|\/)(.+)$/.exec(glob);
        if (!split || glob.includes('.') || !configured.has(split[1] as string)) continue;
        return new McpxError(
          ErrorCode.UnknownProfile,
          `${where}: profile '${name}': tool glob '${glob}' is written as another client app names tools; mcpx reads <server>.<tool>`,
          {
            origin: layer.origin,
            field: `profiles.${name}.${key === 'tools' ? 'tools' : 'exclude_tools'}[${i}]`,
            fixes: [`write '${split[1]}.${split[3]}'`],
          },
        );
      }
    }
  }
  return undefined;
}
