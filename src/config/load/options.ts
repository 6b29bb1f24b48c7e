import type { FileLoad } from '../file/load-file.js';
import type { ConfigLayer, FileDialect, InputRequest, TrustStore } from '../types.js';

// Not in ../types.ts, which depends on nothing of config/: the options name the daemon's file
// cache, whose loads (file/load-file.ts) are made of that vocabulary.

/** What `loadConfig` needs: where to look and which environment to interpolate from. */
export interface LoadConfigOptions {
  /** Directory the project and ancestor layers are found from. */
  readonly cwd: string;
  /** Variables for `${VAR}` interpolation (the library never reads `process.env` itself). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The mcpx home directory (see `resolveMcpxHome`); holds the global `mcp.json` and `trust.json`. */
  readonly home: string;
  /** `--config FILE`: read only this file (relative to `cwd`) instead of discovering layers. */
  readonly configFile?: string;
  /** Include the built-in `demo` server (lowest precedence). Default true. */
  readonly includeBuiltin?: boolean;
  /**
   * The trust store; default: `loadTrustStore(home)`. A project or ancestor
   * file's servers run, and its `permission` and `roots` count, only once
   * approved there.
   */
  readonly trust?: TrustStore;
  /**
   * Keep the entries nobody approved in `servers` too, in their place and
   * marked `unapproved` (for a program that shows or checks configs; the
   * registry and the connectors still refuse them). Default false.
   */
  readonly includeUnapproved?: boolean;
  /** The user's home directory, where other client apps keep their files (`"import"`); default: the folder above `home`. */
  readonly homedir?: string;
  /** The OS, for other client apps' file locations; default: Linux's. */
  readonly platform?: NodeJS.Platform;
  /**
   * Answers a `${input:id}` whose variable (`MCPX_INPUT_<ID>`) is not set: a
   * front end with a terminal asks the person (masked for a password) and
   * remembers the answer for the rest of the process. The library never asks
   * itself; without this the server is unusable and its error names the
   * variable. The answer is used to start the server and never written.
   */
  readonly askInput?: (request: InputRequest) => Promise<string | undefined>;
  /**
   * Parsed files kept between loads (`createConfigFileCache`), for a long-lived
   * process that loads the config again and again; each file is still checked
   * for changes on every load, and interpolated with this load's `env`.
   * The keep-alive daemon's: left out of the published types (its entries are internal).
   * @internal
   */
  readonly fileCache?: ConfigFileCache;
}

/**
 * Parsed, validated config files kept between loads by a long-lived process
 * (the keep-alive daemon runs every caller's command with a fresh load). A file
 * is read again as soon as its stamp (device, inode, size, modification and
 * change times in nanoseconds) differs. What is kept is the file before
 * interpolation: `${VAR}` is filled per load, from that load's own env, so no
 * caller is ever served values resolved with another caller's environment.
 *
 * Its `stat` and `realpath` are synchronous: a few microseconds each on the
 * daemon's thread, where an asynchronous one is a trip through libuv's thread
 * pool, which on a loaded machine waits its turn for a CPU (milliseconds, per
 * file, per call). Only the read of a changed file goes through the pool.
 */
export interface ConfigFileCache {
  load(path: string, layer: ConfigLayer, dialect: FileDialect): Promise<FileLoad | undefined>;
  /** The file's real path (the same file reached twice is read once), or the path resolved. */
  realpath(path: string): string;
  /**
   * The trust store of `home`, from `read` (`loadTrustStore`, with all its checks) the first
   * time and whenever `trust.json`'s stamp (as `lstat` sees it, owner and mode too) changed;
   * a failed read is not kept. An approval rewrites the file (a new inode), so it is seen at once.
   */
  trustStore(home: string, read: () => Promise<TrustStore>): Promise<TrustStore>;
}
