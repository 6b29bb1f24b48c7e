// node:fs, not fs/promises: the light caller (a warm call through the daemon) loads this module.
import { realpathSync, stat } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ConfigLayer, ConfigPathInfo, FileDialect } from '../types.js';
import type { LoadConfigOptions } from './options.js';

/** A file that may hold servers, and the layer it would belong to. */
export interface ConfigCandidate {
  readonly path: string;
  readonly layer: ConfigLayer;
  /**
   * `mcpx`: one of mcpx's own files, strict (unknown keys are errors with a
   * did-you-mean). `foreign`: a file other client apps also read and write (Claude
   * Code's `.mcp.json`): keys mcpx does not know are theirs, never an error.
   * `detect`: a `--config` file, judged by its content (see `fileDialect`).
   */
  readonly dialect: FileDialect;
}

/**
 * The mcpx home directory: `MCPX_HOME` when set (and not empty), otherwise
 * `~/.mcpx`. It holds the global `mcp.json` and the trust store.
 *
 * @example resolveMcpxHome(process.env, os.homedir())
 */
export function resolveMcpxHome(
  env: Readonly<Record<string, string | undefined>>,
  osHomedir: string,
): string {
  const fromEnv = env.MCPX_HOME;
  return fromEnv ? resolve(osHomedir, fromEnv) : join(osHomedir, '.mcpx');
}

/** The global config file inside an mcpx home directory. */
export function globalConfigPath(home: string): string {
  return join(resolve(home), 'mcp.json');
}

/**
 * Every file mcpx reads, lowest precedence first: the global file, then for
 * each ancestor of `cwd` from the filesystem root down to its parent
 * `<dir>/.mcpx/mcp.json` and `<dir>/.mcp.json`, then the same two in `cwd`.
 * With `configFile`, only that file. A path equal to the global file is left
 * out (with the default home, `~` is an ancestor and `~/.mcpx/mcp.json` would
 * otherwise be read twice, the second time as an untrusted ancestor).
 */
export function configCandidates(options: LoadConfigOptions): ConfigCandidate[] {
  const cwd = resolve(options.cwd);
  if (options.configFile !== undefined)
    return [{ path: resolve(cwd, options.configFile), layer: 'explicit', dialect: 'detect' }];
  const global = globalConfigPath(options.home);
  const dirs: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  const out: ConfigCandidate[] = [{ path: global, layer: 'global', dialect: 'mcpx' }];
  dirs.forEach((dir, i) => {
    const layer: ConfigLayer = i === dirs.length - 1 ? 'project' : 'ancestor';
    const own = join(dir, '.mcpx', 'mcp.json');
    if (own !== global) out.push({ path: own, layer, dialect: 'mcpx' });
    // Claude Code's project file: shared with Claude Code, which may add keys of its own.
    out.push({ path: join(dir, '.mcp.json'), layer, dialect: 'foreign' });
  });
  return out;
}

/** `mcpx config path`: the candidate files in precedence order, and whether each exists. */
export async function configPaths(options: LoadConfigOptions): Promise<ConfigPathInfo[]> {
  return Promise.all(
    configCandidates(options).map(async ({ path, layer }) => ({
      path,
      layer,
      exists: await new Promise<boolean>((done) => stat(path, (error, s) => done(!error && s.isFile()))),
    })),
  );
}

/**
 * A config file's real path (the same file reached by two paths is one file),
 * or the path resolved when it has none (missing, unreadable). Synchronous: the
 * light caller and the daemon's file cache take it on their hot path.
 */
export function realPathOrResolved(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}
