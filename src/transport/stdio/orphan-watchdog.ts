/**
 * The servers of a process that dies without closing them. A stdio server runs in a
 * process group of its own (so Ctrl-C reaches mcpx alone, and `killTree` ends the whole
 * group), which also means nothing ends it when mcpx is `kill -9`ed, and an outer mcpx
 * ending this one's group never reaches it. The watchdog is one small `/bin/sh` per
 * process, started with the first server and ended with the last: it reads the groups
 * to guard from a pipe, and ends them (SIGTERM, then SIGKILL) when that pipe reaches
 * end of file (this process died) or when it is sent SIGTERM itself (it shares this
 * process's group, so a signal to the group reaches it, as it reached the servers
 * before they had groups of their own). Ctrl-C, hang-up and job-control signals it
 * ignores: those are this process's to handle.
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** Guards process groups for as long as this process lives. */
export interface OrphanWatchdog {
  /** From now on, group `pgid` is ended if this process dies before `release(pgid)`. */
  guard(pgid: number): void;
  /** Group `pgid` was ended (or ended itself): no longer guarded. */
  release(pgid: number): void;
}

/** Options of {@link createOrphanWatchdog}; the defaults are the real ones. */
export interface OrphanWatchdogOptions {
  /** SIGTERM to SIGKILL, in ms (rounded to tenths of a second). Default {@link watchdogGraceMs}(0). */
  readonly graceMs?: number;
  /** Default `/bin/sh`. */
  readonly shell?: string;
  /** Default: `child_process.spawn`. */
  readonly spawn?: typeof spawn;
}

/** The argument by which a watchdog is told apart in `ps` (and by the tests' process helpers). */
export const WATCHDOG_NAME = 'mcpx-watchdog';

// `+ PGID` guards a group, `- PGID` releases it; EOF or SIGTERM ends what is guarded.
// Each wait is a `sleep 0.1` (fractional sleep is not POSIX, but GNU, BSD and busybox take
// it; one that refuses only shortens the grace). A group of zombies still answers `kill -0`
// (PID 1 of a container may never reap them), which costs the grace, never a survivor.
const SCRIPT = `
trap '' INT HUP QUIT TSTP TTIN TTOU
g=' '
end() {
  [ "$g" = ' ' ] && exit 0
  for p in $g; do kill -s TERM -- "-$p" 2>/dev/null; done
  n=0
  while [ "$n" -lt "$1" ]; do
    alive=
    for p in $g; do kill -s 0 -- "-$p" 2>/dev/null && alive=1; done
    [ -z "$alive" ] && exit 0
    sleep 0.1
    n=$((n + 1))
  done
  for p in $g; do kill -s KILL -- "-$p" 2>/dev/null; done
  exit 0
}
trap 'end "$1"' TERM
while read -r op p; do
  case $op in
    +) g="$g$p " ;;
    -) case $g in *" $p "*) g="\${g%%" $p "*} \${g#*" $p "}" ;; esac ;;
  esac
done
end "$1"
`;

/**
 * How long a watchdog gives its groups between SIGTERM and SIGKILL, for an mcpx
 * `depth` servers deep (see `server-chain.ts`). An outer mcpx's `killTree` waits
 * `DEFAULT_KILL_GRACE_MS` (2 s) after its SIGTERM before SIGKILL; the watchdog of the
 * mcpx it ends must be done by then, and so must each one below it: halved per level.
 */
export function watchdogGraceMs(depth: number): number {
  return Math.max(100, 1600 / 2 ** Math.max(0, depth));
}

/**
 * A watchdog over `/bin/sh`, started on the first `guard()` and let go (its pipe ended,
 * so it exits) once nothing is guarded; a later `guard()` starts another. It never keeps
 * this process alive (unref'd), and if it cannot start (no shell) the groups simply go
 * unguarded: the watchdog is a safety net, never a reason to fail a server's start.
 */
export function createOrphanWatchdog(options: OrphanWatchdogOptions = {}): OrphanWatchdog {
  const tenths = String(Math.max(1, Math.round((options.graceMs ?? watchdogGraceMs(0)) / 100)));
  const start = options.spawn ?? spawn;
  const guarded = new Set<number>();
  let child: ChildProcess | undefined;

  const send = (line: string) => {
    try {
      child?.stdin?.write(`${line}\n`);
    } catch {
      // the watchdog is gone; the next guard() starts another
    }
  };

  const launch = (): ChildProcess | undefined => {
    let started: ChildProcess;
    try {
      // Not detached: it must share this process's group (see the module comment).
      started = start(options.shell ?? '/bin/sh', ['-c', SCRIPT, WATCHDOG_NAME, tenths], {
        // PATH for `sleep`; nothing else of this process's environment (its secrets) goes along.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdio: ['pipe', 'ignore', 'ignore'],
        windowsHide: true,
      });
    } catch {
      return undefined;
    }
    // No shell to run: the groups go unguarded, and the next guard() tries again.
    started.on('error', () => {
      if (child === started) child = undefined;
    });
    started.stdin?.on('error', () => {});
    started.once('exit', () => {
      if (child === started) child = undefined;
    });
    started.unref();
    (started.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    return started;
  };

  return {
    guard(pgid) {
      guarded.add(pgid);
      if (!child) {
        child = launch();
        // A watchdog that died (it took a SIGTERM) is replaced with everything still guarded.
        for (const group of guarded) send(`+ ${group}`);
        return;
      }
      send(`+ ${pgid}`);
    },
    release(pgid) {
      if (!guarded.delete(pgid)) return;
      send(`- ${pgid}`);
      if (guarded.size === 0 && child) {
        child.stdin?.end();
        child = undefined;
      }
    },
  };
}

let shared: OrphanWatchdog | undefined;

/**
 * This process's watchdog, shared by every stdio server it starts. Its grace is
 * shorter the deeper this mcpx runs inside other mcpx processes' servers
 * (`MCPX_SERVER_CHAIN`), so each level finishes before the one above gives up on it.
 */
export function processWatchdog(depth: number): OrphanWatchdog {
  shared ??= createOrphanWatchdog({ graceMs: watchdogGraceMs(depth) });
  return shared;
}
