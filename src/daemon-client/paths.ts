import { lstatSync, readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { HomeFiles } from '../home/index.js';

/** Where one daemon keeps its socket, pid file and start lock. */
export interface DaemonPaths {
  /** Names the resolved config the daemon serves. */
  readonly key: string;
  /** `run`, in the mcpx home: the 0700 folder of the pid file and the start lock. */
  readonly dir: string;
  readonly pidFile: string;
  readonly lockFile: string;
  /**
   * The socket and its private folder, outside the mcpx home (see `daemonSocket`):
   * a socket's path must fit in 104 bytes, a home's need not.
   */
  readonly absolute: { readonly dir: string; readonly socket: string };
  /** The socket is a Windows named pipe (`\\.\pipe\…`), not a file in `dir`. */
  readonly namedPipe?: boolean;
}

/** The machine the daemon runs on: Windows has named pipes where others have Unix sockets. */
export interface DaemonMachine {
  readonly platform: NodeJS.Platform;
  /** The user's login name: a named pipe is machine-wide, so its name says whose it is. */
  readonly user?: string;
  /** The user's id: the temporary socket folder is named for it. */
  readonly uid?: number;
  /** `XDG_RUNTIME_DIR` and `TMPDIR`, from the command's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export const RUN_DIR = 'run';

/** This machine, for a command with environment `env`: on Windows the user's name goes into the named pipe's. */
export function thisMachine(env: Readonly<Record<string, string | undefined>>): DaemonMachine {
  return process.platform === 'win32'
    ? { platform: 'win32', user: userInfo().username }
    : { platform: process.platform, env, ...(process.getuid ? { uid: process.getuid() } : {}) };
}

/**
 * One daemon per resolved config: the key is a hash of the config files' paths
 * (their order is their precedence), so two folders sharing the same files share
 * one daemon, and an edited file keeps its daemon (only the edited entries'
 * servers restart). Files with the same text at other paths (two clones, two
 * worktrees) find that daemon through its content alias (`contentAlias`).
 *
 * FNV-1a (64 bits), not SHA-256: the light caller computes this on every warm
 * call, and loading node:crypto costs ~5 ms of a ~80 ms call. The key only
 * names a socket. It is no secret and guards nothing: a caller whose files
 * happened to share a key would reach a daemon that runs the command with the
 * caller's own config, trust and environment, and shares a server only when the
 * caller's entry for it is the same (the instance key, daemon/instance-key.ts).
 */
export function daemonKey(configFiles: readonly string[]): string {
  let hash = FNV_OFFSET;
  for (const byte of Buffer.from(configFiles.join('\n'), 'utf8')) {
    hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & UINT64;
  }
  return hash.toString(16).padStart(16, '0');
}

/**
 * A hash of the config files' text, in their order (a file gone since it was
 * found counts as empty). Synchronous: the light caller computes it when no
 * daemon listens at its own key (a file or two of a few kB).
 */
export function configKey(configFiles: readonly string[]): string {
  return daemonKey(
    configFiles.map((file) => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return '';
      }
    }),
  );
}

/**
 * Where a daemon records the config content it was started for (`configKey`),
 * with its pid, key and socket: a caller whose files say the same at other paths,
 * and for whose own key no daemon runs, uses that daemon instead of starting its
 * own. What differs between the two (a relative path, a `${VAR}`) makes their
 * resolved entries differ, and so their server instances (daemon/instance-key.ts).
 */
export function contentAlias(contentKey: string): string {
  return `${RUN_DIR}/content-${contentKey}.json`;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const UINT64 = (1n << 64n) - 1n;

// sun_path holds 108 bytes on Linux and 104 on macOS, with its NUL; the staging name adds
// `.<pid>.tmp` (at most 12 bytes) to the socket's.
const SOCKET_PATH_MAX = 103 - 12;

/**
 * The socket's folder and path. Not in the mcpx home: a Unix socket's path must
 * fit in 104 bytes, and a home 100 characters long is a home like any other.
 * The folder is `$XDG_RUNTIME_DIR/mcpx` when that variable names a folder of
 * the user's own that nobody else can reach (as the XDG spec requires), else
 * `mcpx-<uid>` in the temporary folder (`$TMPDIR`, or `/tmp` when that is too
 * long); the daemon makes it 0700 and callers refuse one that is not the
 * user's own and private (socket-safety.ts). The name is a hash of the mcpx
 * home and the config key, so two homes never share a socket. On Windows: the
 * named pipe `\\.\pipe\mcpx-<user>-<key>` (pipes live in their own namespace,
 * not in a folder; the user's name keeps two users' daemons apart).
 *
 * Synchronous and classless: the light caller computes it on every warm call.
 */
export function daemonSocket(
  mcpxHome: string,
  key: string,
  machine?: DaemonMachine,
): { dir: string; socket: string } {
  const runDir = join(mcpxHome, RUN_DIR);
  if (machine?.platform === 'win32') {
    const user = (machine.user ?? 'user').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || 'user';
    return { dir: runDir, socket: `\\\\.\\pipe\\mcpx-${user}-${key}` };
  }
  const name = `${daemonKey([mcpxHome, key])}.sock`;
  const fits = (dir: string) => Buffer.byteLength(join(dir, name)) <= SOCKET_PATH_MAX;
  const uid = machine?.uid ?? process.getuid?.() ?? 0;
  const env = machine?.env ?? {};
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && isAbsolute(runtime) && privateFolder(runtime, uid) && fits(join(runtime, 'mcpx')))
    return { dir: join(runtime, 'mcpx'), socket: join(runtime, 'mcpx', name) };
  // A TMPDIR that names no folder would leave the daemon nowhere to listen.
  const temp = env.TMPDIR && isAbsolute(env.TMPDIR) && isFolder(env.TMPDIR) ? env.TMPDIR : '/tmp';
  const dir = fits(join(temp, `mcpx-${uid}`)) ? join(temp, `mcpx-${uid}`) : join('/tmp', `mcpx-${uid}`);
  return { dir, socket: join(dir, name) };
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** A folder owned by `uid` that no one else can enter. */
function privateFolder(path: string, uid: number): boolean {
  const info = lstatSync(path, { throwIfNoEntry: false });
  return info?.isDirectory() === true && info.uid === uid && (info.mode & 0o077) === 0;
}

export function daemonPaths(home: HomeFiles, key: string, machine?: DaemonMachine): DaemonPaths {
  const namedPipe = machine?.platform === 'win32';
  return {
    key,
    dir: RUN_DIR,
    pidFile: `${RUN_DIR}/${key}.pid`,
    lockFile: `${RUN_DIR}/${key}.lock`,
    absolute: daemonSocket(home.root, key, machine),
    ...(namedPipe ? { namedPipe } : {}),
  };
}
