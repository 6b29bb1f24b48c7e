import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, rmSync } from 'node:fs';
import { type FileHandle, lstat, open, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ErrorCode, McpxError } from '../errors/index.js';
import { identify, type ProcessIdentity, parseIdentity, stillRuns } from './liveness.js';
import { onProcessExit } from './process-exit.js';

/**
 * A cross-process lock made of the platform's one atomic primitive: a lock
 * file created with `O_CREAT | O_EXCL` (exactly one creator wins, on every
 * local file system and on NFSv3+), holding who made it. No library: the
 * lock files of `proper-lockfile` and its kind go stale by age alone (their
 * holder refreshes an mtime, and a dead holder's lock is taken only after
 * that age, 10 s by default), where the holder's pid and start time say at
 * once whether it still runs (`liveness.ts`, as the daemon's start lock has
 * always done). The holder's identity is recorded so a wait that runs out
 * names the process, and a holder killed with `kill -9` is taken over at once.
 */
export interface LockHolder extends ProcessIdentity {
  /** The machine it runs on: a pid says nothing about a process on another host (a shared NFS home). */
  readonly host: string;
  /** This holding's own mark: a release or a takeover removes only the lock it judged. */
  readonly nonce: string;
}

export interface FileLockOptions {
  /** How long to wait for a live holder before `FILE_LOCKED` (default 10 s). */
  readonly waitMs?: number;
  /** Ends the wait (Ctrl-C): rejects with `CANCELLED`. */
  readonly signal?: AbortSignal;
  /** The file the lock guards, as an error names it (default: the lock's own path). */
  readonly file?: string;
  /** The pid recorded as the holder (default: this process). */
  readonly pid?: number;
}

/** A lock held by this process; `release()` removes it (once; later calls do nothing). */
export interface FileLock {
  readonly path: string;
  release(): Promise<void>;
}

/** Budget of a wait for a live holder: mcpx holds a file's lock for one read, edit and rename. */
const WAIT_MS = 10_000;
/** A lock file with no identity in it yet: its creator writes one right after creating it. */
const UNWRITTEN_GRACE_MS = 2_000;
/** A holder on another host cannot be asked whether it runs: its lock is believed this long. */
const FOREIGN_STALE_MS = 60_000;
/** A takeover claim is held for one read and one unlink; older than this, its claimer died. */
const CLAIM_STALE_MS = 10_000;
const MAX_LOCK_BYTES = 4096;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * The lock file beside `file`: `.<name>.mcpx-lock` in the same folder
 * (`.mcpx/.mcp.json.mcpx-lock`, `~/.claude.json.mcpx-lock`). A dot file, so it
 * stays out of `ls` and a glance at the folder, and removed on release (and at
 * exit), so a repository's `.mcpx/` never holds one to commit by accident; one
 * a killed mcpx left is taken over and removed by the next. Named for mcpx, not
 * `<file>.lock`, which other programs' locks (proper-lockfile's folders) use.
 */
export function lockFileOf(file: string): string {
  return join(dirname(file), `.${basename(file).replace(/^\./, '')}.mcpx-lock`);
}

export interface WithFileLockOptions extends FileLockOptions {
  /** Words a failure of the lock file itself (a file system error): the caller knows whose file it is. */
  readonly failed?: (error: unknown, lockPath: string) => Error;
}

/**
 * Run `work` while holding the lock beside `file` (`lockFileOf`): waits for a
 * live holder (up to `waitMs`, then `FILE_LOCKED` naming it), takes over at
 * once from one that died, and releases however `work` ends. The folder must
 * exist. What `work` throws passes through as it is.
 *
 * @example
 * await withFileLock(file, async () => writeFile(file, edit(await readFile(file, 'utf8'))));
 */
