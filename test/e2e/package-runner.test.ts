/**
 * Servers started through a package runner (issue 24, item 1), through the built CLI. A fake
 * `npx` first in PATH (test/fixtures/package-runner/npx) installs slowly by npm's rules — into
 * `$npm_config_cache/_npx/<hash>`, under the folder's `concurrency.lock`, package.json last —
 * then runs the test server. The connect timeout is 5 s and each install takes 12 s: the
 * installs must have a budget of their own, and must never be killed midway.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliRunOptions, repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { isAlive, listProcesses, readCommandLine } from '../helpers/processes.js';

const FAKE_RUNNER_DIR = join(repoRoot, 'test/fixtures/package-runner');
const FILES = 24;
const INSTALL_MS = 12_000;

let dir: { path: string; remove: () => Promise<void> };
let cache: string;
let home: string;

beforeEach(async () => {
  dir = await tempDir('mcpx-runner-');
  cache = join(dir.path, 'npm-cache');
  home = join(dir.path, 'home');
  await mkdir(cache);
  await mkdir(home);
});
afterEach(() => dir.remove());

const spec = (i: number) => `fake-server-${i}`;

/** npm's folder for a package: `_npx/` + the first 16 hex digits of the SHA-512 of its spec. */
const folderOf = (i: number) =>
  join(cache, '_npx', createHash('sha512').update(spec(i)).digest('hex').slice(0, 16));

/** What an install left: nothing, a finished install, or a half-written folder. */
function installState(i: number): 'absent' | 'complete' | 'half-written' {
  const folder = folderOf(i);
  if (!existsSync(folder)) return 'absent';
  const files = join(folder, 'node_modules', spec(i));
  const complete =
    existsSync(join(folder, 'package.json')) &&
    !existsSync(join(folder, 'concurrency.lock')) &&
    existsSync(files) &&
    readdirSync(files).length === FILES;
  return complete ? 'complete' : 'half-written';
}

