import * as nodeModule from 'node:module';
import { resolveMcpxHome } from '../config/load/discover.js';
import { createHomeFiles } from '../home/index.js';

/** The folder under the mcpx home that holds V8's code cache for mcpx's own files. */
export const COMPILE_CACHE_DIR = 'compile-cache';

/** Node's `module.enableCompileCache` (Node >= 22.1); absent on Node 20. */
type EnableCompileCache = (directory: string) => unknown;

/** What `startCompileCache` needs from its process. */
export interface CompileCacheOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homedir: string;
  /** Defaults to Node's own; `undefined` where Node has none. */
  readonly enable?: EnableCompileCache | undefined;
}

/**
 * Lets V8 keep the compiled code of the chunks the CLI loads in a folder under
 * the mcpx home (made 0700 through `home/`), so the next command compiles only
 * what changed: on Node 24 an every-day `mcpx call` saves ~10% of its wall time
 * (bench/README.md). A no-op on Node 20 (no such API), and silent: a home that
 * is unsafe or unwritable only means no cache; the command that uses the home
 * says what is wrong with it. `NODE_DISABLE_COMPILE_CACHE=1` turns it off, as
 * for any Node program. Resolves whether the cache was asked for.
 *
 * @example
 * await startCompileCache({ env: process.env, homedir: os.homedir() });
 */
export async function startCompileCache(options: CompileCacheOptions): Promise<boolean> {
  const enable = 'enable' in options ? options.enable : nodeEnableCompileCache();
  if (!enable) return false;
  try {
    const home = createHomeFiles(resolveMcpxHome(options.env, options.homedir));
    enable(await home.ensureDir(COMPILE_CACHE_DIR));
    return true;
  } catch {
    return false;
  }
}

function nodeEnableCompileCache(): EnableCompileCache | undefined {
  const candidate = (nodeModule as { enableCompileCache?: unknown }).enableCompileCache;
  return typeof candidate === 'function' ? (candidate as EnableCompileCache) : undefined;
}