export async function withFileLock<T>(
  file: string,
  work: () => Promise<T>,
  options: WithFileLockOptions = {},
): Promise<T> {
  const path = lockFileOf(file);
  let lock: FileLock;
  try {
    lock = await acquireLock(path, { file, ...options });
  } catch (error) {
    throw error instanceof McpxError || !options.failed ? error : options.failed(error, path);
  }
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

/** How the file an update changes is read and written (the home's safe files, a project's own). */
export interface FileAccess {
  read(): Promise<string | undefined>;
  write(text: string): Promise<void>;
}

/**
 * The one read-modify-write of a file mcpx edits: under its lock (`withFileLock`), the file is
 * read afresh, `change` makes the next text from it, and only a change is written. Resolves
 * with the text the file now holds. `change` returning undefined writes nothing.
 */
export function updateUnderLock(
  file: string,
  access: FileAccess,
  change: (current: string | undefined) => string | undefined | Promise<string | undefined>,
  options: WithFileLockOptions = {},
): Promise<string | undefined> {
  return withFileLock(
    file,
    async () => {
      const current = await access.read();
      const next = await change(current);
      if (next === undefined || next === current) return current;
      await access.write(next);
      return next;
    },
    options,
  );
}

/** Take the lock at `path`, waiting for a live holder (see `withFileLock`). */
export async function acquireLock(path: string, options: FileLockOptions = {}): Promise<FileLock> {
  const waitMs = options.waitMs ?? WAIT_MS;
  const deadline = Date.now() + waitMs;
  const me = await holderOf(options);
  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptLock(path, me);
    if ('lock' in outcome) return outcome.lock;
    if (options.signal?.aborted) throw cancelled(path, options);
    if (Date.now() >= deadline) throw locked(path, outcome.holder, waitMs, options);
    // Short and jittered: a holder keeps the lock for milliseconds, and waiters that woke
    // together would otherwise collide again together.
    const pause = Math.min(5 * 2 ** attempt, 50) * (0.5 + Math.random());
    try {
      await delay(pause, undefined, options.signal ? { signal: options.signal } : {});
    } catch {
      throw cancelled(path, options);
    }
  }
}

/**
 * One try at the lock at `path`, without waiting: the lock, or `undefined`
 * while a live process holds it. A dead holder's lock is taken over.
 */
export async function tryLock(path: string, options: FileLockOptions = {}): Promise<FileLock | undefined> {
  const outcome = await attemptLock(path, await holderOf(options));
  return 'lock' in outcome ? outcome.lock : undefined;
}

async function holderOf(options: FileLockOptions): Promise<LockHolder> {
  return {
    ...(await identify(options.pid ?? process.pid)),
    host: hostname(),
    nonce: randomBytes(8).toString('hex'),
  };
}

type Attempt = { lock: FileLock } | { holder: LockHolder | undefined };

async function attemptLock(path: string, me: LockHolder): Promise<Attempt> {
  // Twice: a stale lock taken over leaves the way free for this same attempt.
  for (let round = 0; round < 2; round++) {
    if (await createLock(path, me)) return { lock: held(path, me) };
    const found = await readLock(path);
    if (found === undefined) continue; // released meanwhile
    if (!(await isStale(found))) return { holder: found.holder };
    await takeOver(path, found);
  }
  return { holder: (await readLock(path))?.holder };
}

/** The lock file as found: its holder (undefined when it holds none yet, or garbage) and its age. */
interface FoundLock {
  readonly holder: LockHolder | undefined;
  /** Names this holding: the holder's nonce, else the file's inode and mtime. */
  readonly generation: string;
  readonly ageMs: number;
}

async function createLock(path: string, me: LockHolder): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(JSON.stringify(me));
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(path, { force: true });
    throw error;
  }
  await handle.close();
  return true;
}

