/**
 * Sixty stdio servers in one config, through the built CLI: the registry connects sixteen at a
 * time on the CLI's one Ctrl-C signal, which used to print MaxListenersExceededWarning. Nothing
 * but mcpx's own output may reach stderr, and under --json stderr is one JSON object or nothing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli, tempDir, testServerPath } from '../helpers/cli.js';

const COUNT = 60;
const names = Array.from({ length: COUNT }, (_, i) => `srv${String(i).padStart(2, '0')}`);

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let file: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-many-');
  home = join(dir.path, 'home');
  await mkdir(home, { recursive: true });
  file = join(dir.path, 'mcp.json');
  const mcpServers = Object.fromEntries(
    names.map((name) => [name, { command: process.execPath, args: [testServerPath] }]),
  );
  await writeFile(file, JSON.stringify({ mcpServers }, null, 2));
});
afterAll(() => dir.remove());

// Sixty node processes starting at once on a loaded 2-core machine: be generous.
const mcpx = (args: string[]): Promise<CliRun> =>
  runCli(['--config', file, '--timeout', '60', ...args], { cwd: dir.path, home, timeoutMs: 150_000 });

function expectNoProcessWarning(run: CliRun) {
  expect(run.signal).toBeNull();
  expect(run.stderr).not.toMatch(/Warning|MaxListeners|\(node:\d+\)/);
}

describe(`mcpx with ${COUNT} servers in one config`, () => {
  it('list prints every server and no process warning', async () => {
    const run = await mcpx(['list']);
    expectNoProcessWarning(run);
    for (const name of names) expect(run.stdout).toMatch(new RegExp(`^${name}\\s`, 'm'));
  }, 200_000);

  it('doctor prints every server and no process warning', async () => {
    const run = await mcpx(['doctor']);
    expectNoProcessWarning(run);
    for (const name of names) expect(run.stdout).toContain(name);
  }, 200_000);

  it('--json list: every server on stdout; stderr is empty or exactly one JSON object', async () => {
    const run = await mcpx(['--json', 'list']);
    expectNoProcessWarning(run);
    const rows = JSON.parse(run.stdout) as { name: string; state: string }[];
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(names));
    const failed = rows.filter((r) => r.state === 'error');
    if (failed.length === 0) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      return;
    }
    // Servers that lost the race against a loaded machine are reported together, in one object.
    const report = JSON.parse(run.stderr) as { error: { server: string }; errors?: { server: string }[] };
    const reported = report.errors ?? [report.error];
    expect(reported.map((e) => e.server).sort()).toEqual(failed.map((r) => r.name).sort());
  }, 200_000);
});

describe('--json with several servers failing', () => {
  it('list and tools print all their errors as one JSON object on stderr', async () => {
    const broken = join(dir.path, 'broken.json');
    await writeFile(
      broken,
      JSON.stringify({
        mcpServers: {
          good: { command: process.execPath, args: [testServerPath] },
          gone1: { command: 'mcpx-no-such-command-1' },
          gone2: { command: 'mcpx-no-such-command-2' },
        },
      }),
    );
    for (const command of ['list', 'tools']) {
      const run = await runCli(['--config', broken, '--json', command], { cwd: dir.path, home });
      expect(run.code, command).toBe(4);
      expect(() => JSON.parse(run.stdout), command).not.toThrow();
      const report = JSON.parse(run.stderr) as { error: { server: string }; errors: { server: string }[] };
      expect(report.errors.map((e) => e.server).sort()).toEqual(['gone1', 'gone2']);
      expect(report.error).toEqual(report.errors[0]);
    }
  });
});
