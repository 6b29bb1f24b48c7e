/**
 * A package runner's install, watched from outside: mcpx tells "installing"
 * from "running" with npm's own rules (see npx-folder.ts) and the runner's
 * process tree, gives the install a budget of its own, and never ends the
 * runner while it installs — a stop waits for the install to finish, and
 * only a forced stop (a second Ctrl-C) or a spent budget ends it, removing
 * the unfinished folder so the next start installs afresh.
 */

import { statSync } from 'node:fs';
import { ErrorCode, McpxError } from '../../../errors/index.js';
import { clearMark, markInstaller, recoverAbandonedInstall } from './abandoned-install.js';
import { hasChildProcess } from './child-processes.js';
import {
  lockPath,
  NPM_LOCK_STALE_MS,
  type NpxFolderState,
  npxFolderState,
  removeNpxFolder,
} from './npx-folder.js';
import type { PackageRunnerName, PackageRunnerStart } from './recognise-runner.js';

/** How long a package runner's first install may take, unless the server's `install_timeout` says otherwise. */
export const DEFAULT_INSTALL_TIMEOUT_MS = 5 * 60_000;

/** How often an install is looked at: cheap reads of /proc on Linux, a `pgrep` elsewhere. */
const pollMs = (platform: NodeJS.Platform) => (platform === 'linux' ? 200 : 500);
/** Without a view of processes (Windows): a folder that stays absent or partial this long is not being installed into. */
const BLIND_SETTLE_MS = 15_000;
/** Said as "installing" only past this (a warm start that took a moment is not an install). */
const QUIET_MS = 1_000;

/** What a package runner's install is doing, for a host to show ("installing @x/y…"). */
export interface PackageInstallEvent {
  readonly server: string;
  readonly runner: PackageRunnerName;
  readonly packages: readonly string[];
  /**
   * - `installing`: the runner is installing; the connect timeout waits for it
   * - `installed`: done after `elapsedMs`; the server itself starts now
   * - `waiting`: mcpx is stopping, and lets the install finish first
   * - `rolled-back`: the install was ended before it finished and its folder removed
   */
  readonly phase: 'installing' | 'installed' | 'waiting' | 'rolled-back';
  /** The folder the runner installs into, when mcpx knows it (npx: `<cache>/_npx/<hash>`). */
  readonly folder?: string;
  readonly elapsedMs?: number;
}

/** Options of {@link PackageInstallWatch}. */
export interface PackageInstallWatchOptions {
  readonly serverName: string;
  readonly start: PackageRunnerStart;
  /** npx's folder for this package; without it the install cannot be watched. */
  readonly folder: string | undefined;
  readonly budgetMs: number;
  readonly platform: NodeJS.Platform;
  readonly onEvent?: ((event: PackageInstallEvent) => void) | undefined;
}

/** The spawned runner, as the watch sees it. */
export interface WatchedProcess {
  readonly pid: number | undefined;
  exited(): boolean;
}

