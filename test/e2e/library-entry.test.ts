/**
 * The package's library entry points ('mcpx', 'mcpx/openai') are the bundled build the
 * command uses too: a library user who connects one stdio server loads a few bundled files
 * (one copy of every module, shared between the entries), not hundreds of small ones.
 */

import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot, tempDir, testServerPath } from '../helpers/cli.js';

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
let dir: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  dir = await tempDir('mcpx-library-entry-');
});
afterAll(() => dir.remove());

/**
 * Runs `program` (a fixture that uses the library on a config with one stdio server, `bench`)
 * under record-loads.mjs; resolves the lines it recorded: loaded URLs, and whatever the program adds.
 */
async function runRecorded(program: string, name: string): Promise<string[]> {
  const config = join(dir.path, `${name}.json`);
  const server = [fixture('method-log-server.mjs'), join(dir.path, `${name}.log`)];
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: server } } }),
  );
  const record = join(dir.path, `${name}.txt`);
  const { stdout, stderr } = await run(
    process.execPath,
    [`--import=${fixture('record-loads.mjs')}`, fixture(program), config],
    {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir.path,
        MCPX_HOME: join(dir.path, '.mcpx'),
        MCPX_RECORD_LOADS: record,
      },
    },
  );
  expect(stderr).toBe('');
  expect(stdout).toBe('from the library\nfunction function\n');
  return (await readFile(record, 'utf8')).split('\n');
}

it('import from mcpx and mcpx/openai loads only the bundled files, and calls a tool', async () => {
  const files = (await runRecorded('library-user.mjs', 'loads'))
    .filter((u) => u.startsWith('file:'))
    .map((u) => fileURLToPath(u))
    .filter((f) => !f.startsWith(join(repoRoot, 'test')));
  const outside = files.filter((f) => !f.startsWith(join(repoRoot, 'dist', 'bin')));
  // No module of dist/ outside the bundle, and no dependency file: the SDK and zod are in it.
  expect(outside).toEqual([]);
  expect(files).toContain(join(repoRoot, 'dist', 'bin', 'index.js'));
  expect(files).toContain(join(repoRoot, 'dist', 'bin', 'openai.js'));
  // ajv (argument validation for agents) loads on the first schema, not with the library.
  const sources = await Promise.all(files.map((f) => readFile(f, 'utf8')));
  expect(files.filter((_, i) => sources[i]?.includes('node_modules/ajv/'))).toEqual([]);
});

it('import from mcpx loads no protocol code: the server is spawned first, the SDK loads while it boots', async () => {
  const lines = (await runRecorded('library-spawn-order.mjs', 'spawn-order')).filter(
    (l) => l.startsWith('file:') || l.startsWith('spawn '),
  );
  const spawnAt = lines.indexOf(`spawn ${process.execPath}`);
  expect(spawnAt).toBeGreaterThan(0);
  // The SDK and zod (the schemas they build at load) mark the protocol code.
  const protocol = /\bZodObject\b|\bLATEST_PROTOCOL_VERSION\b/;
  const holdsProtocol = async (url: string) =>
    url.startsWith('file:') && protocol.test(await readFile(fileURLToPath(url), 'utf8'));
  const before = lines.slice(0, spawnAt);
  const after = lines.slice(spawnAt + 1);
  expect(before.some((l) => l.endsWith('/dist/bin/index.js'))).toBe(true);
  expect(await Promise.all(before.map(holdsProtocol))).not.toContain(true);
  expect(await Promise.all(after.map(holdsProtocol))).toContain(true);
});

it('validates against a JSON Schema from the bundle, ajv loaded on that first schema', async () => {
  const { stdout } = await run(process.execPath, [fixture('library-validate.mjs')]);
  expect(JSON.parse(stdout)).toEqual([
    { ok: true },
    { ok: false, problems: [{ path: '', message: "missing required property 'count'" }] },
    { ok: false, problems: [{ path: '/count', message: 'must be integer' }] },
  ]);
});

it('a program disposes of a connection and of the host (Symbol.asyncDispose): their servers end', async () => {
  const startLog = join(dir.path, 'dispose-starts.log');
  const server = {
    command: process.execPath,
    args: [testServerPath],
    env: { MCPX_TEST_START_LOG: startLog },
  };
  const config = join(dir.path, 'dispose.json');
  await writeFile(config, JSON.stringify({ mcpServers: { a: server, b: server } }));
  const { stdout, stderr } = await run(process.execPath, [fixture('library-dispose.mjs'), config, startLog], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir.path, MCPX_HOME: join(dir.path, '.mcpx') },
  });
  expect(stderr).toBe('');
  expect(stdout).toBe('connection closed: true\nservers started: 3, still running: 0\n');
});
