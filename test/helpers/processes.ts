/**
 * Process-tree inspection from /proc (Linux) and the process-leak guard every test runs under
 * (registered in setup.ts). Elsewhere /proc is absent and the guard does nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** One process as /proc/<pid>/stat describes it. */
export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** One-letter state; `Z` (zombie) and `X` (dead) count as exited. */
  readonly state: string;
  /** Start time in clock ticks since boot: with the pid, identifies a process across pid reuse. */
  readonly startTime: number;
  readonly command: string;
}

/** Whether this platform has a /proc to read. */
export const procAvailable = existsSync('/proc/self/stat');

/** Reads one process; `undefined` once it has gone. */
export function readProcess(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command sits in parentheses and may itself contain spaces and ')'.
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return {
    pid,
    command: stat.slice(open + 1, close),
    state: fields[0] ?? '?',
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: Number(fields[19]),
  };
}

/** A process's command line (`/proc/<pid>/cmdline`); `undefined` once it has gone. */
export function readCommandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

/** Whether `pid` is an mcpx orphan watchdog (src/transport/stdio/orphan-watchdog.ts), not a server. */
export function isOrphanWatchdog(pid: number): boolean {
  return readCommandLine(pid)?.[3] === 'mcpx-watchdog';
}

/** Every process visible in /proc. */
export function listProcesses(): ProcessInfo[] {
  if (!procAvailable) return [];
  const all: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info) all.push(info);
  }
  return all;
}

function running(info: ProcessInfo | undefined): info is ProcessInfo {
  return info !== undefined && info.state !== 'Z' && info.state !== 'X';
}

/** Whether `pid` is a live process (zombies, already dead but unreaped, are not). */
export function isAlive(pid: number): boolean {
  if (procAvailable) return running(readProcess(pid));
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pids of every live descendant of `rootPid` (children, grandchildren, …), not `rootPid` itself. */
export function descendantPids(
  rootPid: number,
  processes: readonly ProcessInfo[] = listProcesses(),
): number[] {
  const children = new Map<number, number[]>();
  for (const p of processes) {
    if (!running(p)) continue;
    const siblings = children.get(p.ppid);
    if (siblings) siblings.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const found: number[] = [];
  const queue = [rootPid];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The pids of every live process in process group `pgid`. */
export function processGroupPids(
  pgid: number,
  processes: readonly ProcessInfo[] = listProcesses(),
): number[] {
  return processes.filter((p) => running(p) && p.pgid === pgid).map((p) => p.pid);
}

/** Polls until `pid` has exited; resolves whether it did within `ms`. */
export async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** A process tree watched over time, so a grandchild orphaned by its parent's death is still known. */
export interface ProcessTreeTracker {
  /** Samples the tree now; called by the tracker's own timer too. */
  sample(): void;
  /** Every process ever seen in the tree (excluding those present at start) that is still alive. */
  alive(): ProcessInfo[];
  /** Every process ever seen in the tree (excluding those present at start), alive or not. */
  seen(): ProcessInfo[];
  /** Stops sampling. */
  stop(): void;
}

const key = (p: ProcessInfo) => `${p.pid}@${p.startTime}`;

/**
 * Watches `rootPid`'s descendants, sampling every `intervalMs`. Also follows process groups: a
 * server spawned in its own group (detached) keeps its group id after it dies, so its orphaned
 * children are still found. Processes already present when tracking starts are ignored.
 */
export function trackProcessTree(rootPid: number, intervalMs = 50): ProcessTreeTracker {
  const ownGroup = readProcess(rootPid)?.pgid;
  const baseline = new Set(
    procAvailable
      ? descendantPids(rootPid)
          .map((pid) => readProcess(pid))
          .filter(running)
          .map(key)
      : [],
  );
  const seen = new Map<string, ProcessInfo>();
  const groups = new Set<number>();

  function sample() {
    if (!procAvailable) return;
    const processes = listProcesses();
    const byPid = new Map(processes.map((p) => [p.pid, p]));
    for (const pid of descendantPids(rootPid, processes)) {
      const info = byPid.get(pid);
      if (!info || baseline.has(key(info))) continue;
      seen.set(key(info), info);
      if (info.pgid !== ownGroup) groups.add(info.pgid);
    }
    for (const info of processes) {
      if (running(info) && groups.has(info.pgid) && !baseline.has(key(info))) seen.set(key(info), info);
    }
  }

  const timer = setInterval(sample, intervalMs);
  timer.unref();
  sample();
  return {
    sample,
    alive() {
      sample();
      return [...seen.values()].filter((p) => {
        const now = readProcess(p.pid);
        return running(now) && now.startTime === p.startTime;
      });
    },
    seen: () => [...seen.values()],
    stop: () => clearInterval(timer),
  };
}

/** Options for {@link assertNoLeakedProcesses}. */
export interface LeakCheckOptions {
  /** How long spawned processes get to exit before they count as leaked. */
  readonly graceMs?: number;
}

/**
 * Fails when any process `tracker` saw is still alive after the grace period; the leaked ones are
 * SIGKILLed first so later tests start clean.
 */
export async function assertNoLeakedProcesses(tracker: ProcessTreeTracker, options: LeakCheckOptions = {}) {
  const deadline = Date.now() + (options.graceMs ?? 2000);
  let leaked = tracker.alive();
  while (leaked.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    leaked = tracker.alive();
  }
  if (leaked.length === 0) return;
  for (const p of leaked) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const list = leaked.map((p) => `${p.pid} (${p.command}, parent ${p.ppid})`).join(', ');
  throw new Error(`test leaked ${leaked.length} process(es), now killed: ${list}`);
}

/** Running mcpx daemons (`mcpx daemon run`) whose environment names this `MCPX_HOME`, found in /proc. */
export function daemonPids(mcpxHome: string): number[] {
  const marker = `MCPX_HOME=${mcpxHome}`;
  const daemons = listProcesses()
    .filter((p) => p.state !== 'Z')
    .filter((p) => {
      try {
        const cmdline = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0');
        if (!(cmdline.includes('daemon') && cmdline.includes('run'))) return false;
        return readFileSync(`/proc/${p.pid}/environ`, 'utf8').split('\0').includes(marker);
      } catch {
        return false;
      }
    });
  // A daemon's child caught between fork and exec still shows the daemon's command line and
  // environment: it is the daemon's, not a second daemon.
  const pids = new Set(daemons.map((p) => p.pid));
  return daemons.filter((p) => !pids.has(p.ppid)).map((p) => p.pid);
}

/**
 * Running consoles of a call's link (`mcpx console --for-call`, started detached by `mcpx call`
 * or the shell for a tool with an MCP App) whose environment names this `MCPX_HOME`, found in /proc.
 */
export function linkConsolePids(mcpxHome: string): number[] {
  const marker = `MCPX_HOME=${mcpxHome}`;
  const consoles = listProcesses()
    .filter((p) => p.state !== 'Z')
    .filter((p) => {
      try {
        const cmdline = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0');
        if (!(cmdline.includes('console') && cmdline.includes('--for-call'))) return false;
        return readFileSync(`/proc/${p.pid}/environ`, 'utf8').split('\0').includes(marker);
      } catch {
        return false;
      }
    });
  // A console's child caught between fork and exec (its server, a watchdog) still shows the
  // console's command line and environment: it is the console's, not a second console.
  const pids = new Set(consoles.map((p) => p.pid));
  return consoles.filter((p) => !pids.has(p.ppid)).map((p) => p.pid);
}
