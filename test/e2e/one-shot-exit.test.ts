/**
 * Issue 44, item 1: a one-shot call ends when its work is done. A server that asks the client
 * something after the result (server-everything asks for roots 350 ms after it starts) and does
 * not exit while its question is unanswered held `mcpx call` for the whole shutdown grace (1 s)
 * before SIGTERM. Once mcpx's input to it is closed nothing can answer, so the grace ends there.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, tempDir, testServerPath } from '../helpers/cli.js';
import { isAlive } from '../helpers/processes.js';

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('mcpx-one-shot-exit-');
});
afterAll(() => dir.remove());

/** `mcpx call late.echo` against the test server with `env`: its exit code, output, and ms from printing to exit. */
async function oneShot(env: Record<string, string>) {
  const config = join(dir.path, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { late: { command: process.execPath, args: [testServerPath], env } } }),
  );
  // Timed on the child's own events: its first output and its exit (not its pipes' closing).
  const child = spawn(process.execPath, [cliPath, '--config', config, 'call', 'late.echo', 'message=done'], {
    cwd: dir.path,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir.path, MCPX_HOME: join(dir.path, '.mcpx') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printedAt: number | undefined;
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (printedAt === undefined && stdout.includes('done')) printedAt = performance.now();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const exitedAt = performance.now();
  return { code, stdout, stderr, printedAt, exitMs: exitedAt - (printedAt ?? 0) };
}

describe('mcpx call against a server that asks a question after the result', () => {
  it('exits within 100 ms of printing the result, and leaves nothing running', async () => {
    const startLog = join(dir.path, 'starts.log');
    // The same call to a server that asks nothing: what exiting costs on this machine right now.
    // Each kind twice, alternating, the quicker of each compared: one process stalled by a loaded
    // machine says nothing, while the unanswered question this guards against costs a whole second.
    const late = () =>
      oneShot({
        MCPX_TEST_FAULT: 'late-request',
        MCPX_TEST_LATE_REQUEST_MS: '10',
        MCPX_TEST_START_LOG: startLog,
      });
    const plains = [];
    const runs = [];
    for (let round = 0; round < 2; round++) {
      plains.push(await oneShot({}));
      runs.push(await late());
    }
    for (const plain of plains) expect(plain.code, plain.stderr).toBe(0);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('done\n');
      expect(run.printedAt).toBeDefined();
    }
    const plainMs = Math.min(...plains.map((p) => p.exitMs));
    const runMs = Math.min(...runs.map((r) => r.exitMs));
    // Within 100 ms of the plain call's own exit, far inside the 1 s shutdown grace an unanswered
    // question would cost; paired, so a loaded machine slows both alike.
    expect(runMs, `plain call: ${Math.round(plainMs)} ms`).toBeLessThan(plainMs + 100);
    const pids = (await readFile(startLog, 'utf8')).trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });
});
