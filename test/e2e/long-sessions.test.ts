import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, type CliRunOptions, runCli, tempDir } from '../helpers/cli.js';
import { everythingPath } from '../helpers/servers.js';

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let work: string;
let config: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-long-');
  home = join(dir.path, 'home');
  work = join(dir.path, 'work');
  await mkdir(home, { recursive: true });
  await mkdir(work, { recursive: true });
  config = join(dir.path, 'servers.json');
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everythingPath] } } }),
  );
});
afterAll(() => dir.remove());

const mcpx = (args: string[], extra: Partial<CliRunOptions> = {}): Promise<CliRun> =>
  runCli([...args, '--config', config], { cwd: work, home, timeoutMs: 60_000, ...extra });

describe('a tool that must run as a task (server-everything simulate-research-query)', () => {
  it('creates the task, shows its status under --verbose, and prints the fetched result', async () => {
    const run = await mcpx(['call', 'everything.simulate-research-query', 'topic=otters', '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('# Research Report: otters');
    expect(run.stderr).toMatch(/task \S+ working: Gathering sources/);
    expect(run.stderr).toMatch(/task \S+ completed/);
  }, 90_000);

  it('prints only the final result on stdout under --json', async () => {
    const run = await mcpx(['call', 'everything.simulate-research-query', 'topic=otters', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.content[0].text).toContain('# Research Report: otters');
    expect(result.task).toBeUndefined();
  }, 90_000);

  it('cancels the task on Ctrl-C (tasks/cancel, confirmed by the server) and exits 130', async () => {
    let sent = false;
    const run = await mcpx(['call', 'everything.simulate-research-query', 'topic=otters', '--verbose'], {
      onOutput: ({ stderr }, pid) => {
        if (!sent && /task \S+ working/.test(stderr)) {
          sent = true;
          process.kill(pid, 'SIGINT');
        }
      },
    });
    expect(sent).toBe(true);
    expect(run.code, run.stderr).toBe(130);
    // The status line after the interrupt is the server's answer to tasks/cancel.
    expect(run.stderr).toMatch(/task \S+ cancelled/);
    expect(run.stdout).toBe('');
  }, 90_000);

  it('still calls a tool that forbids tasks directly', async () => {
    const run = await mcpx(['call', 'everything.echo', 'message=plain']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('plain');
  }, 60_000);
});
