import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** A process as it was when recorded: a reused pid has another start time. */
export interface ProcessIdentity {
  readonly pid: number;
  /** Field 22 of `/proc/<pid>/stat` (clock ticks after boot); empty where there is no /proc. */
  readonly start: string;
}

/** The start time of a running process, or undefined when no process has that pid. */
export async function processStart(pid: number): Promise<string | undefined> {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': split after the last one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Field 3 (state) is fields[0], so field 22 is fields[19]. A zombie is not alive.
  if (fields[0] === 'Z') return undefined;
  return fields[19];
}

/** The identity of a running process (the caller's own pid, typically). */
export async function identify(pid: number): Promise<ProcessIdentity> {
  return { pid, start: (await processStart(pid)) ?? '' };
}

/** True while the recorded process still runs: same pid and same start time. */
export async function isAlive(identity: ProcessIdentity): Promise<boolean> {
  const start = await processStart(identity.pid);
  return start !== undefined && start === identity.start;
}

/** Parse a pid or lock file's JSON; undefined when it is not one. */
export function parseIdentity(
  text: string | undefined,
): (ProcessIdentity & Record<string, unknown>) | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (typeof value.pid === 'number' && typeof value.start === 'string')
      return value as ProcessIdentity & Record<string, unknown>;
  } catch {}
  return undefined;
}

/**
 * Whether the recorded process still runs, where `/proc` may be missing: the
 * same as `isAlive` where there is one; elsewhere (macOS) whether a process of
 * that pid exists. For a lock's holder, where wrongly counting a live one as
 * dead would let two writers in (`isAlive` alone counts every process as dead
 * without `/proc`, which suits the daemon's pid file, where a listening socket
 * settles it).
 */
export async function stillRuns(identity: ProcessIdentity): Promise<boolean> {
  if (hasProc) return isAlive(identity);
  try {
    process.kill(identity.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const hasProc = (() => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();
