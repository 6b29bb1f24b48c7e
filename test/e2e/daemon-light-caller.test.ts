import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliRun, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { heavyIn, type ModuleLoads, recordModuleLoads } from '../helpers/module-loads.js';

/**
 * The light caller: a warm `mcpx call` hands its command line to the daemon
 * and never loads the SDK, zod, ajv or the gateway itself. Which files a
 * process loads is recorded by a module resolve hook (per pid, since the
 * daemon the first call starts inherits NODE_OPTIONS too).
 */

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let work: string;
let loads: ModuleLoads;

beforeEach(async () => {
  dir = await tempDir('mcpx-light-');
  home = join(dir.path, 'home');
  work = join(dir.path, 'work');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await mkdir(work);
  loads = await recordModuleLoads(dir.path);
  const server = (keepAlive: boolean) => ({
    command: process.execPath,
    args: [testServerPath],
    ...(keepAlive ? { keep_alive: true } : {}),
    env: {
      MCPX_TEST_START_LOG: join(dir.path, keepAlive ? 'warm.starts' : 'cold.starts'),
      MCPX_TEST_MEDIA: '1',
    },
  });
  await writeFile(
    join(home, '.mcpx', 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        warm: server(true),
        cold: server(false),
        crashy: {
          command: process.execPath,
          args: [testServerPath],
          keep_alive: true,
          env: { MCPX_TEST_FAULT: 'crash-mid-call' },
        },
        pass: {
          command: process.execPath,
          args: [testServerPath],
          keep_alive: true,
          env_passthrough: ['MCPX_TEST_COLOUR'],
          env: { MCPX_TEST_START_LOG: join(dir.path, 'pass.starts') },
        },
      },
    }),
  );
});

afterEach(async () => {
  await runCli(['daemon', 'stop'], { cwd: work, home });
  await dir.remove();
});

async function mcpx(
  args: readonly string[],
  recordLoads = false,
  env: Record<string, string> = {},
): Promise<CliRun & { pid?: number }> {
  let pid: number | undefined;
  const run = await runCli(args, {
    cwd: work,
    home,
    timeoutMs: 60_000,
    env: { ...env, ...(recordLoads ? { NODE_OPTIONS: loads.nodeOptions } : {}) },
    onSpawn: (p) => {
      pid = p;
    },
  });
  return { ...run, ...(pid !== undefined ? { pid } : {}) };
}

