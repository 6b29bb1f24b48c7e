/**
 * A real Redis for the fleet tests (Debian's `redis-server`; `.ci/run` installs it): a
 * private, memory-only server on a free loopback port, stopped and started again on the same
 * port to play an outage. Start it inside the test that stops it: the leak guard counts a
 * process started in a test and still running after it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { freePort } from './ports.js';

export interface RunningRedis {
  readonly url: string;
  readonly port: number;
  /** Stop it (SIGTERM, then wait for the exit): the instances using it see the store go down. */
  stop(): Promise<void>;
  /** Start it again on the same port, empty (nothing is saved). */
  start(): Promise<void>;
  /** One command through `redis-cli` (e.g. `['DBSIZE']`), its output trimmed. */
  cli(args: readonly string[]): string;
}

/** Where redis-server is, or undefined (the tests then fail with how to install it). */
export function findRedis(): string | undefined {
  for (const path of ['/usr/bin/redis-server', '/usr/local/bin/redis-server'])
    if (existsSync(path)) return path;
  return undefined;
}

export async function startRedis(): Promise<RunningRedis> {
  const binary = findRedis();
  if (!binary)
    throw new Error('redis-server is not installed: apt-get install redis-server (.ci/run installs it)');
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      binary,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    await waitReady(port);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
    start,
    cli: (args) => execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).trim(),
  };
}

async function waitReady(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      if (execFileSync('redis-cli', ['-p', String(port), 'PING'], { encoding: 'utf8' }).trim() === 'PONG')
        return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * `--state-key-file <file>` with a fresh owner-only key in `dir` (the same file for every instance of
 * a test's fleet): `--state` asks for it, so that what the instances store is signed.
 */
export function stateKeyArgs(dir: string): string[] {
  const file = join(dir, 'fleet-state.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32), { mode: 0o600 });
  return ['--state-key-file', file];
}

/**
 * A fresh store for each test of the file, started before it and stopped after `cleanUp` (the
 * test's instances first, so none outlives its store): the leak guard counts a process started
 * in a test and still running after it. Returns the running store of the current test.
 */
export function redisEachTest(cleanUp: () => Promise<void>): () => RunningRedis {
  let redis: RunningRedis | undefined;
  beforeEach(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    await cleanUp();
    await redis?.stop();
  });
  return () => {
    if (!redis) throw new Error('no store started');
    return redis;
  };
}
