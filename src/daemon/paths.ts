import type { HomeFiles } from '../home/index.js';
import { sha256Hex } from './sha256.js';

/** Where one daemon keeps its socket, pid file and start lock, relative to the mcpx home. */
export interface DaemonPaths {
  /** Names the resolved config the daemon serves. */
  readonly key: string;
  /** `run`: the 0700 folder every daemon file lives in. */
  readonly dir: string;
  readonly socket: string;
  readonly pidFile: string;
  readonly lockFile: string;
  /** Absolute paths of the above. */
  readonly absolute: { readonly dir: string; readonly socket: string };
}

export const RUN_DIR = 'run';

/**
 * One daemon per resolved config: the key is a hash of the config files' paths
 * (their order is their precedence), so two folders sharing the same files share
 * one daemon, and another project gets its own.
 */
export function daemonKey(configFiles: readonly string[]): string {
  return sha256Hex(configFiles.join('\n')).slice(0, 16);
}

export function daemonPaths(home: HomeFiles, key: string): DaemonPaths {
  const socket = `${RUN_DIR}/${key}.sock`;
  return {
    key,
    dir: RUN_DIR,
    socket,
    pidFile: `${RUN_DIR}/${key}.pid`,
    lockFile: `${RUN_DIR}/${key}.lock`,
    absolute: { dir: home.path(RUN_DIR), socket: home.path(socket) },
  };
}
