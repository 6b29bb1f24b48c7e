import { rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { dirname, isAbsolute } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ErrorCode, McpxError } from '../errors/index.js';
import {
  type FileLock,
  type HomeFiles,
  isAlive,
  type ProcessIdentity,
  parseIdentity,
  tryLock,
} from '../home/index.js';
import type { DaemonPaths } from './paths.js';
import { checkSocketSafe } from './socket-safety.js';
import {
  DAEMON_PROTOCOL,
  type DaemonReply,
  type DaemonRequest,
  errorFromWire,
  readLine,
  writeLine,
} from './wire.js';

export interface OpenDaemonOptions {
  readonly home: HomeFiles;
  readonly paths: DaemonPaths;
  /** The caller's process (for the start lock's liveness check). */
  readonly pid: number;
  /** The caller's user id: the folder and socket must be its own. */
  readonly uid: number | undefined;
  /** Starts a daemon (detached); absent: only an already running one is used. */
  readonly start?: () => void;
  /** How long to wait for a daemon to start (default 15 s). */
  readonly timeoutMs?: number;
}

export interface DaemonConnection {
  readonly socket: Socket;
  readonly reply: Extract<DaemonReply, { ok: true }>;
}

// Answers come from a local process; a daemon that does not answer in this time is stuck.
const REPLY_TIMEOUT_MS = 10_000;

/**
 * Send one request to the daemon, starting it first when `start` is given and
 * none runs. Many callers at once start exactly one daemon: the one that
 * takes the start lock (`home/file-lock.ts`, the lock every mcpx file edit
 * uses) starts it, the others wait for the socket; a lock or a socket left by
 * a dead process is recovered.
 */
export async function openDaemon(
  request: DaemonRequestBody,
  options: OpenDaemonOptions,
): Promise<DaemonConnection> {
  const { home, paths } = options;
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let lock: FileLock | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      const opened = await dial(request, options);
      if (opened) return opened;
      // A daemon started from another environment (another XDG_RUNTIME_DIR or TMPDIR: a cron
      // job, sudo, another session) listens where its pid file says: dial it there.
      const elsewhere = await recordedSocket(home, paths);
      const there = elsewhere && (await dial(request, { ...options, paths: elsewhere }));
      if (there) return there;
      if (!options.start) throw notRunning(paths);
      if (Date.now() > deadline) throw didNotStart(paths);
      if (!lock) {
        // Not waited for: while another caller starts the daemon, this one dials its socket.
        lock = await takeStartLock(home, paths, options.pid);
        if (lock) {
          const running = parseIdentity(await home.readText(paths.pidFile));
          // A live daemon that is not listening yet gets its time; a dead one's files are cleared.
          if (!running || !(await isAlive(running))) {
            await removeQuietly(home, paths.pidFile);
            await removeSocket(paths);
            options.start();
          }
        }
      }
      await delay(Math.min(25 + attempt * 10, 150));
    }
  } finally {
    await lock?.release();
  }
}

/** The start lock, or undefined while a live caller holds it (a dead one's is taken over). */
async function takeStartLock(
  home: HomeFiles,
  paths: DaemonPaths,
  pid: number,
): Promise<FileLock | undefined> {
  await home.ensureDir(paths.dir);
  const path = home.path(paths.lockFile);
  try {
    return await tryLock(path, { pid });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new McpxError(ErrorCode.HomeAccess, `cannot create ${path}${code ? ` (${code})` : ''}`, {
      cause: error,
      origin: { file: path },
      fixes: [`check '${home.path(paths.dir)}' (ls -ld '${home.path(paths.dir)}') and run again`],
    });
  }
}

export type DaemonRequestBody = DaemonRequest extends infer R
  ? R extends unknown
    ? Omit<R, 'protocol'>
    : never
  : never;

/** One attempt: undefined when no daemon listens (no socket, or nobody behind it). */
async function dial(
  request: DaemonRequestBody,
  options: OpenDaemonOptions,
): Promise<DaemonConnection | undefined> {
  if (!(await checkSocketSafe(options.paths, options.uid))) return undefined;
  const socket = await new Promise<Socket | undefined>((resolve) => {
    const s = connect(options.paths.absolute.socket);
    s.once('connect', () => resolve(s));
    s.once('error', () => {
      s.destroy();
      resolve(undefined);
    });
  });
  if (!socket) return undefined;
  socket.on('error', () => {});
  writeLine(socket, { protocol: DAEMON_PROTOCOL, ...request });
  let line: string;
  try {
    line = await readLine(socket, REPLY_TIMEOUT_MS);
  } catch {
    // Accepted, then hung up without answering: a daemon on its way out. Try again.
    socket.destroy();
    return undefined;
  }
  const reply = JSON.parse(line) as DaemonReply;
  if (!reply.ok) {
    socket.destroy();
    throw errorFromWire(reply.error);
  }
  return { socket, reply };
}

/** The paths with the socket a live daemon recorded, when it is not where this caller looked. */
async function recordedSocket(home: HomeFiles, paths: DaemonPaths): Promise<DaemonPaths | undefined> {
  if (paths.namedPipe) return undefined;
  const running = parseIdentity(await home.readText(paths.pidFile).catch(() => undefined));
  const socket = running?.socket;
  if (typeof socket !== 'string' || socket === paths.absolute.socket || !isAbsolute(socket)) return undefined;
  if (!(await isAlive(running as ProcessIdentity))) return undefined;
  return { ...paths, absolute: { dir: dirname(socket), socket } };
}

async function removeSocket(paths: DaemonPaths): Promise<void> {
  // A named pipe goes away with the process that listened on it.
  if (paths.namedPipe) return;
  await rm(paths.absolute.socket, { force: true });
}

async function removeQuietly(home: HomeFiles, file: string): Promise<void> {
  await home.remove(file).catch(() => {});
}

function notRunning(paths: DaemonPaths): McpxError {
  return new McpxError(ErrorCode.DaemonUnavailable, 'no mcpx daemon is running for this config', {
    origin: { file: paths.absolute.socket },
    fixes: ['start one with `mcpx daemon start`'],
  });
}

function didNotStart(paths: DaemonPaths): McpxError {
  return new McpxError(ErrorCode.DaemonUnavailable, 'the mcpx daemon did not start in time', {
    origin: { file: paths.absolute.socket },
    causes: ['the machine is very busy', 'the daemon failed to start (run `mcpx daemon run` to see why)'],
    fixes: ['run the command again', 'or set MCPX_DAEMON=off to start servers directly'],
  });
}
