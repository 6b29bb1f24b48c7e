/**
 * An npx install whose npm was killed outright (SIGKILL) leaves its folder's
 * `concurrency.lock` behind, freshly touched: the next npx for that package
 * waits for it to go stale, 60 s (npm's `staleThreshold`), and then runs from
 * the half-written tree. It happens to mcpx's runners when mcpx itself is
 * `kill -9`ed mid-install: the orphan watchdog sends the runner's group
 * SIGTERM, npm's reify finishes the step it is in before it rolls back, and
 * the watchdog's SIGKILL comes first. npm's lock says nothing of its holder,
 * so mcpx leaves a mark of its own beside it — who installs there (pid and
 * start time, `home/liveness.ts`) — and the next start that finds the lock
 * with a dead installer's mark, untouched since, rolls the install back at
 * once: the folder goes, and npx installs afresh.
 */
import { statSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { identify, parseIdentity, stillRuns, withFileLock } from '../../../home/index.js';
import { lockPath, removeNpxFolder } from './npx-folder.js';

/** The mark's name in the folder: `.mcpx-installer-<pid>`, one per runner, so runners at once keep theirs. */
const MARK_PREFIX = '.mcpx-installer-';
/**
 * npm touches a lock it holds every second (to whole seconds): one untouched
 * this long is not held by a running npm, whatever npm's 60 s rule says.
 */
export const ABANDONED_LOCK_MS = 3_000;
const POLL_MS = 200;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Record that the runner `pid` installs into `folder`; resolves with the mark's path (undefined if it could not be written). */
export async function markInstaller(folder: string, pid: number): Promise<string | undefined> {
  const mark = join(folder, `${MARK_PREFIX}${pid}`);
  try {
    const identity = { ...(await identify(pid)), host: hostname() };
    // npm makes the folder itself too (mkdir -p); a mark it finds there is no package to it.
    await mkdir(folder, { recursive: true });
    await writeFile(mark, JSON.stringify(identity));
    return mark;
  } catch {
    return undefined; // without a mark, a killed install is recovered by npm's own rule (60 s)
  }
}

/** Remove a mark once its runner's install is over (finished, or rolled back with its folder). */
export async function clearMark(mark: string | undefined): Promise<void> {
  if (mark) await rm(mark, { force: true }).catch(() => {});
}

/**
 * Before a runner starts: when `folder`'s npm lock was left by an installer
 * mcpx marked and that is dead, and nothing has touched the lock since,
 * remove the folder (the lock, the half-written tree, the marks). Resolves
 * true when it did. Waits at most `ABANDONED_LOCK_MS` for a lock touched just
 * before its holder died, and never removes one a running npm touches.
 * Another mcpx doing the same at the same moment is kept out by the file lock
 * beside the folder.
 */
export async function recoverAbandonedInstall(folder: string): Promise<boolean> {
  // The common case costs one stat: no lock, nothing to recover.
  if (lockMtime(folder) === undefined) return false;
  try {
    return await withFileLock(folder, async () => {
      let seen = lockMtime(folder);
      if (seen === undefined || !(await deadInstallerMarked(folder))) return false;
      while (Date.now() - seen < ABANDONED_LOCK_MS) {
        await sleep(POLL_MS);
        const now = lockMtime(folder);
        // Touched (a running npm holds it) or released: not abandoned.
        if (now !== seen) return false;
        seen = now;
      }
      removeNpxFolder(folder);
      return true;
    });
  } catch {
    return false; // left to npm's own rule
  }
}

/** Whether a mark in the folder names an installer on this machine that no longer runs. */
async function deadInstallerMarked(folder: string): Promise<boolean> {
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(MARK_PREFIX))) {
    const text = await readFile(join(folder, name), 'utf8').catch(() => undefined);
    const identity = parseIdentity(text);
    if (identity && identity.host === hostname() && !(await stillRuns(identity))) return true;
  }
  return false;
}

function lockMtime(folder: string): number | undefined {
  try {
    return statSync(lockPath(folder)).mtimeMs;
  } catch {
    return undefined;
  }
}
