/**
 * The keep-alive daemon's metrics: `mcpx daemon metrics` prints, in Prometheus's text format,
 * the calls its callers made through it, the instance's connection and its sessions.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliRun, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { daemonPids } from '../helpers/processes.js';

let world: { dir: string; home: string; remove: () => Promise<void> };

beforeEach(async () => {
  const { path, remove } = await tempDir('mcpx-daemon-metrics-');
  const home = join(path, 'home');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  const dir = join(path, 'work');
  await mkdir(dir);
  world = { dir, home, remove };
  await writeFile(
    join(home, '.mcpx', 'mcp.json'),
    JSON.stringify({
      mcpServers: { a: { command: process.execPath, args: [testServerPath], keep_alive: true } },
    }),
  );
});

afterEach(async () => {
  await mcpx(['daemon', 'stop']);
  for (const pid of daemonPids(join(world.home, '.mcpx'))) process.kill(pid, 'SIGKILL');
  await world.remove();
});

function mcpx(args: readonly string[]): Promise<CliRun> {
  // The socket's folder is this test's own (mcpx-<uid> in TMPDIR).
  return runCli(args, {
    cwd: world.dir,
    home: world.home,
    env: { TMPDIR: dirname(world.dir) },
    timeoutMs: 60_000,
  });
}

function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('mcpx daemon metrics', () => {
  it('prints the calls made through the daemon, its instance and its sessions', async () => {
    const idle = await mcpx(['daemon', 'metrics']);
    expect(idle.code).not.toBe(0);
    expect(idle.stderr).toMatch(/no mcpx daemon is running/);

    for (let i = 0; i < 3; i++)
      expect((await mcpx(['call', 'a.echo', 'message=warm'])).stdout).toBe('warm\n');
    expect((await mcpx(['call', 'a.fail'])).code).toBe(5);

    const run = await mcpx(['daemon', 'metrics']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const text = run.stdout;
    expect(
      sample(text, 'mcpx_tool_calls_total{mcpx_server="a",gen_ai_tool_name="echo",mcpx_outcome="ok"}'),
    ).toBe(3);
    expect(
      sample(
        text,
        'mcpx_tool_calls_total{mcpx_server="a",gen_ai_tool_name="fail",mcpx_outcome="tool_error"}',
      ),
    ).toBe(1);
    expect(text).toMatch(
      /^mcp_client_operation_duration_seconds_count\{mcp_method_name="tools\/call",mcpx_server="a",gen_ai_tool_name="echo"\} 3$/m,
    );
    // One instance of `a` (its environment tag), up, and no caller attached between commands.
    expect(text).toMatch(
      /^mcpx_upstream_connections\{mcpx_server="a",mcpx_state="ready",mcpx_instance="[0-9a-f]+"\} 1$/m,
    );
    expect(text).toMatch(/^mcpx_sessions\{mcpx_server="a",mcpx_instance="[0-9a-f]+"\} 0$/m);
  });
});
