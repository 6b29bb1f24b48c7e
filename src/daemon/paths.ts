import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { HomeFiles } from '../home/index.js';

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
  /** The socket is a Windows named pipe (`\\.\pipe\…`), not a file in `dir`. */
  readonly namedPipe?: boolean;
}

/** The machine the daemon runs on: Windows has named pipes where others have Unix sockets. */
export interface DaemonHost {
  readonly platform: NodeJS.Platform;
  /** The user's login name: a named pipe is machine-wide, so its name says whose it is. */
  readonly user?: string;
}

export const RUN_DIR = 'run';

/** This machine: on Windows the user's name goes into the named pipe's. */
export function thisHost(): DaemonHost {
  return process.platform === 'win32'
    ? { platform: 'win32', user: userInfo().username }
    : { platform: process.platform };
}

/**
 * One daemon per resolved config: the key is a hash of the config files' paths
 * (their order is their precedence), so two folders sharing the same files share
 * one daemon, and another project gets its own.
 *
 * FNV-1a (64 bits), not SHA-256: the light caller computes this on every warm
 * call, and loading node:crypto costs ~5 ms of a ~80 ms call. The key only
 * names a socket. It is no secret and guards nothing: a caller whose files
 * happened to share a key would reach a daemon that runs the command with the
 * caller's own config, trust and environment, and shares a server only when the
 * caller's entry for it is the same (`slotFor` in server.ts).
 */
export function daemonKey(configFiles: readonly string[]): string {
  let hash = FNV_OFFSET;
  for (const byte of Buffer.from(configFiles.join('\n'), 'utf8')) {
    hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & UINT64;
  }
  return hash.toString(16).padStart(16, '0');
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const UINT64 = (1n << 64n) - 1n;

/**
 * The socket's absolute path: `<run dir>/<key>.sock`, or on Windows the named
 * pipe `\\.\pipe\mcpx-<user>-<key>` (pipes live in their own namespace, not in
 * a folder; the user's name keeps two users' daemons for the same config apart).
 */
export function daemonSocketPath(runDir: string, key: string, host?: DaemonHost): string {
  if (host?.platform !== 'win32') return join(runDir, `${key}.sock`);
  const user = (host.user ?? 'user').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || 'user';
  return `\\\\.\\pipe\\mcpx-${user}-${key}`;
}

export function daemonPaths(home: HomeFiles, key: string, host?: DaemonHost): DaemonPaths {
  const socket = `${RUN_DIR}/${key}.sock`;
  const dir = home.path(RUN_DIR);
  const namedPipe = host?.platform === 'win32';
  return {
    key,
    dir: RUN_DIR,
    socket,
    pidFile: `${RUN_DIR}/${key}.pid`,
    lockFile: `${RUN_DIR}/${key}.lock`,
    absolute: { dir, socket: namedPipe ? daemonSocketPath(dir, key, host) : home.path(socket) },
    ...(namedPipe ? { namedPipe } : {}),
  };
}
