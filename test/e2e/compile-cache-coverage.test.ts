/**
 * V8's compile cache (Node >= 22.1) covers the chunks a cold call loads. mcpx turns it on in
 * `dist/bin/cli.js` before importing the CLI; whatever that file imports statically is compiled
 * before then and never cached. When it re-exported the terminal prompts, their chunks pulled in
 * the CLI's largest chunk that way (issue 44): every call compiled it afresh.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import * as nodeModule from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, tempDir, testServerPath } from '../helpers/cli.js';

const recorder = fileURLToPath(new URL('../fixtures/record-loads.mjs', import.meta.url));

/** A Node with `module.enableCompileCache`: this one, or the Node 24 of `node24/` (as CI installs it). */
function nodeWithCompileCache(): string | undefined {
  if (typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function')
    return process.execPath;
  const node24 = join(repoRoot, 'node24/node_modules/node/bin/node');
  return existsSync(node24) ? node24 : undefined;
}
const node = nodeWithCompileCache();

/** What cli.js loads before it turns the cache on: itself, its boot chunk and the bundler's runtime. */
const BEFORE_THE_CACHE = /^bin\/(cli\.js|chunks\/(boot|rolldown-runtime)-[\w-]+\.js)$/;

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('mcpx-compile-cache-');
});
afterAll(() => dir.remove());

/** One cold call on `node`: its stderr (Node's compile-cache log) and the ES modules of dist/ it loaded. */
function call(nodePath: string, name: string): Promise<{ stderr: string; loaded: string[] }> {
  const record = join(dir.path, `${name}.txt`);
  return new Promise((resolve, reject) => {
    const child = spawn(
      nodePath,
      [cliPath, '--config', join(dir.path, 'mcp.json'), 'call', 'demo.echo', 'message=cached'],
      {
        cwd: dir.path,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: dir.path,
          MCPX_HOME: join(dir.path, '.mcpx'),
          NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
          MCPX_RECORD_LOADS: record,
          NODE_OPTIONS: `--import=${recorder}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', async (code) => {
      try {
        expect(stdout).toBe('cached\n');
        expect(code).toBe(0);
        const dist = join(repoRoot, 'dist');
        const loaded = [...new Set((await readFile(record, 'utf8')).split('\n'))]
          .filter((u) => u.startsWith('file:') && u.endsWith('.js'))
          .map((u) => relative(dist, fileURLToPath(u)).replaceAll('\\', '/'))
          .filter((f) => f.startsWith('bin/'));
        resolve({ stderr, loaded });
      } catch (error) {
        reject(error);
      }
    });
  });
}

describe('the compile cache on a cold call', () => {
  it.skipIf(node === undefined)(
    'the second call takes every chunk it loads after cli.js from the cache, the CLI chunk included',
    async () => {
      const nodePath = node as string;
      await writeFile(
        join(dir.path, 'mcp.json'),
        JSON.stringify({ mcpServers: { demo: { command: nodePath, args: [testServerPath] } } }),
      );
      await call(nodePath, 'first');
      const { stderr, loaded } = await call(nodePath, 'second');
      const afterTheCache = loaded.filter((f) => !BEFORE_THE_CACHE.test(f));
      // The CLI's chunk (the call command, the host, the config) is among them.
      expect(afterTheCache.some((f) => /^bin\/chunks\/cli-/.test(f))).toBe(true);
      const uncached = afterTheCache.filter(
        (f) => !stderr.includes(`for ESM file://${join(repoRoot, 'dist', f)} was accepted`),
      );
      expect(uncached).toEqual([]);
    },
  );
});
