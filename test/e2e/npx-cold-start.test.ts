/**
 * What most users' configs do: start a reference server with `npx -y <package>`. From an
 * empty npm cache, npx first downloads the package and its dependencies, so the server is
 * silent for many seconds before it reads its first message. `mcpx tools` with default
 * settings must still list its tools. Needs the npm registry; skipped (saying so) without it.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npxHash } from '../../src/transport/stdio/runner/npx-folder.js';
import { runCli, tempDir } from '../helpers/cli.js';

const PACKAGE = '@modelcontextprotocol/server-memory';
const MEMORY_TOOLS = ['create_entities', 'create_relations', 'read_graph', 'search_nodes'];

let dir: { path: string; remove: () => Promise<void> };

/**
 * The machine's own npm settings file, when CI names it: npm finds its global config beside the
 * node it runs on, so under the npm `node` package (CI's Node 24 run) it would miss the machine's
 * (and the certificate authority it names for the registry). Carried to every npm the test starts.
 */
const machineNpm: Record<string, string> = process.env.npm_config_globalconfig
  ? { npm_config_globalconfig: process.env.npm_config_globalconfig }
  : {};

beforeAll(async () => {
  dir = await tempDir('mcpx-npx-');
});
// Removes the npm caches too: they live inside `dir`.
afterAll(() => dir.remove());

/** Whether the registry answers (in its own throwaway cache, so the server's stays empty); the reason when not. */
async function registryUnreachable(home: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)('npm', ['view', PACKAGE, 'version'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        npm_config_cache: join(dir.path, 'probe-cache'),
        npm_config_update_notifier: 'false',
        ...machineNpm,
      },
      timeout: 30_000,
    });
    return /^\d+\.\d+\.\d+/.test(stdout.trim()) ? undefined : `unexpected answer '${stdout.trim()}'`;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

describe('a reference server started with npx -y from an empty npm cache', () => {
  it('lists its tools through the built CLI with default settings', async (ctx) => {
    const home = join(dir.path, 'home');
    await mkdir(home, { recursive: true });
    const unreachable = await registryUnreachable(home);
    if (unreachable) {
      ctx.skip(`npm registry unreachable: ${unreachable}`);
      return;
    }
    const cache = join(dir.path, 'npm-cache');
    await mkdir(cache);
    const file = join(dir.path, 'mcp.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: 'npx',
            args: ['-y', PACKAGE],
            // mcpx passes servers only safe variables: the empty cache has to be named here.
            env: { npm_config_cache: cache, MEMORY_FILE_PATH: join(dir.path, 'memory.jsonl'), ...machineNpm },
          },
        },
      }),
    );
    const started = Date.now();
    const run = await runCli(['--config', file, 'tools', 'memory'], {
      cwd: dir.path,
      home,
      timeoutMs: 150_000,
    });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    expect(
      { code: run.code, stderr: run.stderr },
      `mcpx tools memory (${seconds} s) printed:\n${run.stdout}${run.stderr}`,
    ).toEqual({ code: 0, stderr: '' });
    for (const tool of MEMORY_TOOLS) expect(run.stdout).toContain(`${tool}(`);
  }, 180_000);
});

// Three servers at once, from one empty cache (issue 24, item 1): each first install is
// watched and given a budget of its own, so a connect timeout shorter than the installs
// (8 s; they took 17–20 s here) still lets all three connect; then a second run, warm.
const THREE = {
  memory: '@modelcontextprotocol/server-memory',
  everything: '@modelcontextprotocol/server-everything',
  thinking: '@modelcontextprotocol/server-sequential-thinking',
};
const probeHome = await tempDir('mcpx-npx-probe-');
const unreachable = await registryUnreachableAt(probeHome.path);
await probeHome.remove();

/** Whether the registry answers, asked from a throwaway cache; the reason when not. */
async function registryUnreachableAt(root: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)('npm', ['view', PACKAGE, 'version'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: root,
        npm_config_cache: join(root, 'cache'),
        npm_config_update_notifier: 'false',
        ...machineNpm,
      },
      timeout: 30_000,
    });
    return /^\d+\.\d+\.\d+/.test(stdout.trim()) ? undefined : `unexpected answer '${stdout.trim()}'`;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

describe('three reference servers started with npx -y at once, from an empty npm cache', () => {
  it.skipIf(unreachable !== undefined)(
    `all connect cold with connect_timeout 8 s, every _npx folder finished, then warm${unreachable ? ` (skipped: npm registry unreachable: ${unreachable})` : ''}`,
    async () => {
      const home = join(dir.path, 'home3');
      const cache = join(dir.path, 'npm-cache3');
      await mkdir(home, { recursive: true });
      await mkdir(cache);
      const servers = Object.fromEntries(
        Object.entries(THREE).map(([name, pkg]) => [
          name,
          {
            command: 'npx',
            args: ['-y', pkg],
            connect_timeout: 8,
            env: {
              npm_config_cache: cache,
              MEMORY_FILE_PATH: join(dir.path, 'memory3.jsonl'),
              ...machineNpm,
            },
          },
        ]),
      );
      const file = join(dir.path, 'mcp3.json');
      await writeFile(file, JSON.stringify({ mcpServers: servers }));
      for (const run of ['cold', 'warm']) {
        const started = Date.now();
        const result = await runCli(['--config', file, 'list'], { cwd: dir.path, home, timeoutMs: 240_000 });
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        expect(result.code, `${run} mcpx list (${seconds} s):\n${result.stdout}${result.stderr}`).toBe(0);
        for (const name of Object.keys(THREE))
          expect(result.stdout).toMatch(new RegExp(`^${name}\\s+ready`, 'm'));
      }
      const folders = readdirSync(join(cache, '_npx'));
      // mcpx's reading of npm's folder rule names the folders npm made.
      expect(folders.sort()).toEqual(
        Object.values(THREE)
          .map((pkg) => npxHash([pkg]))
          .sort(),
      );
      for (const folder of folders) {
        expect(existsSync(join(cache, '_npx', folder, 'package.json'))).toBe(true);
        expect(existsSync(join(cache, '_npx', folder, 'concurrency.lock'))).toBe(false);
      }
    },
    300_000,
  );
});
