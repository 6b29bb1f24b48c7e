/**
 * What most users' configs do: start a reference server with `npx -y <package>`. From an
 * empty npm cache, npx first downloads the package and its dependencies, so the server is
 * silent for many seconds before it reads its first message. `mcpx tools` with default
 * settings must still list its tools. Needs the npm registry; skipped (saying so) without it.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const PACKAGE = '@modelcontextprotocol/server-memory';
const MEMORY_TOOLS = ['create_entities', 'create_relations', 'read_graph', 'search_nodes'];

let dir: { path: string; remove: () => Promise<void> };

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
            env: { npm_config_cache: cache, MEMORY_FILE_PATH: join(dir.path, 'memory.jsonl') },
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
