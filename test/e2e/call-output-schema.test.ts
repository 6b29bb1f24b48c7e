/**
 * A tool's outputSchema is still enforced now that the JSON-schema validator (ajv) loads on the
 * first schema instead of at start (src/client/sdk-shims.ts), and a call on tools without one
 * never loads it: that is the cold call's saving.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
let dir: { path: string; remove: () => Promise<void> };
let config: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-output-schema-');
  config = join(dir.path, 'mcp.json');
  const server = (...args: string[]) => ({
    command: process.execPath,
    args: [fixture('output-schema-server.mjs'), ...args],
  });
  await writeFile(config, JSON.stringify({ mcpServers: { shaped: server(), plain: server('--plain') } }));
});
afterAll(() => dir.remove());

/** Run `mcpx call`, recording every file it loads (ES modules and required CommonJS alike). */
async function call(target: string, arg: string, name: string) {
  const record = join(dir.path, `${name}.txt`);
  const run = await runCli(['--config', config, 'call', target, arg], {
    cwd: dir.path,
    home: join(dir.path, 'home'),
    env: { MCPX_RECORD_LOADS: record, NODE_OPTIONS: `--import=${fixture('record-loads.mjs')}` },
  });
  const loaded = (await readFile(record, 'utf8')).split('\n').filter((u) => u.startsWith('file:'));
  const sources = await Promise.all(loaded.map((u) => readFile(fileURLToPath(u), 'utf8')));
  const loadedAjv = sources.some((s) => /\bAjvJsonSchemaValidator = class\b/.test(s));
  return { ...run, loadedAjv };
}

describe('a tool with an outputSchema', () => {
  it('prints a structured result that matches it, having loaded the validator', async () => {
    const run = await call('shaped.measure', 'size=3', 'good');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('size 3\n');
    expect(run.code).toBe(0);
    expect(run.loadedAjv).toBe(true);
  });

  it('refuses a structured result that breaks it', async () => {
    const run = await call('shaped.measure', 'size=big', 'bad');
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/does not match the tool's output schema: data\/size must be number/);
    expect(run.code).not.toBe(0);
  });
});

it('a call on tools without an outputSchema never loads the validator', async () => {
  const run = await call('plain.echo', 'message=light', 'plain');
  expect(run.stderr).toBe('');
  expect(run.stdout).toBe('light\n');
  expect(run.code).toBe(0);
  expect(run.loadedAjv).toBe(false);
});
