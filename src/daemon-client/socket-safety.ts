import { chmodSync, lstatSync, mkdirSync, type Stats } from 'node:fs';
import type { McpxError } from '../errors/index.js';
import type { DaemonPaths } from './paths.js';

/** What a caller finds where a daemon's socket would be: nothing, a safe socket, or a hazard. */
export type SocketState =
  | 'absent'
  | 'safe'
  | { readonly path: string; readonly problem: string; readonly folder: boolean };

/**
 * Before connecting: the run folder and the socket must be the user's own and
 * reachable by nobody else. Anyone who can connect to the socket can run
 * every server the daemon holds, so a folder or socket another user could
 * reach is refused, never used or silently repaired: it may have been planted.
 * Resolves false when the socket does not exist (no daemon).
 */
export async function checkSocketSafe(paths: SocketPaths, uid: number | undefined): Promise<boolean> {
  const state = socketState(paths, uid);
  if (state === 'absent') return false;
  if (state === 'safe') return true;
  throw await unsafe(state.path, state.problem, state.folder);
}

/** Where the socket and its folder are (a part of `DaemonPaths`). */
export type SocketPaths = Pick<DaemonPaths, 'absolute' | 'namedPipe'>;

/**
 * `checkSocketSafe`'s finding without its error: two lstat calls, made
 * synchronously, so the light caller (a warm call) loads neither fs/promises
 * nor the error module; a hazard is left to the full CLI to report.
 */
export function socketState(paths: SocketPaths, uid: number | undefined): SocketState {
  const dir = lstatSync(paths.absolute.dir, { throwIfNoEntry: false });
  if (dir === undefined) return 'absent';
  const folderProblem = problemOf(dir, uid, 'folder');
  if (folderProblem) return { path: paths.absolute.dir, problem: folderProblem, folder: true };
  // A Windows named pipe is no file: there is nothing to lstat, and owner and mode bits do not
  // apply. What protects it is its security descriptor: a pipe created without one (as Node's
  // server does) gets the default DACL, which gives full access to its creator, LocalSystem and
  // administrators and only read access to everyone else, so no other user can open it for the
  // read-write a request needs. Whether a daemon listens is found out by connecting.
  if (paths.namedPipe) return 'safe';
  const socket = lstatSync(paths.absolute.socket, { throwIfNoEntry: false });
  if (socket === undefined) return 'absent';
  const socketProblem = problemOf(socket, uid, 'socket');
  if (socketProblem) return { path: paths.absolute.socket, problem: socketProblem, folder: false };
  return 'safe';
}

/**
 * The daemon's side: the socket's folder made 0700 when absent, and refused
 * (`DAEMON_UNSAFE`) when it exists and is not a private folder of the user's
 * own. In a shared temporary folder anyone may have made it first, so it is
 * never used, chmodded or chowned when someone else did.
 */
export async function ensureSocketFolder(paths: SocketPaths, uid: number | undefined): Promise<void> {
  if (paths.namedPipe) return;
  const dir = paths.absolute.dir;
  let made = false;
  try {
    mkdirSync(dir, { mode: 0o700 });
    made = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // mkdir's mode passes through the umask: made here, it ends up exactly 0700.
  if (made) chmodSync(dir, 0o700);
  const info = lstatSync(dir);
  const problem = problemOf(info, uid, 'folder');
  if (problem) throw await unsafe(dir, problem, true);
}

function problemOf(info: Stats, uid: number | undefined, kind: 'folder' | 'socket'): string | undefined {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (kind === 'folder' && !info.isDirectory()) return 'not a folder';
  if (kind === 'socket' && !info.isSocket()) return 'not a socket';
  if (uid !== undefined && info.uid !== uid) return `owned by another user (uid ${info.uid})`;
  if (uid !== undefined && (info.mode & 0o077) !== 0)
    return `reachable by other users (mode ${(info.mode & 0o777).toString(8)})`;
  return undefined;
}

async function unsafe(path: string, problem: string, folder: boolean): Promise<McpxError> {
  const { ErrorCode, McpxError } = await import('../errors/index.js');
  return new McpxError(
    ErrorCode.DaemonUnsafe,
    `the mcpx daemon's ${folder ? 'folder' : 'socket'} ${path} is ${problem}; mcpx does not use a daemon another user could reach`,
    {
      origin: { file: path },
      causes: [
        'whoever can connect to the socket can call every server the daemon keeps running',
        'something other than mcpx created or changed it',
      ],
      fixes: [
        `remove it (rm ${folder ? '-r ' : ''}'${path}') and run again; mcpx makes it anew, private`,
        'or set MCPX_DAEMON=off to start servers directly',
      ],
    },
  );
}
