import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ancestorsInTable,
  parsePsTable,
  processAncestry,
  startedAlike,
} from '../../../src/transport/stdio/process-ancestry.js';
import { procAvailable } from '../../helpers/processes.js';

const children: ChildProcess[] = [];
/** Grandchildren (a shell's sleep): killing the shell leaves them running. */
const grandchildren: number[] = [];
afterEach(async () => {
  for (const pid of grandchildren.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await Promise.all(
    children.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
});

/** A `sleep` under `sh -c` (which stays, as it has more to run after it), and the sleep's pid. */
async function sleeperUnderShell(): Promise<number> {
  const shell = spawn('sh', ['-c', 'sleep 30; :'], { stdio: 'ignore' });
  children.push(shell);
  for (let i = 0; i < 200; i++) {
    const [sleeper] = childrenOf(shell.pid as number);
    if (sleeper !== undefined) {
      grandchildren.push(sleeper);
      return sleeper;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('sleep never started');
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function sleeper(env: Record<string, string>, cwd = tmpdir()): number {
  const child = spawn('sleep', ['30'], { stdio: 'ignore', env, cwd });
  children.push(child);
  return child.pid as number;
}

describe.runIf(procAvailable)('processAncestry', () => {
  it('walks /proc from the parent up: each ancestor with its command line and folder', async () => {
    const pid = await sleeperUnderShell();
    const ancestors = processAncestry({ pid }) ?? [];
    expect(ancestors[0]).toMatchObject({ argv: ['sh', '-c', 'sleep 30; :'] });
    expect(ancestors[1]).toMatchObject({ pid: process.pid, cwd: process.cwd() });
    // Node's own options (execArgv) sit between the executable and the script.
    expect(ancestors[1]?.argv.slice(-(process.argv.length - 1))).toEqual(process.argv.slice(1));
    expect(ancestors.map((a) => a.pid)).toContain(process.ppid);
    expect(ancestors.every((a) => a.pid > 0)).toBe(true);
    // Its own ancestry starts at its parent.
    expect(processAncestry()?.[0]?.pid).toBe(process.ppid);
  });

  it('reads the same chain from ps, where /proc is not to be had', async () => {
    const pid = await sleeperUnderShell();
    const ancestors = processAncestry({ pid, source: 'ps' }) ?? [];
    expect(ancestors[0]?.argv).toEqual(['sh', '-c', 'sleep', '30;', ':']);
    expect(ancestors[1]?.pid).toBe(process.pid);
  });

  it('stops at its limit, and knows nothing of a process that is gone', () => {
    expect(processAncestry({ limit: 1 })).toHaveLength(1);
    expect(processAncestry({ pid: 2 ** 22 + 12345 })).toBeUndefined();
  });
});

describe('processAncestry on Windows', () => {
  it('is not read', () => {
    expect(processAncestry({ platform: 'win32' })).toBeUndefined();
  });
});

describe('ancestorsInTable', () => {
  const table = parsePsTable(
    [
      '  PID  PPID ARGS',
      '    1     0 /sbin/init',
      '   10     1 sshd: u',
      '   20    10 -bash',
      '   30    20 node /x/mcpx.cjs serve',
      '   40    30 sleep 1',
      '',
    ].join('\n'),
  );

  it('reads ps rows and walks them, nearest first', () => {
    expect(table).toHaveLength(5);
    expect(ancestorsInTable(table, 40)?.map((a) => a.pid)).toEqual([30, 20, 10, 1]);
    expect(ancestorsInTable(table, 40)?.[0]?.argv).toEqual(['node', '/x/mcpx.cjs', 'serve']);
    expect(ancestorsInTable(table, 99)).toBeUndefined();
  });

  it('ends on a table whose parents go round in a circle', () => {
    const circle = parsePsTable('5 6 a\n6 5 b\n7 5 c');
    expect(ancestorsInTable(circle, 7, 10)).toHaveLength(10);
  });
});

describe.runIf(procAvailable)('startedAlike', () => {
  it('compares command line, folder and environment, but not the variables a level changes', () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nowhere' };
    const first = sleeper({ ...env, SHLVL: '1', MCPX_SERVER_CHAIN: 'a' });
    const twin = sleeper({ ...env, SHLVL: '2' });
    const otherEnv = sleeper({ ...env, LEVEL: '2' });
    const otherCwd = sleeper(env, '/');
    expect(startedAlike(first, twin)).toBe(true);
    expect(startedAlike(first, otherEnv)).toBe(false);
    expect(startedAlike(first, otherCwd)).toBe(false);
    expect(startedAlike(first, process.pid)).toBe(false);
    expect(startedAlike(first, 2 ** 22 + 12345)).toBe(false);
  });
});
