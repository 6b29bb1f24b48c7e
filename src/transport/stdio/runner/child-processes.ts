/**
 * Whether a process has started a process of its own yet: a package runner
 * starts the package's program as a child once the package is installed.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

function linuxHasChild(pid: number): boolean | undefined {
  try {
    // Linux 3.5+: the children of the main thread, without scanning every process.
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim() !== '';
  } catch {
    // Kernels without CONFIG_PROC_CHILDREN: scan /proc for a parent id of pid.
  }
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      // Fields after the parenthesised command: state ppid …
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ', 2)[1]) === pid) return true;
    } catch {
      // the process ended meanwhile
    }
  }
  return false;
}

/**
 * Whether `pid` has a child process. `undefined` where mcpx cannot see
 * processes (Windows), so the caller falls back to what it can see.
 */
export function hasChildProcess(
  pid: number,
  platform: NodeJS.Platform = process.platform,
): Promise<boolean | undefined> {
  if (platform === 'linux') return Promise.resolve(linuxHasChild(pid));
  if (platform === 'win32') return Promise.resolve(undefined);
  return new Promise((resolve) => {
    // macOS and the BSDs: pgrep exits 0 when it found one, 1 when none.
    execFile('pgrep', ['-P', String(pid)], (error) => {
      if (!error) resolve(true);
      else resolve((error as { code?: unknown }).code === 1 ? false : undefined);
    });
  });
}