async function writeConfig(
  count: number,
  extra: Record<string, unknown> = {},
  installMs = INSTALL_MS,
): Promise<string> {
  const servers: Record<string, unknown> = {};
  for (let i = 1; i <= count; i++) {
    servers[`s${i}`] = {
      command: 'npx',
      args: ['-y', spec(i)],
      connect_timeout: 5,
      // mcpx passes servers only safe variables: the cache and the fake's settings are named here.
      env: {
        npm_config_cache: cache,
        FAKE_NPX_SERVER: testServerPath,
        FAKE_NPX_FILES: String(FILES),
        FAKE_NPX_INSTALL_MS: String(installMs),
      },
      ...extra,
    };
  }
  const file = join(dir.path, 'mcp.json');
  await writeFile(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

function mcpx(args: string[], options: Partial<CliRunOptions> = {}) {
  return runCli(args, {
    cwd: dir.path,
    home,
    timeoutMs: 90_000,
    ...options,
    env: { PATH: `${FAKE_RUNNER_DIR}${delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`, ...options.env },
  });
}

let polls: NodeJS.Timeout[] = [];
afterEach(() => {
  for (const poll of polls) clearInterval(poll);
  polls = [];
});

/** Calls `then` once every server's runner holds its folder's lock, with files already written. */
function whenAllInstalling(count: number, then: () => void): void {
  const poll = setInterval(() => {
    for (let i = 1; i <= count; i++) {
      const files = join(folderOf(i), 'node_modules', spec(i));
      if (!existsSync(join(folderOf(i), 'concurrency.lock')) || !existsSync(files)) return;
      if (readdirSync(files).length < 3) return;
    }
    clearInterval(poll);
    then();
  }, 100);
  polls.push(poll);
}

const all = (count: number) => Array.from({ length: count }, (_, i) => installState(i + 1));

describe('six servers whose package runner installs for 12 s, connect_timeout 5 s', () => {
  it('all connect, every install is complete, and the warm start says nothing of installing', async () => {
    const file = await writeConfig(6);
    const cold = await mcpx(['--config', file, 'list']);
    expect(cold.code, cold.stdout + cold.stderr).toBe(0);
    for (let i = 1; i <= 6; i++) expect(cold.stdout).toMatch(new RegExp(`^s${i}\\s+ready\\s+10\\b`, 'm'));
    expect(all(6)).toEqual(Array(6).fill('complete'));

    const warm = await mcpx(['--config', file, 'list', '--verbose']);
    expect(warm.code, warm.stdout + warm.stderr).toBe(0);
    expect(warm.stderr).not.toContain('installing');
  }, 120_000);

  it('a Ctrl-C during the installs waits for them to finish, saying so, and leaves them complete', async () => {
    const file = await writeConfig(6);
    const run = await mcpx(['--config', file, 'list', '--verbose'], {
      onSpawn: (pid) => whenAllInstalling(6, () => process.kill(pid, 'SIGINT')),
    });
    expect(all(6)).toEqual(Array(6).fill('complete'));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('s1: waiting for npx to finish installing fake-server-1 before stopping it');
  }, 120_000);

  it('a second Ctrl-C stops the installs at once and removes what they wrote', async () => {
    const file = await writeConfig(6);
    let interrupted: number | undefined;
    const run = await mcpx(['--config', file, 'list', '--verbose'], {
      onSpawn: (pid) =>
        whenAllInstalling(6, () => {
          interrupted = Date.now();
          process.kill(pid, 'SIGINT');
          setTimeout(() => process.kill(pid, 'SIGINT'), 1_000);
        }),
    });
    expect(run.code).toBe(130);
    expect(Date.now() - (interrupted ?? 0)).toBeLessThan(INSTALL_MS / 2);
    expect(all(6)).toEqual(Array(6).fill('absent'));
  }, 120_000);

  it('an install that outlasts install_timeout is stopped and removed, and the error says so', async () => {
    const file = await writeConfig(1, { install_timeout: 3 });
    const run = await mcpx(['--config', file, 'tools', 's1']);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("error: 's1': npx was still installing fake-server-1 after 3 s");
    expect(run.stderr).toContain('raise install_timeout');
    expect(installState(1)).toBe('absent');
  }, 60_000);
});

/** The fake npx processes running for `pkg`. */
function fakeRunners(pkg: string): number[] {
  return listProcesses()
    .filter((p) => {
      const line = readCommandLine(p.pid) ?? [];
      return line.some((a) => a.endsWith(join('package-runner', 'npx'))) && line.includes(pkg);
    })
    .map((p) => p.pid);
}

describe('an install whose mcpx was killed with kill -9', () => {
  it("is rolled back at the next start, not waited out for npm's 60 s stale lock", async () => {
    // The runner ignores the watchdog's SIGTERM mid-step (as npm's reify does), so the
    // watchdog's SIGKILL ends it holding its lock: what a real npx left here (issue 38).
    const file = await writeConfig(1, {}, 6_000);
    const config = JSON.parse(await readFile(file, 'utf8')) as {
      mcpServers: { s1: { env: Record<string, string> } };
    };
    config.mcpServers.s1.env.FAKE_NPX_TERM_MIDSTEP = '1';
    await writeFile(file, JSON.stringify(config));
    let runners: number[] = [];
    const killed = await mcpx(['--config', file, 'tools', 's1'], {
      onSpawn: (pid) =>
        whenAllInstalling(1, () => {
          runners = fakeRunners(spec(1));
          process.kill(pid, 'SIGKILL');
        }),
    });
    expect(killed.signal).toBe('SIGKILL');
    // The watchdog ends the runner; its lock stays, as npm's did.
    expect(runners).toHaveLength(1);
    await expect.poll(() => runners.filter(isAlive), { timeout: 10_000 }).toEqual([]);
    expect(existsSync(join(folderOf(1), 'concurrency.lock'))).toBe(true);
    expect(installState(1)).toBe('half-written');

    const started = Date.now();
    const next = await mcpx(['--config', file, 'tools', 's1', '--verbose'], { timeoutMs: 120_000 });
    const seconds = (Date.now() - started) / 1000;
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('s1 (10 tools)');
    expect(next.stderr).toContain(
      `s1: npx was stopped before it finished installing fake-server-1; removed ${folderOf(1)}`,
    );
    // A fresh 6 s install, not npm's 60 s wait for the abandoned lock first.
    expect(seconds).toBeLessThan(40);
    expect(installState(1)).toBe('complete');
    expect(readdirSync(folderOf(1)).filter((name) => name.startsWith('.mcpx-installer-'))).toEqual([]);
  }, 180_000);
});

describe('a package runner mcpx cannot watch (uvx)', () => {
  it('gets the install budget on top of the connect timeout on its first start', async () => {
    // The same slow installer, under another runner's name: its install is not watched.
    const file = await writeConfig(1, { command: 'uvx', args: [spec(1)] }, 8_000);
    const run = await mcpx(['--config', file, 'tools', 's1']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('s1 (10 tools)');
  }, 60_000);
});

describe('a damaged _npx folder', () => {
  it('is named with the command that removes it, and removing it cures the server', async () => {
    const file = await writeConfig(1, {}, 1_000);
    // What a killed install leaves: packages without package.json; one imports a file never written.
    const folder = folderOf(1);
    await mkdir(join(folder, 'node_modules', spec(1)), { recursive: true });
    await writeFile(join(folder, 'node_modules', spec(1), 'index.js'), "import '../zod/index.js';\n");
    await writeFile(join(folder, 'node_modules', spec(1), 'package.json'), '{"type":"module"}\n');

    const run = await mcpx(['--config', file, 'tools', 's1']);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(`rm -rf '${folder}'`);
    expect(run.stderr).not.toContain('npm install');

    const json = await mcpx(['--config', file, 'tools', 's1', '--json']);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'NPX_CACHE_DAMAGED', folder });

    await rm(folder, { recursive: true, force: true });
    const cured = await mcpx(['--config', file, 'tools', 's1']);
    expect(cured.code, cured.stderr).toBe(0);
  }, 60_000);
});
