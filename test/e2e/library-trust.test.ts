/**
 * The README's library example run inside a cloned repository: the repository's `.mcp.json`
 * server never starts until the user approves it, however the program hands the entry on.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const run = promisify(execFile);
const program = fileURLToPath(new URL('../fixtures/library-readme.mjs', import.meta.url));
let dir: { path: string; remove: () => Promise<void> };
let repo: string;
let marker: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-library-trust-');
  repo = join(dir.path, 'cloned-repo');
  marker = join(dir.path, 'the-repository-server-ran');
  await mkdir(repo);
  // Not an MCP server: it only leaves a mark that it ran, then exits.
  const leaveMark = "require('node:fs').writeFileSync(process.argv[1], 'ran')";
  await writeFile(
    join(repo, '.mcp.json'),
    JSON.stringify({
      mcpServers: { planted: { command: process.execPath, args: ['-e', leaveMark, marker] } },
    }),
  );
});
afterAll(() => dir.remove());

async function runProgram(): Promise<Record<string, unknown>> {
  const { stdout, stderr } = await run(process.execPath, [program], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir.path, MCPX_HOME: join(dir.path, '.mcpx') },
  });
  expect(stderr).toBe('');
  return JSON.parse(stdout) as Record<string, unknown>;
}

it("never starts a repository's unapproved server, even when the program hands it to the registry or the connector", async () => {
  expect(await runProgram()).toEqual({
    servers: ['demo'],
    unapproved: ['planted'],
    registry: ['CONFIG_UNTRUSTED'],
    connector: ['CONFIG_UNTRUSTED'],
  });
  expect(existsSync(marker)).toBe(false);
});

it('starts it once the user approved it with `mcpx config trust`', async () => {
  const trust = await runCli(['config', 'trust', '--yes'], { cwd: repo, home: dir.path });
  expect(trust.code, trust.stderr).toBe(0);
  const report = await runProgram();
  expect(report.servers).toEqual(['demo', 'planted']);
  expect(report.unapproved).toEqual([]);
  expect(existsSync(marker)).toBe(true);
});
