/**
 * The processes above this one — parent, grandparent, … — with their command lines. A loop of
 * mcpx starting itself through a wrapper that clears the environment (`env -i wrapper.sh`)
 * loses `MCPX_SERVER_CHAIN`, but not its ancestry: a process cannot choose its parents, and
 * `env -i`, `sh -c`, `exec` and `setsid` keep them. Linux reads `/proc` (a few small files per
 * ancestor, well under a millisecond); other POSIX systems ask `ps` once; Windows is not read.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';

/** One process above this one. */
export interface AncestorProcess {
  readonly pid: number;
  /** Its command line, one element per argument (split at blanks where only `ps` could be asked). */
  readonly argv: readonly string[];
  /** Its working folder, where it can be read (Linux, a process of the same user). */
  readonly cwd?: string;
}

/** Options of {@link processAncestry}. */
export interface AncestryOptions {
  /** Whose ancestors (default: this process). */
  readonly pid?: number;
  /** Default: `process.platform`. */
  readonly platform?: NodeJS.Platform;
  /** Where the process table comes from (default: `proc` on Linux, `ps` elsewhere but Windows). */
  readonly source?: 'proc' | 'ps';
  /** At most this many ancestors (default 64: a loop of pids cannot keep the walk going). */
  readonly limit?: number;
}

/**
 * `pid`'s ancestors, nearest first, up to (not including) the kernel; `undefined` where they
 * cannot be read (Windows, no `/proc` and no `ps`). A process that ends during the walk ends it.
 *
 * @example processAncestry()?.map((p) => p.argv[0]) // ['node', 'bash', 'sshd', …, '/sbin/init']
 */
export function processAncestry(options: AncestryOptions = {}): AncestorProcess[] | undefined {
  const platform = options.platform ?? process.platform;
  const source = options.source ?? (platform === 'linux' ? 'proc' : platform === 'win32' ? undefined : 'ps');
  const pid = options.pid ?? process.pid;
  const limit = options.limit ?? 64;
  if (source === 'proc') return fromProc(pid, limit);
  if (source === 'ps') return fromPs(pid, limit);
  return undefined;
}

function fromProc(pid: number, limit: number): AncestorProcess[] | undefined {
  let parent = procParent(pid);
  if (parent === undefined) return undefined;
  const found: AncestorProcess[] = [];
  while (parent > 0 && found.length < limit) {
    const current: number = parent;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${current}/cmdline`, 'utf8').split('\0');
    } catch {
      break;
    }
    // Arguments end with a NUL each; a process that set its title may leave several.
    while (argv.length > 0 && argv[argv.length - 1] === '') argv.pop();
    const cwd = readLink(`/proc/${current}/cwd`);
    found.push({ pid: current, argv, ...(cwd === undefined ? {} : { cwd }) });
    parent = procParent(current);
    if (parent === undefined) break;
  }
  return found;
}

/** The parent's pid from `/proc/<pid>/stat` (after the command in parentheses, which may hold any). */
function procParent(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ', 2)[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

function fromPs(pid: number, limit: number): AncestorProcess[] | undefined {
  let table: string;
  try {
    table = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,args='], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch {
    return undefined;
  }
  return ancestorsInTable(parsePsTable(table), pid, limit);
}

/** One row of `ps -A -o pid=,ppid=,args=`. */
export interface PsRow {
  readonly pid: number;
  readonly ppid: number;
  readonly args: string;
}

/** The rows of `ps -A -o pid=,ppid=,args=` output. */
export function parsePsTable(text: string): PsRow[] {
  const rows: PsRow[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s?(.*)$/.exec(line);
    if (match)
      rows.push({ pid: Number(match[1]), ppid: Number(match[2]), args: (match[3] as string).trim() });
  }
  return rows;
}

/** `pid`'s ancestors in a process table, nearest first. */
export function ancestorsInTable(
  rows: readonly PsRow[],
  pid: number,
  limit = 64,
): AncestorProcess[] | undefined {
  const byPid = new Map(rows.map((row) => [row.pid, row]));
  const self = byPid.get(pid);
  if (!self) return undefined;
  const found: AncestorProcess[] = [];
  for (
    let row = byPid.get(self.ppid);
    row && row.pid > 0 && found.length < limit;
    row = byPid.get(row.ppid)
  ) {
    found.push({ pid: row.pid, argv: row.args.split(/\s+/).filter(Boolean) });
    if (row.ppid === row.pid) break;
  }
  return found;
}

/** Variables a shell or mcpx changes at each level of a loop, left out of the comparison. */
const LEVEL_VARIABLES = /^(MCPX_SERVER_CHAIN|SHLVL|_)=/;

/**
 * Whether two processes were started alike — the same command line, working folder and
 * environment (but for {@link LEVEL_VARIABLES}) — as far as `/proc` shows (Linux; elsewhere
 * `false`). An mcpx started exactly as an mcpx above it was reads the same config and does the
 * same, so it starts itself again: the loop a wrapper script hides.
 */
export function startedAlike(a: number, b: number): boolean {
  const read = (pid: number) => {
    try {
      return {
        cmdline: readFileSync(`/proc/${pid}/cmdline`, 'latin1'),
        cwd: readlinkSync(`/proc/${pid}/cwd`),
        environ: readFileSync(`/proc/${pid}/environ`, 'latin1')
          .split('\0')
          .filter((entry) => entry !== '' && !LEVEL_VARIABLES.test(entry))
          .sort()
          .join('\0'),
      };
    } catch {
      return undefined;
    }
  };
  const first = read(a);
  const second = first && read(b);
  return (
    first !== undefined &&
    second !== undefined &&
    first.cmdline === second.cmdline &&
    first.cwd === second.cwd &&
    first.environ === second.environ
  );
}
