import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const cliPath = join(repoRoot, 'dist/bin/mcpx.cjs');
export const testServerPath = join(repoRoot, 'dist/testing/test-server.js');

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliRunOptions {
  readonly cwd: string;
  readonly home: string;
  readonly env?: Record<string, string>;
  readonly timeoutMs?: number;
  /** Text written to the process's stdin, which is then closed; without it stdin is /dev/null. */
  readonly stdin?: string;
  /** Called once the process is running (e.g. to send it SIGINT). */
  readonly onSpawn?: (pid: number) => void;
  /** Called with all of stdout and stderr so far whenever either grows (e.g. to send SIGINT at the right moment). */
  readonly onOutput?: (output: { stdout: string; stderr: string }, pid: number) => void;
}

/**
 * `MCPX_GATEWAY_FAST_PATH` as the test run was given it, for a spawned `mcpx serve`: the
 * gateway suites run once as they are and once with `MCPX_GATEWAY_FAST_PATH=0` (the full
 * path for every request), to show the stdio fast path answers as the full path does.
 */
export function gatewayPathEnv(): Record<string, string> {
  const value = process.env.MCPX_GATEWAY_FAST_PATH;
  return value === undefined ? {} : { MCPX_GATEWAY_FAST_PATH: value };
}

/** Run the built `mcpx` binary as a user would, with an isolated home. */
export function runCli(args: readonly string[], options: CliRunOptions): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: options.home,
        MCPX_HOME: join(options.home, '.mcpx'),
        ...gatewayPathEnv(),
        ...options.env,
      },
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] as ['pipe', 'pipe', 'pipe'],
    });
    if (options.stdin !== undefined) {
      // A process that exits without reading all of stdin must not fail the test with EPIPE.
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin);
    }
    let stdout = '';
    let stderr = '';
    const grew = () => {
      if (child.pid !== undefined) options.onOutput?.({ stdout, stderr }, child.pid);
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      grew();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      grew();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `mcpx ${args.join(' ')} did not finish within ${options.timeoutMs ?? 20_000} ms\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

/** A temporary directory removed by the returned function. */
export async function tempDir(prefix = 'mcpx-test-'): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/**
 * What a folder under a test's mcpx home holds, less the V8 compile cache mcpx keeps there on
 * Node >= 22.1 (`cli/compile-cache.ts`): a test of what a command left behind looks at the rest.
 */
export async function homeEntries(folder: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(folder)).filter((name) => name !== 'compile-cache');
}
