import { lstatSync, statSync } from 'node:fs';
import { type FileLoad, loadConfigFile } from '../file/load-file.js';
import { trustStorePath } from '../trust/trust.js';
import type { TrustStore } from '../types.js';
import { realPathOrResolved } from './discover.js';
import type { ConfigFileCache } from './options.js';

// Enough for the global file and a few projects' files; the least recently used goes first.
const DEFAULT_MAX_FILES = 64;

/** A new, empty {@link ConfigFileCache}. */
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
