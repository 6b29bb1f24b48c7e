/**
 * Ending a server and everything it started. A stdio server runs in its own
 * process group (spawned `detached` on POSIX), so one signal reaches its whole
 * tree — including grandchildren left behind after the server itself exited
 * (`npx` → `node`, `uv` → `python`, a server's worker processes).
 */
import { execFile } from 'node:child_process';
import { procStats } from './proc-stats.js';

/** Time a server gets to exit on its own once its stdin is closed (the MCP spec's first shutdown step). */
export const DEFAULT_CLOSE_GRACE_MS = 1_000;
/** Time the tree gets after SIGTERM before SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

const POLL_MS = 20;

/** The parts of a `ChildProcess` this module needs (a fake one in unit tests). */
export interface KillableChild {
  readonly pid?: number | undefined;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  readonly stdin?: { end(): unknown; destroyed?: boolean } | null;
  once(event: 'exit', listener: () => void): unknown;
  removeListener(event: 'exit', listener: () => void): unknown;
  kill(signal?: NodeJS.Signals): boolean;
}

/** Options of {@link killTree}. Everything that touches the OS is injectable. */
export interface KillTreeOptions {
  /** Default: `process.platform`. */
  readonly platform?: NodeJS.Platform;
  /** Default {@link DEFAULT_CLOSE_GRACE_MS}. */
  readonly closeGraceMs?: number;
  /** Default {@link DEFAULT_KILL_GRACE_MS}. */
  readonly killGraceMs?: number;
  /**
   * Ends the stdin grace early when it settles: the server cannot exit by itself (it waits
   * on an answer nobody will give), so SIGTERM follows at once.
   */
  readonly closeGraceEnds?: Promise<void>;
  /** Sends `signal` to every process in group `pgid`; throws ESRCH when the group is empty. */
  readonly signalGroup?: (pgid: number, signal: NodeJS.Signals | 0) => void;
  /** Whether group `pgid` still has a live (non-zombie) member. */
  readonly groupAlive?: (pgid: number) => boolean;
  /** Windows: ends the tree rooted at `pid` (`taskkill /T /F /PID pid`). */
  readonly taskkill?: (pid: number) => Promise<void>;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function exited(child: KillableChild): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves when `child` has exited, or after `ms`, or when `cut` settles; says whether it exited. */
function waitForChildExit(child: KillableChild, ms: number, cut?: Promise<void>): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const giveUp = () => {
      clearTimeout(timer);
      child.removeListener('exit', onExit);
      resolve(exited(child));
    };
    const timer = setTimeout(giveUp, ms);
    child.once('exit', onExit);
    void cut?.then(giveUp);
  });
}

function defaultSignalGroup(pgid: number, signal: NodeJS.Signals | 0): void {
  process.kill(-pgid, signal);
}

/**
 * Whether any process of group `pgid` is still running. `kill(-pgid, 0)` alone
 * is not enough: an orphaned grandchild that already died stays a zombie until
 * its new parent reaps it — forever when PID 1 does not reap (containers) — and
 * a zombie still "exists" for kill(2). On Linux /proc tells zombies apart.
 */
export function defaultGroupAlive(pgid: number, signalGroup = defaultSignalGroup): boolean {
  try {
    signalGroup(pgid, 0);
  } catch (error) {
    // EPERM: a member we may not signal (it changed user) — it exists, but we cannot end it either.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const processes = procStats();
  if (!processes) return true;
  for (const p of processes) if (p.pgrp === pgid && p.state !== 'Z' && p.state !== 'X') return true;
  return false;
}

/** Polls until group `pgid` has no live member, or `ms` passed; says whether it emptied. */
async function waitForGroupGone(
  pgid: number,
  ms: number,
  groupAlive: (pgid: number) => boolean,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
  return true;
}

function defaultTaskkill(pid: number): Promise<void> {
  return new Promise((resolve) => {
    // Errors mean the tree is already gone (exit code 128): nothing left to do.
    execFile('taskkill', ['/T', '/F', '/PID', String(pid)], { windowsHide: true }, () => resolve());
  });
}

/**
 * Ends `child` and its whole process tree, politely first: close stdin and
 * wait `closeGraceMs`; then SIGTERM to the process group and wait
 * `killGraceMs`; then SIGKILL to the group. Group signals are sent even when
 * the child itself has already exited, so grandchildren still in its group
 * are ended too. Resolves once the child has exited and its group is empty
 * (or, for a member that cannot be killed, after the grace periods).
 *
 * On Windows there are no groups or SIGTERM: after the stdin grace,
 * `taskkill /T /F` ends the tree.
 *
 * POSIX limits: a descendant that moved to a process group of its own
 * (`setsid`, a daemonizing server) is outside the group and not reached.
 */
export async function killTree(child: KillableChild, options: KillTreeOptions = {}): Promise<void> {
  const platform = options.platform ?? process.platform;
  const closeGraceMs = options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const pid = child.pid;
  if (pid === undefined) return; // never spawned

  if (!exited(child)) {
    try {
      child.stdin?.end();
    } catch {
      // stdin already broken: go straight to signals
    }
    await waitForChildExit(child, closeGraceMs, options.closeGraceEnds);
  }

  if (platform === 'win32') {
    if (exited(child)) return;
    await (options.taskkill ?? defaultTaskkill)(pid);
    await waitForChildExit(child, killGraceMs);
    return;
  }

  const signalGroup = options.signalGroup ?? defaultSignalGroup;
  const groupAlive = options.groupAlive ?? ((pgid: number) => defaultGroupAlive(pgid, signalGroup));
  const send = (signal: NodeJS.Signals) => {
    try {
      signalGroup(pid, signal);
    } catch {
      // ESRCH: the group emptied meanwhile
    }
  };

  if (!groupAlive(pid) && exited(child)) return;
  send('SIGTERM');
  const [childGone, groupGone] = await Promise.all([
    waitForChildExit(child, killGraceMs),
    waitForGroupGone(pid, killGraceMs, groupAlive),
  ]);
  if (childGone && groupGone) return;

  send('SIGKILL');
  if (!exited(child)) {
    // The child may have left its group (it called setsid): signal it directly as well.
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  // SIGKILL cannot be ignored; the waits only cover the moment before the kernel acts
  // (or a process stuck in uninterruptible I/O, which we cannot help).
  await Promise.all([waitForChildExit(child, killGraceMs), waitForGroupGone(pid, killGraceMs, groupAlive)]);
}
