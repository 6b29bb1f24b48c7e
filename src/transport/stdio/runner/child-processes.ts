/**
 * Whether a process has started a process of its own yet: a package runner
 * starts the package's program as a child once the package is installed.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { procStats } from '../proc-stats.js';

function linuxHasChild(pid: number): boolean | undefined {
  try {
    // Linux 3.5+: the children of the main thread, without scanning every process.
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim() !== '';
  } catch {
    // Kernels without CONFIG_PROC_CHILDREN: scan /proc for a parent id of pid.
  }
  const processes = procStats();
  if (!processes) return undefined;
  for (const p of processes) if (p.ppid === pid) return true;
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
