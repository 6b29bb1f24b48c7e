/**
 * Issue 28, item 8: the daemon's socket works under any HOME (a Unix socket's
 * path must fit in 104–108 bytes, a home's need not), and SIGTERM always ends
 * the daemon and its servers: idle, mid-call, or while it starts.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliRun, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { daemonPids, isAlive, waitForExit } from '../helpers/processes.js';

let root: { path: string; remove: () => Promise<void> };
let home: string;
let work: string;

beforeEach(async () => {
  root = await tempDir('mcpx-longhome-');
  // A HOME of exactly 100 characters: ~/.mcpx/run/<key>.sock alone would be 128 bytes.
  home = join(root.path, 'h'.repeat(100 - root.path.length - 1));
  expect(home).toHaveLength(100);
  work = join(root.path, 'work');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await mkdir(work);
  await writeFile(
    join(home, '.mcpx', 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        a: {
          command: process.execPath,
          args: [testServerPath],
          keep_alive: true,
          env: { MCPX_TEST_START_LOG: join(work, 'a.starts') },
        },
      },
    }),
  );
});

afterEach(async () => {
  await mcpx(['daemon', 'stop']);
  for (const pid of daemonPids(join(home, '.mcpx'))) process.kill(pid, 'SIGKILL');
  await root.remove();
});

function mcpx(args: readonly string[], extra = {}): Promise<CliRun> {
  return runCli(args, { cwd: work, home, timeoutMs: 60_000, ...extra });
}

async function servers(): Promise<number[]> {
  const text = await readFile(join(work, 'a.starts'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

describe("the daemon's socket under a 100-character HOME", () => {
  it('calls go through the daemon; status and stop work', async () => {
    const first = await mcpx(['call', 'a.echo', 'message=one']);
    expect(first).toMatchObject({ code: 0, stdout: 'one\n' });
    const second = await mcpx(['call', 'a.echo', 'message=two']);
    expect(second).toMatchObject({ code: 0, stdout: 'two\n' });
    // One server process for both calls: the second reached the warm one through the daemon.
    expect(await servers()).toHaveLength(1);
    const status = await mcpx(['--json', 'daemon', 'status']);
    expect(status.code).toBe(0);
    const state = JSON.parse(status.stdout);
    expect(state).toMatchObject({
      running: true,
      servers: [expect.objectContaining({ name: 'a', calls: 2 })],
    });
    expect(Buffer.byteLength(state.socket)).toBeLessThan(104);
    const [daemon] = daemonPids(join(home, '.mcpx'));
    expect(daemon).toBeDefined();
    const stop = await mcpx(['daemon', 'stop']);
    expect(stop).toMatchObject({ code: 0 });
    expect(stop.stderr).toContain('mcpx daemon: stopped');
    expect(isAlive(daemon as number)).toBe(false);
    expect(await waitForExit((await servers())[0] as number, 5_000)).toBe(true);
  }, 120_000);
});

describe('callers whose environment names another socket folder', () => {
  it('reach the running daemon where its pid file says it listens', async () => {
    const other = join(root.path, 'tmp');
    await mkdir(other);
    expect((await mcpx(['call', 'a.echo', 'message=one'])).code).toBe(0);
    // Another TMPDIR (a cron job, sudo, another session): its own socket folder holds no daemon.
    const elsewhere = await mcpx(['call', 'a.echo', 'message=two'], { env: { TMPDIR: other } });
    expect(elsewhere).toMatchObject({ code: 0, stdout: 'two\n' });
    const status = await mcpx(['--json', 'daemon', 'status'], { env: { TMPDIR: other } });
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true });
    expect(await servers()).toHaveLength(1);
  }, 120_000);
});

describe('SIGTERM ends the daemon and its servers, always', () => {
  it('while a call is in flight', async () => {
    expect((await mcpx(['call', 'a.echo', 'message=warm'])).code).toBe(0);
    const [daemon] = daemonPids(join(home, '.mcpx'));
    const [server] = await servers();
    let sent = false;
    const started = Date.now();
    const call = mcpx(['call', 'a.slow_operation', 'steps=400', 'delay_ms=50']);
    // The call is in flight once its caller is the daemon's client (besides the status request).
    const until = Date.now() + 20_000;
    while (!sent && Date.now() < until) {
      const status = JSON.parse((await mcpx(['--json', 'daemon', 'status'])).stdout);
      if (status.clients >= 2) {
        await new Promise((r) => setTimeout(r, 500));
        process.kill(daemon as number, 'SIGTERM');
        sent = true;
      } else await new Promise((r) => setTimeout(r, 100));
    }
    expect(sent).toBe(true);
    expect(await waitForExit(daemon as number, 15_000)).toBe(true);
    expect(await waitForExit(server as number, 5_000)).toBe(true);
    const ended = await call;
    expect(ended.code).not.toBe(0);
    // Ended by the signal, not by the 20 s call running out.
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 120_000);

  it('while it starts', async () => {
    let pid: number | undefined;
    const run = mcpx(['daemon', 'run', '--all'], {
      onSpawn: (p: number) => {
        pid = p;
        setTimeout(() => process.kill(p, 'SIGTERM'), 150);
      },
    });
    const ended = await run;
    expect(pid).toBeDefined();
    expect(ended.signal).toBeNull();
    expect(ended.code).toBe(0);
    for (const server of await servers()) expect(await waitForExit(server, 5_000)).toBe(true);
  }, 120_000);
});