describe('a warm call through the daemon (the light caller)', () => {
  it('loads none of the SDK, zod, ajv or the gateway, and answers as the direct path does', {
    timeout: 90_000,
  }, async () => {
    // The first call starts the daemon (the full CLI: no daemon to hand it to yet).
    const first = await mcpx(['call', 'warm.echo', 'message=first'], true);
    expect(first.stdout).toBe('first\n');
    expect(await heavyIn(await loads.loadedFiles(first.pid))).not.toEqual([]);

    const warm = await mcpx(['call', 'warm.echo', 'message=hello'], true);
    expect(warm).toMatchObject({ code: 0, stdout: 'hello\n', stderr: '' });
    const files = await loads.loadedFiles(warm.pid);
    // The CommonJS entry and its light chunk: none of the CLI's ES modules, so no work for Node's ES module loader.
    expect(
      files.filter((f) => /[\\/]dist[\\/]/.test(f)).map((f) => f.split(/[\\/]/).slice(-2).join('/')),
    ).toEqual(['bin/mcpx.cjs', expect.stringMatching(/^chunks\/light-[\w-]+\.cjs$/)]);
    expect(await heavyIn(files)).toEqual([]);

    // Same bytes and exit codes as the direct path, for a result, --json, a tool error and a usage error.
    for (const args of [
      ['--json', 'call', 'warm.add', 'a=2', 'b=3'],
      ['call', 'warm.fail', 'message=boom'],
      ['call', 'warm.nope'],
      ['tools', 'warm.echo'],
    ]) {
      const viaDaemon = await mcpx(args);
      const direct = await runCli(args, { cwd: work, home, env: { MCPX_DAEMON: 'off' } });
      expect({ args, code: viaDaemon.code, stdout: viaDaemon.stdout, stderr: viaDaemon.stderr }).toEqual({
        args,
        code: direct.code,
        stdout: direct.stdout,
        stderr: direct.stderr,
      });
    }
    // One warm server process served every call through the daemon; each direct run started its own.
    expect((await readFile(join(dir.path, 'warm.starts'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(
      1 + 4,
    );
  });

  it('reports a server that crashes mid-call as the direct path does: same message, same exit code', {
    timeout: 90_000,
  }, async () => {
    await mcpx(['call', 'warm.echo', 'message=start the daemon']);
    const viaDaemon = await mcpx(['call', 'crashy.echo', 'message=x']);
    const direct = await runCli(['call', 'crashy.echo', 'message=x'], {
      cwd: work,
      home,
      env: { MCPX_DAEMON: 'off' },
    });
    expect(direct.code).toBe(4);
    expect(direct.stderr).toContain("server 'crashy' exited with code 3");
    expect({ code: viaDaemon.code, stdout: viaDaemon.stdout, stderr: viaDaemon.stderr }).toEqual({
      code: direct.code,
      stdout: direct.stdout,
      stderr: direct.stderr,
    });
  });

  it('hands a server the daemon does not hold back to the caller, which starts it itself', {
    timeout: 90_000,
  }, async () => {
    await mcpx(['call', 'warm.echo', 'message=start the daemon']);
    const cold = await mcpx(['call', 'cold.echo', 'message=direct'], true);
    expect(cold).toMatchObject({ code: 0, stdout: 'direct\n', stderr: '' });
    // It asked the daemon first, then ran the full CLI.
    const files = await loads.loadedFiles(cold.pid);
    expect(files.some((f) => /[\\/]light-[\w-]+\.cjs$/.test(f))).toBe(true);
    expect(await heavyIn(files)).not.toEqual([]);
    expect((await readFile(join(dir.path, 'cold.starts'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(
      1,
    );
    // No leftover in the run folder but the daemon's own files (its socket, pid and content alias).
    const run = await readdir(join(home, '.mcpx', 'run'));
    expect(run.filter((f) => !/\.(sock|pid)$|^content-[0-9a-f]{16}\.json$/.test(f))).toEqual([]);
  });

  it("gives a server its caller's env_passthrough values: a caller with other values gets its own instance", {
    timeout: 90_000,
  }, async () => {
    const colour = async (value: string) =>
      (await mcpx(['call', 'pass.env', 'name=MCPX_TEST_COLOUR'], false, { MCPX_TEST_COLOUR: value })).stdout;
    const starts = async () =>
      (await readFile(join(dir.path, 'pass.starts'), 'utf8')).split('\n').filter(Boolean).length;
    // The first starts the daemon with red in its own environment.
    expect(await colour('red')).toBe('red\n');
    expect(await colour('red')).toBe('red\n');
    expect(await starts()).toBe(1);
    // Blue through the warm daemon: not the first caller's red.
    expect(await colour('blue')).toBe('blue\n');
    expect(await starts()).toBe(2);
    expect(await colour('blue')).toBe('blue\n');
    expect(await starts()).toBe(2);
    // Red's instance is still warm: going back to it starts nothing.
    expect(await colour('red')).toBe('red\n');
    expect(await starts()).toBe(2);
  });

  it("saves --save files in the caller's folder, not the daemon's", { timeout: 90_000 }, async () => {
    await mcpx(['call', 'warm.echo', 'message=start the daemon']);
    const other = join(dir.path, 'elsewhere');
    await mkdir(other);
    const saved = await runCli(['call', 'warm.media', '--save', 'out'], {
      cwd: other,
      home,
      timeoutMs: 60_000,
    });
    expect(saved.code).toBe(0);
    expect(saved.stderr).toContain(join(other, 'out'));
    expect((await readdir(join(other, 'out'))).length).toBeGreaterThan(0);
    await expect(readdir(join(work, 'out'))).rejects.toThrow();
  });
});
