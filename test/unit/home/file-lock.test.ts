/**
 * The one lock every read-modify-write of mcpx's files goes through (`home/file-lock.ts`):
 * a holder killed with `kill -9` is taken over at once, a live one is waited for, a wait
 * that runs out says who holds the file, and no lock file is left behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, isMcpxError } from '../../../src/errors/index.js';
import {
  acquireLock,
  createHomeFiles,
  lockFileOf,
  processStart,
  tryLock,
  withFileLock,
} from '../../../src/home/index.js';
import { repoRoot, tempDir } from '../../helpers/cli.js';

const homeModule = JSON.stringify(join(repoRoot, 'dist/home/index.js'));
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function scratch(): Promise<string> {
  const dir = await tempDir('mcpx-lock-');
  cleanups.push(dir.remove);
  return dir.path;
}

/** A process of its own running `program` (an ES module, with `home` = the built dist/home/index.js). */
function child(program: string): { process: ChildProcess; lines: AsyncIterator<string> } {
  const proc = spawn(
    process.execPath,
    ['--input-type=module', '-e', `const home = await import(${homeModule});\n${program}`],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  cleanups.push(async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await once(proc, 'exit');
    }
  });
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  return { process: proc, lines };
}

async function nextLine(lines: AsyncIterator<string>): Promise<string> {
  const { value, done } = await lines.next();
  if (done) throw new Error('the child ended without a line');
  return value;
}

/** A child that takes the lock beside `file`, says `held`, and keeps it until told `release` on stdin. */
function holder(file: string) {
  return child(`
    const lock = await home.acquireLock(home.lockFileOf(${JSON.stringify(file)}));
    console.log('held');
    process.stdin.once('data', async () => {
      await lock.release();
      console.log('released');
      process.exit(0);
    });
  `);
}

/** The lock record of a holder that died: its pid is gone (its start time matches nothing). */
async function deadHolder() {
  const gone = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await once(gone, 'spawn');
  const start = await processStart(gone.pid ?? 0);
  gone.kill('SIGKILL');
  await once(gone, 'exit');
  return { pid: gone.pid, start, host: hostname(), nonce: 'dead' };
}

