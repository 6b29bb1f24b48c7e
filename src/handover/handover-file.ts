import { readFile } from 'node:fs/promises';
import { createHomeFiles } from '../home/index.js';

/** The folder under the mcpx home that holds one private folder per running `mcpx exec`. */
export const RUN_FOLDER = 'run';

/** Which process a hand-over folder belongs to: its pid and, on Linux, its start time (against pid reuse). */
export interface ProcessIdentity {
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot), or `0` where there is no /proc. */
  readonly start: string;
}

/** A config file handed to another program, private to this process and removed by `remove()`. */
export interface HandoverFile {
  /** The file's absolute path (0600). */
  readonly file: string;
  /** Its folder (0700), named `exec-<pid>-<start>`. */
  readonly folder: string;
  /** Delete the folder and the file; safe to call more than once. */
  remove(): Promise<void>;
}

/**
 * Write `content` to `<home>/run/exec-<pid>-<start>/<name>`, the folder 0700
 * and the file 0600 (through `home/`, links refused). The file may hold
 * resolved secrets, so it lives only as long as the process that reads it;
 * `removeStaleHandovers` deletes what a killed mcpx left behind.
 *
 * @example
 * const handover = await writeHandoverFile(home, owner, 'mcp-config.json', text);
 * try { await runChild(handover.file); } finally { await handover.remove(); }
 */
export async function writeHandoverFile(
  home: string,
  owner: ProcessIdentity,
  name: string,
  content: string,
): Promise<HandoverFile> {
  const files = createHomeFiles(home);
  const relative = `${RUN_FOLDER}/${folderName(owner)}`;
  await files.writeText(`${relative}/${name}`, content);
  let removed: Promise<unknown> | undefined;
  return {
    file: files.path(`${relative}/${name}`),
    folder: files.path(relative),
    remove: async () => {
      removed ??= files.removeTree(relative);
      await removed;
    },
  };
}

/**
 * Delete the hand-over folders of processes that are gone (an mcpx killed
 * with -9 never ran its cleanup): one readdir of the run folder, then for
 * each `exec-<pid>-<start>` folder whether that pid is alive and, where the
 * start time is known, still the same process. Resolves the names removed.
 */
export async function removeStaleHandovers(
  home: string,
  isAlive: (pid: number) => boolean,
): Promise<string[]> {
  const files = createHomeFiles(home);
  const removed: string[] = [];
  for (const name of await files.list(RUN_FOLDER)) {
    const match = /^exec-(\d+)-(\d+)$/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    const start = match[2] ?? '0';
    const same = isAlive(pid) && (start === '0' || (await processStartTime(pid)) === start);
    if (same) continue;
    if (await files.removeTree(`${RUN_FOLDER}/${name}`)) removed.push(name);
  }
  return removed;
}

/** The identity of process `pid`: its start time from /proc on Linux, `0` elsewhere. */
export async function processIdentity(pid: number): Promise<ProcessIdentity> {
  return { pid, start: (await processStartTime(pid)) ?? '0' };
}

async function processStartTime(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or ')': count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

function folderName(owner: ProcessIdentity): string {
  return `exec-${owner.pid}-${owner.start}`;
}
