import { realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { fingerprintEntry } from '../entry/fingerprint.js';
import type { ServerDraft } from '../entry/normalize-server.js';
import { type FileLoad, loadConfigFile } from '../file/load-file.js';
import { mergeProfiles, profileProblem } from '../file/profiles.js';
import { variablesIn } from '../resolve/interpolate.js';
import { asWritten, resolveServer } from '../resolve/resolve-server.js';
import { isTrusted, loadTrustStore, markUnapproved } from '../trust/trust.js';
import type {
  ConfigFileInfo,
  ConfigWarning,
  HeldSettings,
  InputRequest,
  LoadedConfig,
  PermissionName,
  ProfileLayer,
  ServerConfig,
  ServerOrigin,
  ShadowedServer,
  ValidationResult,
} from '../types.js';
import { builtinServers } from './builtin.js';
import { configCandidates } from './discover.js';
import type { LoadConfigOptions } from './options.js';

interface Definition {
  readonly name: string;
  readonly origin: ServerOrigin;
  /** `off`: switch off the earlier definition of this name (`builtin`: only the built-in one). */
  readonly result: ServerConfig | McpxError | { readonly off: 'any' | 'builtin' };
  /** The entry as written, uninterpolated: what a later layer's switch-off shows as disabled. */
  readonly inert?: ServerConfig;
}

/** The host-wide settings one file sets. */
interface FileSettings {
  readonly file: string;
  readonly layer: ConfigFileInfo['layer'];
  readonly roots?: readonly string[];
  readonly permission?: PermissionName;
}

interface Gathered {
  /** The last `audit_log` of the user's own files (see `auditLogOf`). */
  readonly auditLog?: string | false;
  readonly files: ConfigFileInfo[];
  readonly problems: McpxError[];
  readonly definitions: Definition[];
  readonly settings: FileSettings[];
  readonly warnings: ConfigWarning[];
  readonly profiles: { name: string; layer: ProfileLayer }[];
}

/** Read every layer in precedence order, collecting problems instead of stopping at the first. */
// Long because it reads every layer in precedence order, each step adding to the same accumulators.
async function gather(options: LoadConfigOptions): Promise<Gathered> {
  const files: ConfigFileInfo[] = [];
  const problems: McpxError[] = [];
  const definitions: Definition[] = [];
  const settings: FileSettings[] = [];
  const warnings: ConfigWarning[] = [];
  let auditLog: string | false | undefined;
  const profiles: Gathered['profiles'] = [];
  const inputs: InputRequest[] = [];
  const pending: { index: number; draft: ServerDraft }[] = [];
  if (options.includeBuiltin !== false) {
    for (const server of builtinServers())
      definitions.push({ name: server.name, origin: server.origin, result: server });
  }
  // The same file reached twice (a symlinked home, MCPX_HOME inside a project) is read once, first layer wins.
  const read = new Set<string>();
  // `"demo": {"enabled": …}`: the last file that says so decides.
  let demo: FileLoad['demo'];
  const candidates = configCandidates(options);
  const candidatePaths = new Set(candidates.map((c) => resolve(c.path)));
  for (const candidate of candidates) {
    const real = options.fileCache
      ? options.fileCache.realpath(candidate.path)
      : await realpath(candidate.path).catch(() => resolve(candidate.path));
    if (read.has(real)) continue;
    const { path, layer, dialect } = candidate;
    const load = await (options.fileCache
      ? options.fileCache.load(path, layer, dialect)
      : loadConfigFile(path, layer, dialect));
    if (!load) {
      if (candidate.layer === 'explicit') problems.push(notFound(candidate.path));
      continue;
    }
    read.add(real);
    files.push({ path: load.path, layer: load.layer, serverCount: load.serverCount });
    problems.push(...load.problems);
    warnings.push(...(load.warnings ?? []));
    if (load.auditLog !== undefined) {
      // Only the person's own files say where the log of their calls goes: a repository's could
      // switch it off, or have it appended to a file of its choosing.
      if (load.layer === 'global' || load.layer === 'explicit') auditLog = load.auditLog;
      else
        warnings.push({
          message: `${load.path}: 'audit_log' is ignored here: only your own config (~/.mcpx/mcp.json, or --config) says where the audit log goes`,
          origin: { layer: load.layer, file: load.path },
        });
    }
    profiles.push(...(load.profiles ?? []));
    if (load.roots || load.permission) {
      settings.push({
        file: load.path,
        layer: load.layer,
        ...(load.roots ? { roots: load.roots } : {}),
        ...(load.permission ? { permission: load.permission } : {}),
      });
    }
    // Imported client apps' servers come first: the importing file's own entries replace them by name.
    if (load.imports) {
      // Loaded only for a file that imports: every client app's reader and the TOML parser stay off the cold path.
      const { importedDrafts } = await import('./live-import.js');
      const imported = await importedDrafts(
        { path: load.path, layer: load.layer, imports: load.imports },
        options,
        candidatePaths,
      );
      warnings.push(...imported.warnings);
      inputs.push(...imported.inputs);
      for (const draft of imported.drafts) {
        pending.push({ index: definitions.length, draft });
        definitions.push(placeholderFor(draft));
      }
    }
    inputs.push(...(load.inputs ?? []));
    for (const draft of load.drafts) {
      pending.push({ index: definitions.length, draft });
      definitions.push(placeholderFor(draft));
    }
    for (const off of load.switchOffs ?? []) definitions.push({ ...off, result: { off: 'any' } });
    if (load.demo) demo = load.demo;
  }
  if (demo && !demo.enabled)
    definitions.push({ name: 'demo', origin: demo.origin, result: { off: 'builtin' } });
  // Interpolation waits until every file is read: `${input:id}` answers are asked for once, all together.
  const env = await answerInputs(
    pending.map((p) => p.draft),
    inputs,
    options,
  );
  for (const { index, draft } of pending) {
    definitions[index] = {
      name: draft.base.name,
      origin: draft.base.origin,
      result: resolveServer(draft, env),
      inert: asWritten(draft),
    };
  }
  return {
    files,
    problems,
    definitions,
    settings,
    warnings,
    profiles,
    ...(auditLog !== undefined ? { auditLog } : {}),
  };
}

/** Stands in a definition's place until its draft is interpolated (see the end of `gather`). */
function placeholderFor(draft: ServerDraft): Definition {
  return { name: draft.base.name, origin: draft.base.origin, result: { off: 'any' } };
}

/**
 * The environment for interpolation, with VS Code's `${workspaceFolder}`
 * (the current folder) and `${userHome}`, and the `${input:id}` answers a front
 * end gave (see `LoadConfigOptions.askInput`). Asked only for enabled
 * servers of the user's own files: a repository's file could otherwise put
 * any question, with any description, to the person before anyone approved it.
 */
async function answerInputs(
  drafts: readonly ServerDraft[],
  inputs: readonly InputRequest[],
  options: LoadConfigOptions,
): Promise<LoadConfigOptions['env']> {
  const { askInput } = options;
  // VS Code's predefined variables, for its files read as they are (`--config .vscode/mcp.json`).
  const env: LoadConfigOptions['env'] = {
    workspaceFolder: resolve(options.cwd),
    userHome: options.homedir ?? dirname(resolve(options.home)),
    ...options.env,
  };
  if (!askInput) return env;
  const wanted = new Set<string>();
  for (const draft of drafts) {
    if (!draft.base.enabled || draft.base.requiresTrust) continue;
    for (const text of draftStrings(draft))
      for (const name of variablesIn(text))
        if (name.startsWith('MCPX_INPUT_') && !env[name]) wanted.add(name);
  }
  if (wanted.size === 0) return env;
  const answers: Record<string, string> = {};
  for (const variable of wanted) {
    const request = inputs.find((i) => i.variable === variable) ?? {
      id: variable.slice('MCPX_INPUT_'.length).toLowerCase(),
      variable,
      password: true,
    };
    const answer = await askInput(request);
    if (answer !== undefined) answers[variable] = answer;
  }
  return { ...env, ...answers };
}

function draftStrings(draft: ServerDraft): string[] {
  return [
    draft.command,
    draft.cwd,
    draft.url,
    ...draft.args,
    ...draft.env.map(([, s]) => s),
    ...draft.headers.map(([, s]) => s),
    ...(draft.oauth ?? []).map(([, s]) => s),
  ].flatMap((s) => (s ? [s.value] : []));
}

const PERMISSION_RANK: Readonly<Record<PermissionName, number>> = { sandboxed: 0, trusted: 1, yolo: 2 };

/**
 * The host-wide settings in force. The user's own files (global, --config)
 * set them freely, later winning. A project or ancestor file may have come
 * with a repository: its settings count only once approved (`trust`, by
 * their fingerprint), and even then its permission may only lower the level
 * (from the user's own, or `trusted` when they set none). Everything else is
 * held back, with the reason, for a notice.
 */
function applySettings(files: readonly FileSettings[], trust: LoadConfigOptions['trust']) {
  let roots: readonly string[] | undefined;
  let permission: PermissionName | undefined;
  const held: HeldSettings[] = [];
  for (const file of files.filter((f) => !isRepositoryLayer(f.layer))) {
    roots = file.roots ?? roots;
    permission = file.permission ?? permission;
  }
  const ceiling = permission ?? 'trusted';
  for (const file of files.filter((f) => isRepositoryLayer(f.layer))) {
    const { permission: asked, roots: wanted } = file;
    const fingerprint = fingerprintEntry({ permission: asked, roots: wanted });
    const raises = asked !== undefined && PERMISSION_RANK[asked] > PERMISSION_RANK[permission ?? ceiling];
    const base = {
      file: file.file,
      layer: file.layer,
      ...(asked ? { permission: asked } : {}),
      ...(wanted ? { roots: wanted } : {}),
      raises,
      fingerprint,
    };
    if (trust?.settings.get(file.file) !== fingerprint) {
      held.push({ ...base, reason: 'untrusted' });
      continue;
    }
    roots = wanted ?? roots;
    if (raises) held.push({ ...base, reason: 'raises' });
    else if (asked !== undefined) permission = asked;
  }
  return { ...(roots ? { roots } : {}), ...(permission ? { permission } : {}), heldSettings: held };
}

function isRepositoryLayer(layer: ConfigFileInfo['layer']): boolean {
  return layer === 'project' || layer === 'ancestor';
}

/** Later definitions replace earlier ones by name; the position of the first definition is kept. */
function merge(definitions: readonly Definition[]) {
  const byName = new Map<string, Definition>();
  const shadowed: ShadowedServer[] = [];
  for (const definition of definitions) {
    const earlier = byName.get(definition.name);
    const { result } = definition;
    if ('off' in result) {
      // Switched off where it was turned off, so "disabled" names the file that did it.
      const target = earlier?.result;
      if (target === undefined || 'off' in target) continue;
      // Switched off, a server is inert: one whose ${VAR} is unset is shown as written, not as an error.
      const off = target instanceof McpxError ? earlier?.inert : target;
      if (!off) {
        byName.set(definition.name, definition);
        continue;
      }
      if (result.off === 'builtin' && off.origin.layer !== 'builtin') continue;
      byName.set(definition.name, {
        ...definition,
        result: { ...off, enabled: false, origin: definition.origin },
      });
      continue;
    }
    if (earlier) shadowed.push({ name: definition.name, by: definition.origin, was: earlier.origin });
    byName.set(definition.name, definition);
  }
  const servers: ServerConfig[] = [];
  const unusable = new Map<string, McpxError>();
  for (const [name, { result }] of byName) {
    if (result instanceof McpxError) unusable.set(name, result);
    else if (!('off' in result)) servers.push(result);
  }
  return { servers, unusable, shadowed };
}

function notFound(path: string): McpxError {
  return new McpxError(ErrorCode.ConfigNotFound, `config file not found: ${path}`, {
    origin: { layer: 'explicit', file: path },
    fixes: [
      'check the path given to --config',
      'run `mcpx config path` to see the files mcpx reads without --config',
    ],
  });
}

/**
 * Load the merged config: the built-in `demo` server, the global file, each
 * ancestor's and the project's `.mcpx/mcp.json` and `.mcp.json` (or only
 * `configFile`), later layers replacing earlier ones by server name.
 *
 * Throws the first problem when a file is unreadable, not valid JSON or not a
 * valid config (a broken file must be fixed, not half-used). A server whose
 * `${VAR}` cannot be filled is not a broken file: it is left out of `servers`
 * and reported in `unusable`, so the other servers keep working.
 *
 * @example
 * const config = await loadConfig({ cwd: process.cwd(), env: process.env, home: resolveMcpxHome(process.env, os.homedir()) });
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const { files, problems, definitions, settings, warnings, profiles, auditLog } = await gather(options);
  const first = problems[0];
  if (first) {
    if (problems.length === 1) throw first;
    throw new McpxError(first.code, first.message, {
      ...first.context,
      causes: first.causes,
      fixes: [...first.fixes, `run \`mcpx config validate\` to see all ${problems.length} problems`],
      cause: first.cause,
    });
  }
  const trust = options.trust ?? (await loadTrustStore(options.home));
  const merged = merge(definitions);
  const servers: ServerConfig[] = [];
  const unapproved: ServerConfig[] = [];
  for (const server of merged.servers) {
    if (isTrusted(trust, server)) {
      servers.push(server);
      continue;
    }
    const marked = markUnapproved(server);
    unapproved.push(marked);
    if (options.includeUnapproved) servers.push(marked);
  }
  return {
    files,
    ...merged,
    servers,
    unapproved,
    ...applySettings(settings, trust),
    ...(auditLog !== undefined ? { auditLog } : {}),
    warnings,
    profiles: mergeProfiles(profiles),
  };
}

/**
 * Every problem across every file (syntax, schema, missing variables), for
 * `mcpx config validate`. Never throws for a config problem.
 */
export async function validateConfig(options: LoadConfigOptions): Promise<ValidationResult> {
  const { files, problems, definitions, warnings, profiles } = await gather(options);
  const { servers, unusable } = merge(definitions);
  const configured = new Set([...servers.map((s) => s.name), ...unusable.keys()]);
  const profileProblems = mergeProfiles(profiles).flatMap((p) => profileProblem(p, configured) ?? []);
  return {
    files,
    serverCount: servers.length,
    problems: [...problems, ...unusable.values(), ...profileProblems],
    warnings,
  };
}
