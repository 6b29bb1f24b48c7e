/**
 * Library programs run inside a cloned repository: the repository's `.mcp.json` server never
 * starts until someone approves it — the README's `createHost` example (run as the README has it)
 * asks its user, and declines cleanly when there is nobody to answer (stdin closed, or at its
 * end); a program that asks nobody skips it, and one that hands the entry to the registry or the
 * connector itself is refused.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { readmeLibraryExample } from '../helpers/readme-example.js';

const run = promisify(execFile);
const nobodyProgram = fileURLToPath(new URL('../fixtures/library-nobody.mjs', import.meta.url));
const forcedProgram = fileURLToPath(new URL('../fixtures/library-forced.mjs', import.meta.url));
let dir: { path: string; remove: () => Promise<void> };
let readmeExample: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-library-trust-');
  readmeExample = await readmeLibraryExample(dir.path);
});
afterAll(() => dir.remove());

/** A cloned repository whose `.mcp.json` plants a server that only leaves a mark that it ran. */
async function clonedRepo(name: string): Promise<{ repo: string; marker: string }> {
  const repo = join(dir.path, name);
  const marker = join(dir.path, `${name}-server-ran`);
  await mkdir(repo);
  const leaveMark = "require('node:fs').writeFileSync(process.argv[1], 'ran')";
  await writeFile(
    join(repo, '.mcp.json'),
    JSON.stringify({
      mcpServers: { planted: { command: process.execPath, args: ['-e', leaveMark, marker] } },
    }),
  );
  return { repo, marker };
}

function programEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir.path, MCPX_HOME: join(dir.path, '.mcpx') };
}

/** Runs a program in `cwd` that answers `answer` to its question, as its user would once it is asked. */
function runAnswering(
  program: string,
  cwd: string,
  answer: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [program], { cwd, env: programEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('[y/N]') && child.stdin.writable) child.stdin.end(`${answer}\n`);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

it("the README's createHost example starts nothing from the repository when its user answers no", async () => {
  const { repo, marker } = await clonedRepo('answered-no');
  const result = await runAnswering(readmeExample, repo, 'n');
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toContain('planted');
  expect(result.stderr).toContain('Start this server? [y/N]');
  expect(result.stderr).toMatch(/skipped server 'planted' from .*\.mcp\.json: not trusted yet/);
  expect(existsSync(marker)).toBe(false);
  // Still untrusted for the CLI: nothing was recorded.
  const list = await runCli(['list'], { cwd: repo, home: dir.path });
  expect(list.stderr).toMatch(/skipped server 'planted' .*not trusted yet/);
  expect(existsSync(marker)).toBe(false);
});

it("the README's createHost example starts the repository's server once its user answers yes, and records it", async () => {
  const { repo, marker } = await clonedRepo('answered-yes');
  const result = await runAnswering(readmeExample, repo, 'y');
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).not.toContain('not trusted yet');
  expect(existsSync(marker)).toBe(true);
  // The approval is in the trust store, as `mcpx config trust` would have put it.
  const list = await runCli(['list'], { cwd: repo, home: dir.path });
  expect(list.stderr).not.toContain('not trusted yet');
  expect(`${list.stdout}${list.stderr}`).toContain('planted');
});

/** Runs `program` in `cwd` with node through `script`, a shell line that says what its stdin is. */
function runWithStdin(
  program: string,
  cwd: string,
  script: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', script, process.execPath, program], {
      cwd,
      env: programEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

it.each([
  ['from /dev/null', 'dev-null', 'exec "$0" "$1" </dev/null'],
  ['closed', 'closed', 'exec "$0" "$1" <&-'],
  ['an empty pipe', 'piped', 'echo | "$0" "$1"'],
])(
  "the README's createHost example, stdin %s, declines the repository's server cleanly and says how to approve it",
  async (_, name, script) => {
    const { repo, marker } = await clonedRepo(`no-terminal-${name}`);
    const result = await runWithStdin(readmeExample, repo, script);
    expect(result.stderr).not.toContain('ERR_USE_AFTER_CLOSE');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /skipped server 'planted' from .*\.mcp\.json: not trusted yet \(asking the person running this program failed: .*\) — review it and run `mcpx config trust`/,
    );
    // Nothing of the repository ran; the program went on with the servers it may use.
    expect(existsSync(marker)).toBe(false);
    expect(result.stdout).toContain('mcp_demo_echo');
  },
);

it('a host with nobody to ask skips the repository entry with a notice event, and starts nothing', async () => {
  const { repo, marker } = await clonedRepo('nobody-asked');
  const { stdout, stderr } = await run(process.execPath, [nobodyProgram], { cwd: repo, env: programEnv() });
  expect(stderr).toBe('');
  const report = JSON.parse(stdout) as {
    servers: string[];
    untrusted: string[];
    events: { type: string; message: string }[];
  };
  expect(report.servers).toEqual(['demo']);
  expect(report.untrusted).toEqual(['planted']);
  expect(report.events).toEqual([
    expect.objectContaining({
      type: 'notice',
      message: expect.stringMatching(/skipped server 'planted' .*not trusted yet/),
    }),
  ]);
  expect(existsSync(marker)).toBe(false);
});

async function runForced(repo: string): Promise<Record<string, unknown>> {
  const { stdout, stderr } = await run(process.execPath, [forcedProgram], { cwd: repo, env: programEnv() });
  expect(stderr).toBe('');
  return JSON.parse(stdout) as Record<string, unknown>;
}

it("never starts a repository's unapproved server, even when the program hands it to the registry or the connector", async () => {
  const { repo, marker } = await clonedRepo('forced');
  expect(await runForced(repo)).toEqual({
    servers: ['demo'],
    unapproved: ['planted'],
    registry: ['CONFIG_UNTRUSTED'],
    connector: ['CONFIG_UNTRUSTED'],
  });
  expect(existsSync(marker)).toBe(false);

  // ...and starts it once the user approved it with `mcpx config trust`.
  const trust = await runCli(['config', 'trust', '--yes'], { cwd: repo, home: dir.path });
  expect(trust.code, trust.stderr).toBe(0);
  const report = await runForced(repo);
  expect(report.servers).toEqual(['demo', 'planted']);
  expect(report.unapproved).toEqual([]);
  expect(existsSync(marker)).toBe(true);
});