// Every watch whose runner is alive, for a forced exit (rollBackInstallsNow).
const live = new Set<PackageInstallWatch>();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Blocks the thread for `ms` (only on the forced-exit path, where nothing else may run). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function lockMtime(folder: string): number | undefined {
  try {
    return statSync(lockPath(folder)).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * One runner's install. Created at spawn (`watch.spawned(process)`); the
 * transport asks it `untilRunning()` before the handshake, `beforeKill()`
 * before ending the tree and `afterKill()` once the tree is gone.
 */
export class PackageInstallWatch {
  readonly #options: PackageInstallWatchOptions;
  #process: WatchedProcess | undefined;
  #before: NpxFolderState = 'absent';
  #spawnedAt = 0;
  /** The folder was seen locked while our runner lived: it was being written. */
  #sawLocked = false;
  /** The folder's lock was held when the runner was ended: its tree may be half rewritten. */
  #lockedAtKill = false;
  #announced = false;
  /** What a stop does: wait for the install, or (budget spent, forced) end it and roll back. */
  #onStop: 'wait' | 'roll-back' = 'wait';
  /** The mark saying this runner installs into the folder (`abandoned-install.ts`), while it does. */
  #mark: Promise<string | undefined> | undefined;

  constructor(options: PackageInstallWatchOptions) {
    this.#options = options;
  }

  /** The runner's folder, if mcpx knows it. */
  get folder(): string | undefined {
    return this.#options.folder;
  }

  /**
   * Before the runner is spawned: an install into its folder that a killed
   * mcpx left under npm's lock is rolled back now, instead of npx waiting 60 s
   * for that lock to go stale (`abandoned-install.ts`).
   */
  async beforeSpawn(): Promise<void> {
    const { folder } = this.#options;
    if (folder && (await recoverAbandonedInstall(folder))) this.#emit('rolled-back');
  }

  /** Call once the runner is spawned. */
  spawned(process: WatchedProcess): void {
    this.#process = process;
    this.#spawnedAt = Date.now();
    const { folder } = this.#options;
    if (folder) this.#before = npxFolderState(folder);
    if (folder && this.#before !== 'complete' && process.pid !== undefined)
      this.#mark = markInstaller(folder, process.pid);
    live.add(this);
  }

  /** Whether the runner is installing right now (never true once it runs the server, or for a runner not watched). */
  async installing(): Promise<boolean> {
    const { folder, platform } = this.#options;
    const process = this.#process;
    if (!folder || !process || process.exited()) return false;
    const state = npxFolderState(folder);
    if (state === 'locked') {
      this.#sawLocked = true;
      return true;
    }
    if (state === 'complete') return false;
    // Absent or partial: npx is still asking the registry what to install — or it skipped its
    // cache (a local or global bin) or took a damaged folder for finished, and started the program.
    const pid = process.pid;
    const child = pid === undefined ? undefined : await hasChildProcess(pid, platform);
    if (child !== undefined) return !child;
    return Date.now() - this.#spawnedAt < BLIND_SETTLE_MS;
  }

  /**
   * Before the handshake: resolves once the runner runs the server (or it
   * exited: the connect reports how). Rejects with Cancelled on `signal`, and
   * with PackageInstallTimeout when the install budget is spent — then a stop
   * rolls the install back instead of waiting for it.
   */
  async untilRunning(signal?: AbortSignal): Promise<void> {
    if (!this.#options.folder || this.#before === 'complete') return; // a warm start costs nothing
    const started = Date.now();
    while (await this.installing()) {
      const elapsedMs = Date.now() - started;
      if (!this.#announced && (this.#sawLocked || elapsedMs >= QUIET_MS)) this.#announce('installing');
      if (signal?.aborted) throw this.#cancelled();
      if (elapsedMs >= this.#options.budgetMs) {
        this.#onStop = 'roll-back';
        throw this.#timeout();
      }
      await sleep(pollMs(this.#options.platform));
    }
    if (this.#announced) this.#emit('installed', Date.now() - started);
    if (this.#options.folder && npxFolderState(this.#options.folder) === 'complete')
      await clearMark(await this.#mark);
  }

  /**
   * A stop is about to end the runner's tree: while it installs, wait for the
   * install to finish (at most the install budget; a second Ctrl-C ends the process through
   * {@link rollBackInstallsNow} meanwhile).
   */
  async beforeKill(): Promise<void> {
    if (this.#onStop === 'wait' && (await this.installing())) {
      this.#emit('waiting');
      const started = Date.now();
      while (await this.installing()) {
        if (Date.now() - started >= this.#options.budgetMs) {
          this.#onStop = 'roll-back';
          break;
        }
        await sleep(pollMs(this.#options.platform));
      }
    }
    if (this.#options.folder) this.#lockedAtKill = npxFolderState(this.#options.folder) === 'locked';
  }

  /** The runner's tree is gone: remove an install it left unfinished, if it was ours to roll back. */
  async afterKill(): Promise<void> {
    live.delete(this);
    await clearMark(await this.#mark);
    if (this.#onStop !== 'roll-back') return;
    const folder = this.#options.folder;
    if (!folder || !this.#unfinished(folder)) return;
    // Another npm process holding the lock is installing into it: its install, not ours.
    const mtime = lockMtime(folder);
    if (mtime !== undefined && Date.now() - mtime <= NPM_LOCK_STALE_MS) {
      await sleep(1_500);
      if (lockMtime(folder) !== mtime) return;
    }
    removeNpxFolder(folder);
    this.#emit('rolled-back');
  }

  /**
   * The forced exit's first step (synchronous: the process is about to exit):
   * ends a runner still installing, and returns its folder if that may need
   * removing (see {@link rollBackInstallsNow}).
   */
  stopNow(): string | undefined {
    live.delete(this);
    const folder = this.#options.folder;
    const pid = this.#process?.pid;
    if (!folder || pid === undefined || this.#process?.exited()) return undefined;
    const state = npxFolderState(folder);
    // A runner past its install (the folder is finished) is left to the host's usual shutdown.
    if (state === 'complete' || (state !== 'locked' && this.#before === 'complete')) return undefined;
    this.#lockedAtKill = state === 'locked';
    try {
      process.kill(this.#options.platform === 'win32' ? pid : -pid, 'SIGKILL');
    } catch {
      return undefined; // already gone
    }
    return folder;
  }

  /** The forced exit's last step: whether the stopped runner's folder is an unfinished install. */
  leftUnfinished(folder: string): boolean {
    return this.#unfinished(folder);
  }

  /** An unfinished install: no package.json, or a package.json whose tree was being rewritten when the runner ended. */
  #unfinished(folder: string): boolean {
    const state = npxFolderState(folder, Date.now() + NPM_LOCK_STALE_MS + 1); // a lock left behind is no lock
    if (state === 'absent') return false;
    return state !== 'complete' || this.#lockedAtKill;
  }

  #announce(phase: 'installing'): void {
    this.#announced = true;
    this.#emit(phase);
  }

  #emit(phase: PackageInstallEvent['phase'], elapsedMs?: number): void {
    const { serverName, start, folder, onEvent } = this.#options;
    try {
      onEvent?.({
        server: serverName,
        runner: start.runner,
        packages: start.packages,
        phase,
        ...(folder ? { folder } : {}),
        ...(elapsedMs === undefined ? {} : { elapsedMs }),
      });
    } catch {
      // a host's display failing must not change what happens to the install
    }
  }

  #cancelled(): McpxError {
    return new McpxError(ErrorCode.Cancelled, `starting '${this.#options.serverName}' was cancelled`, {
      server: this.#options.serverName,
    });
  }

  #timeout(): McpxError {
    const { serverName, start, budgetMs, folder } = this.#options;
    const seconds = Math.round(budgetMs / 1000);
    return new McpxError(
      ErrorCode.PackageInstallTimeout,
      `'${serverName}': ${start.runner} was still installing ${start.packages.join(', ')} after ${seconds} s`,
      {
        server: serverName,
        timeoutMs: budgetMs,
        ...(folder ? { folder } : {}),
        causes: ['a slow or unreachable package registry', 'a large package, or one that builds native code'],
        fixes: [
          `raise install_timeout (seconds) for this server in the config (now ${seconds})`,
          `or install it once by hand: ${start.runner} ${start.packages.join(' ')}`,
          'the unfinished install was removed; the next start installs it afresh',
        ],
      },
    );
  }
}

/**
 * A forced exit (a second Ctrl-C) is under way: end every runner that is
 * installing and remove its unfinished folder, synchronously, so no
 * half-written install is left behind. Runners that already run their server
 * are left to the host's usual shutdown.
 */
export function rollBackInstallsNow(): void {
  const stopped: { watch: PackageInstallWatch; folder: string }[] = [];
  for (const watch of [...live]) {
    try {
      const folder = watch.stopNow();
      if (folder) stopped.push({ watch, folder });
    } catch {
      // best effort on the way out
    }
  }
  if (stopped.length === 0) return;
  sleepSync(200); // the kernel ends a killed process at once; its last writes land meanwhile
  // A lock still touched belongs to another npm process installing there: its install, not ours.
  const locks = stopped.map(({ folder }) => lockMtime(folder));
  if (locks.some((mtime) => mtime !== undefined)) sleepSync(1_200);
  stopped.forEach(({ watch, folder }, i) => {
    try {
      if (lockMtime(folder) === locks[i] && watch.leftUnfinished(folder)) removeNpxFolder(folder);
    } catch {
      // best effort on the way out
    }
  });
}