async function readLock(path: string): Promise<FoundLock | undefined> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const ageMs = Date.now() - info.mtimeMs;
  const generation = `${info.ino}-${Math.trunc(info.mtimeMs)}`;
  // Not a file (a link or a FIFO planted in its place): no holder, never followed or opened.
  if (!info.isFile() || info.size > MAX_LOCK_BYTES) return { holder: undefined, generation, ageMs };
  let text: string;
  try {
    const handle = await open(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const holder = asHolder(parseIdentity(text));
  return { holder, generation: holder?.nonce ?? generation, ageMs };
}

function asHolder(value: (ProcessIdentity & Record<string, unknown>) | undefined): LockHolder | undefined {
  if (!value || typeof value.host !== 'string' || typeof value.nonce !== 'string') return undefined;
  return value as unknown as LockHolder;
}

async function isStale(found: FoundLock): Promise<boolean> {
  const { holder } = found;
  if (holder === undefined) return found.ageMs > UNWRITTEN_GRACE_MS;
  if (holder.host !== hostname()) return found.ageMs > FOREIGN_STALE_MS;
  return !(await stillRuns(holder));
}

/**
 * Remove a dead holder's lock so that exactly one waiter does: waiters that
 * all judged it dead race for a claim named for that holding (`O_EXCL` again),
 * and only the claim's winner, finding the same holding still there, removes
 * it. Without the claim, a slower waiter could remove the lock a faster one
 * had just taken, and both would hold it.
 */
async function takeOver(path: string, stale: FoundLock): Promise<void> {
  const claim = `${path}.${stale.generation.replace(/[^A-Za-z0-9-]/g, '')}.claim`;
  if (
    !(await createLock(claim, { pid: process.pid, start: '', host: hostname(), nonce: stale.generation }))
  ) {
    // Another waiter is taking it over; a claim left by one killed in the act is cleared.
    const found = await readLock(claim);
    if (found && found.ageMs > CLAIM_STALE_MS) await rm(claim, { force: true });
    return;
  }
  try {
    const now = await readLock(path);
    if (now?.generation === stale.generation) await rm(path, { force: true });
  } finally {
    await rm(claim, { force: true });
  }
}

function held(path: string, me: LockHolder): FileLock {
  let released = false;
  // A process.exit() while holding it (a second Ctrl-C) still removes it.
  const unhook = onProcessExit(() => {
    if (ours(path, me)) rmSync(path, { force: true });
  });
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      unhook();
      if (ours(path, me)) await rm(path, { force: true });
    },
  };
}

/**
 * Whether the lock at `path` is still this holding's (nobody took it over
 * meanwhile). Synchronous, for the exit hook; never through a link or into a FIFO.
 */
function ours(path: string, me: LockHolder): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    if (!fstatSync(fd).isFile()) return false;
    const text = readFileSync(fd, 'utf8');
    return asHolder(parseIdentity(text))?.nonce === me.nonce;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function described(holder: LockHolder | undefined): string {
  if (holder === undefined) return 'a process that has not written its name in the lock yet';
  return holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
}

function locked(path: string, holder: LockHolder | undefined, waitMs: number, options: FileLockOptions) {
  const file = options.file ?? path;
  const who = described(holder);
  return new McpxError(
    ErrorCode.FileLocked,
    `${file} is being changed by another mcpx (${who}); gave up waiting after ${Math.round(waitMs / 1000)} s`,
    {
      origin: { file },
      timeoutMs: waitMs,
      causes: [
        `${who} holds the lock ${path} and has not released it: a command still running (stopped with Ctrl-Z, or on a slow disk)`,
      ],
      fixes: fixesFor(path, holder),
    },
  );
}

function fixesFor(path: string, holder: LockHolder | undefined): string[] {
  const remove = `remove the lock (rm '${path}') and run again`;
  if (holder === undefined) return [`if no mcpx is running, ${remove}`];
  if (holder.host !== hostname()) return [`if no mcpx is running on ${holder.host}, ${remove}`];
  // A holder that ends, however it ends, frees the lock: the next command takes it over at once.
  return [
    `let process ${holder.pid} finish, or end it (kill ${holder.pid}), then run the command again`,
    `if it will not end, ${remove}`,
  ];
}

function cancelled(path: string, options: FileLockOptions): McpxError {
  return new McpxError(
    ErrorCode.Cancelled,
    `cancelled while waiting for the lock on ${options.file ?? path}`,
    {
      origin: { file: options.file ?? path },
    },
  );
}
