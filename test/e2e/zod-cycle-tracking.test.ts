/**
 * zod 4.6 walks each container schema on its first parse, to follow reference cycles in the
 * input (cli/acyclic-parsing.ts): the command's processes, which parse only what came as JSON,
 * turn that off; a program that imports mcpx keeps zod as it configured it. Each process is
 * asked at its exit (fixtures/report-zod-cycles.cjs) by parsing a value that holds itself.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const reporter = fixture('report-zod-cycles.cjs');
let dir: { path: string; remove: () => Promise<void> };
let config: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-zod-cycles-');
  config = join(dir.path, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [testServerPath] } } }),
  );
});
afterAll(() => dir.remove());

async function askedAtExit(name: string, args: string[]): Promise<{ answer: string; stdout: string }> {
  const report = join(dir.path, `${name}.txt`);
  const result = await runCli(args, {
    cwd: dir.path,
    home: join(dir.path, 'home'),
    env: { MCPX_ZOD_REPORT: report, NODE_OPTIONS: `--require=${reporter}`, MCPX_DAEMON: 'off' },
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return { answer: await readFile(report, 'utf8'), stdout: result.stdout };
}

describe("zod's cycle tracking", () => {
  it('is off in a command that parses what servers sent', async () => {
    const { answer, stdout } = await askedAtExit('call', [
      '--config',
      config,
      'call',
      'bench.echo',
      'message=hi',
    ]);
    expect(stdout).toBe('hi\n');
    expect(answer).toBe('untracked');
  });

  it('is as zod set it where the command loaded none of its parsing (the check can tell)', async () => {
    const { answer } = await askedAtExit('version', ['--version']);
    expect(answer).toBe('tracked');
  });

  it('is left alone in a program that uses mcpx as a library', async () => {
    const report = join(dir.path, 'library.txt');
    const { stdout, stderr } = await run(
      process.execPath,
      [`--require=${reporter}`, fixture('library-user.mjs'), config],
      {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: dir.path,
          MCPX_HOME: join(dir.path, '.mcpx'),
          MCPX_ZOD_REPORT: report,
        },
      },
    );
    expect(stderr).toBe('');
    expect(stdout).toBe('from the library\nfunction function\n');
    expect(await readFile(report, 'utf8')).toBe('tracked');
  });
});
