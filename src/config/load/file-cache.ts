import { lstatSync, statSync } from 'node:fs';
import { type FileLoad, loadConfigFile } from '../file/load-file.js';
import { type TrustStore, trustStorePath } from '../trust/trust.js';
import type { ConfigLayer, FileDialect } from '../types.js';
import { realPathOrResolved } from './discover.js';

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

// Enough for the global file and a few projects' files; the least recently used goes first.
const DEFAULT_MAX_FILES = 64;

export function createConfigFileCache(maxFiles = DEFAULT_MAX_FILES): ConfigFileCache {
  const files = new Map<string, { readonly stamp: string; readonly load: FileLoad | undefined }>();
  const trusts = new Map<string, { readonly stamp: string; readonly store: Promise<TrustStore> }>();
  return {
    async load(path, layer, dialect) {
      const key = `${layer}\0${dialect}\0${path}`;
      let stamp: string;
      try {
        const s = statSync(path, { bigint: true });
        stamp = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      } catch (error) {
        files.delete(key);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
        // Anything else is reported by the read itself, with its full explanation.
        return loadConfigFile(path, layer, dialect);
      }
      const kept = files.get(key);
      files.delete(key);
      // Stamped before reading: a file changed while it is read has a newer stamp next time.
      const load = kept?.stamp === stamp ? kept.load : await loadConfigFile(path, layer, dialect);
      files.set(key, { stamp, load });
      if (files.size > maxFiles) files.delete(files.keys().next().value as string);
      return load;
    },
    trustStore(home, read) {
      const s = lstatSync(trustStorePath(home), { bigint: true, throwIfNoEntry: false });
      const stamp = s ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.mode}:${s.uid}` : 'absent';
      const kept = trusts.get(home);
      if (kept?.stamp === stamp) return kept.store;
      const store = read();
      trusts.set(home, { stamp, store });
      store.catch(() => {
        if (trusts.get(home)?.store === store) trusts.delete(home);
      });
      return store;
    },
    realpath: realPathOrResolved,
  };
}