describe('the file lock', () => {
  it('takes over at once the lock of a holder killed with kill -9', async () => {
    const file = join(await scratch(), 'mcp.json');
    const { process: proc, lines } = holder(file);
    expect(await nextLine(lines)).toBe('held');
    const left = JSON.parse(await readFile(lockFileOf(file), 'utf8')) as { pid: number };
    expect(left.pid).toBe(proc.pid);
    proc.kill('SIGKILL');
    await once(proc, 'exit');

    // No wait at all: the holder's pid and start time show it is gone.
    const lock = await acquireLock(lockFileOf(file), { waitMs: 0 });
    const now = JSON.parse(await readFile(lockFileOf(file), 'utf8')) as { pid: number };
    expect(now.pid).toBe(process.pid);
    await lock.release();
    await expect(stat(lockFileOf(file))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('waits for a live holder and takes the lock once it is released', async () => {
    const file = join(await scratch(), 'mcp.json');
    const { process: proc, lines } = holder(file);
    expect(await nextLine(lines)).toBe('held');
    const order: string[] = [];
    const taking = acquireLock(lockFileOf(file), { waitMs: 20_000 }).then((lock) => {
      order.push('taken');
      return lock;
    });
    // Still held by the child: nobody else may have it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(order).toEqual([]);
    proc.stdin?.write('release\n');
    order.push(await nextLine(lines));
    const lock = await taking;
    expect(order).toEqual(['released', 'taken']);
    await lock.release();
  });

  it('gives up on a live holder after the wait with FILE_LOCKED, naming the file, the process and the way out', async () => {
    const file = join(await scratch(), 'mcp.json');
    const held = await acquireLock(lockFileOf(file));
    cleanups.push(() => held.release());
    const error = await acquireLock(lockFileOf(file), { waitMs: 300, file }).catch((e: unknown) => e);
    expect(isMcpxError(error) && error.code).toBe(ErrorCode.FileLocked);
    const { message, fixes } = error as { message: string; fixes: string[] };
    expect(message).toContain(file);
    expect(message).toContain(`process ${process.pid}`);
    expect(fixes.join('\n')).toContain(`rm '${lockFileOf(file)}'`);
  });

  it('stops waiting when its signal is aborted (Ctrl-C), with CANCELLED', async () => {
    const file = join(await scratch(), 'mcp.json');
    const held = await acquireLock(lockFileOf(file));
    cleanups.push(() => held.release());
    const controller = new AbortController();
    const waiting = acquireLock(lockFileOf(file), { waitMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(waiting).rejects.toMatchObject({ code: ErrorCode.Cancelled });
  });

  it('waits for a lock file its creator has not written into yet, and takes it once that is long past', async () => {
    const file = join(await scratch(), 'mcp.json');
    await writeFile(lockFileOf(file), '');
    expect(await tryLock(lockFileOf(file))).toBeUndefined();
    const past = new Date(Date.now() - 5_000);
    await utimes(lockFileOf(file), past, past);
    const lock = await tryLock(lockFileOf(file));
    expect(lock).toBeDefined();
    await lock?.release();
  });

  it('believes a holder on another host for a minute, and names the host', async () => {
    const file = join(await scratch(), 'mcp.json');
    const other = `not-${hostname()}`;
    await writeFile(lockFileOf(file), JSON.stringify({ pid: 1, start: '1', host: other, nonce: 'n' }));
    const error = await acquireLock(lockFileOf(file), { waitMs: 100, file }).catch((e: unknown) => e);
    expect((error as Error).message).toContain(`process 1 on ${other}`);
    const past = new Date(Date.now() - 120_000);
    await utimes(lockFileOf(file), past, past);
    const lock = await tryLock(lockFileOf(file));
    expect(lock).toBeDefined();
    await lock?.release();
  });

  it('lets exactly one of many processes that find a dead holder take it over at a time', async () => {
    const dir = await scratch();
    const file = join(dir, 'count');
    await writeFile(file, '0');
    await writeFile(lockFileOf(file), JSON.stringify(await deadHolder()));
    // Each child: under the lock, read the count, let the others try to barge in, write it + 1.
    const children = Array.from({ length: 8 }, () =>
      child(`
        const { readFile, writeFile } = await import('node:fs/promises');
        const file = ${JSON.stringify(file)};
        await home.withFileLock(file, async () => {
          const count = Number(await readFile(file, 'utf8'));
          await new Promise((resolve) => setTimeout(resolve, 20));
          await writeFile(file, String(count + 1));
        });
      `),
    );
    await Promise.all(children.map(({ process: proc }) => once(proc, 'exit')));
    expect(children.map(({ process: proc }) => proc.exitCode)).toEqual(Array(8).fill(0));
    expect(await readFile(file, 'utf8')).toBe('8');
    await expect(stat(lockFileOf(file))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps holders in one process apart too, also when they all find a dead holder at once', async () => {
    const file = join(await scratch(), 'count');
    await writeFile(file, '0');
    // Waiters in one event loop judge the dead holder's lock together, to the microtask: only
    // one of them may remove it, or a slow one would remove the lock a fast one just took.
    await writeFile(lockFileOf(file), JSON.stringify(await deadHolder()));
    await Promise.all(
      Array.from({ length: 20 }, () =>
        withFileLock(file, async () => {
          const count = Number(await readFile(file, 'utf8'));
          await new Promise((resolve) => setTimeout(resolve, 1));
          await writeFile(file, String(count + 1));
        }),
      ),
    );
    expect(await readFile(file, 'utf8')).toBe('20');
  });

  it('leaves no lock file behind when the process exits while holding it (a second Ctrl-C)', async () => {
    const file = join(await scratch(), 'mcp.json');
    const { process: proc, lines } = child(`
      await home.acquireLock(home.lockFileOf(${JSON.stringify(file)}));
      console.log('held');
      process.exit(130);
    `);
    expect(await nextLine(lines)).toBe('held');
    await once(proc, 'exit');
    expect(proc.exitCode).toBe(130);
    await expect(stat(lockFileOf(file))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('releases only its own holding: a lock taken over meanwhile stays', async () => {
    const file = join(await scratch(), 'mcp.json');
    const lock = await acquireLock(lockFileOf(file));
    const theirs = JSON.stringify({ pid: process.pid, start: '', host: hostname(), nonce: 'theirs' });
    await writeFile(lockFileOf(file), theirs);
    await lock.release();
    expect(await readFile(lockFileOf(file), 'utf8')).toBe(theirs);
  });

  it('is named so a repository does not commit it: a dot file beside the file, for mcpx', () => {
    expect(lockFileOf('/repo/.mcpx/mcp.json')).toBe('/repo/.mcpx/.mcp.json.mcpx-lock');
    expect(lockFileOf('/home/me/.claude.json')).toBe('/home/me/.claude.json.mcpx-lock');
  });
});

describe('HomeFiles.update', () => {
  it('runs concurrent read-modify-writes one after another: every change lands, 0600, no lock left', async () => {
    const root = join(await scratch(), '.mcpx');
    const home = createHomeFiles(root);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        home.update('list.json', async (text) => {
          const list = JSON.parse(text ?? '[]') as number[];
          await new Promise((resolve) => setTimeout(resolve, 1));
          return JSON.stringify([...list, i]);
        }),
      ),
    );
    const list = JSON.parse((await home.readText('list.json')) ?? '[]') as number[];
    expect(list.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect((await stat(join(root, 'list.json'))).mode & 0o777).toBe(0o600);
    await expect(stat(lockFileOf(join(root, 'list.json')))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('writes nothing when the change returns undefined, and nothing when it throws', async () => {
    const root = join(await scratch(), '.mcpx');
    const home = createHomeFiles(root);
    await home.writeText('a.json', 'before');
    expect(await home.update('a.json', () => undefined)).toBe('before');
    await expect(
      home.update('a.json', () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await home.readText('a.json')).toBe('before');
    await expect(stat(lockFileOf(join(root, 'a.json')))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
