/**
 * Every command of the built CLI against a server whose every string carries a right-to-left
 * override, a zero-width space, a tag character and escape sequences (7-bit and C1): human output shows them as
 * `<U+XXXX>` (and drops the escapes), `--json` keeps the exact text.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POISON } from '../../src/testing/hostile-server.js';
import { type CliRun, cliPath, repoRoot, runCli, tempDir } from '../helpers/cli.js';

const hostileServerPath = join(repoRoot, 'dist/testing/hostile-server.js');
const RAW = ['\u202E', '\u200B', '\u{E0041}', '\u001b', '\u0007', '\u009b'];
/** How the poison reads once neutralised: hidden characters shown, escape sequences gone. */
const SHOWN = '<U+202E>evil<U+200B>zw<U+E0041>tag';

let dir: { path: string; remove: () => Promise<void> };
let hostile: string;
let crashing: string;
beforeAll(async () => {
  dir = await tempDir('mcpx-hostile-');
  hostile = join(dir.path, 'hostile.json');
  crashing = join(dir.path, 'crashing.json');
  const entry = { command: process.execPath, args: [hostileServerPath] };
  await writeFile(hostile, JSON.stringify({ mcpServers: { h: entry } }));
  await writeFile(
    crashing,
    JSON.stringify({ mcpServers: { h: { ...entry, env: { MCPX_HOSTILE_CRASH: '1' } } } }),
  );
});
afterAll(() => dir.remove());

const mcpx = (config: string, args: string[]) =>
  runCli(['--config', config, ...args], { cwd: dir.path, home: join(dir.path, 'home'), timeoutMs: 45_000 });

function expectNeutralised(run: CliRun, labels: readonly string[]): void {
  const out = `${run.stdout}${run.stderr}`;
  for (const raw of RAW)
    expect(out.includes(raw), `raw U+${raw.codePointAt(0)?.toString(16)} in:\n${out}`).toBe(false);
  // Prefixes only: tables and summaries may cut the rest of a line.
  for (const label of labels) expect(out).toContain(`${label}<U+202E>`);
  if (labels.length) expect(out).toContain(SHOWN);
}

/** Every string in a parsed JSON value, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, v]) => [key, ...strings(v)]);
  return [];
}

function expectExactInJson(run: CliRun, labels: readonly string[]): void {
  // Escaped on the wire: a terminal showing the JSON is not steered either.
  for (const raw of RAW) expect(`${run.stdout}${run.stderr}`.includes(raw)).toBe(false);
  // stdout holds the result; stderr one JSON error per line (and, with --verbose, notices).
  const documents = [
    ...(run.stdout.trim() ? [JSON.parse(run.stdout)] : []),
    ...run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line)),
  ];
  const all = documents.flatMap(strings);
  for (const label of labels) expect(all).toContain(`${label}${POISON}`);
}

const human: [string, string[], number, string[]][] = [
  ['tools', ['tools', 'h'], 0, ['param', 'description', 'named']],
  ['tools --schema', ['tools', 'h', '--schema'], 0, ['param', 'param description', 'named']],
  ['call: text and resource link', ['call', 'h.poison'], 0, ['text content', 'link title', 'test://link']],
  ['call: structured content only', ['call', 'h.structured'], 0, ['key', 'structured value']],
  ['call: a tool error result', ['call', 'h.fail'], 5, ['tool error']],
  ['call: a JSON-RPC error', ['call', 'h.reject'], 5, ['json-rpc error']],
  ['read', ['read', 'h', 'test://poison.txt'], 0, ['resource text']],
  ['resources', ['resources', 'h'], 0, ['resource description', 'text/plain']],
  ['templates', ['templates', 'h'], 0, ['test://poison/{id}', 'template description', 'text/plain']],
  ['prompts', ['prompts', 'h'], 0, ['arg', 'prompt description']],
  ['prompt', ['prompt', 'h.poison'], 0, ['rendered description', 'prompt message']],
  ['log messages under --verbose', ['--verbose', 'call', 'h.poison'], 0, ['logger', 'log message']],
  // No server text in a ping table: this guards against a column that would print some.
  ['ping', ['ping', 'h'], 0, []],
];

describe('human output of server text', () => {
  for (const [what, args, code, labels] of human) {
    it(`${what}: hidden characters shown as <U+XXXX>, escapes dropped`, { timeout: 60_000 }, async () => {
      const run = await mcpx(hostile, args);
      expect(run.code, run.stderr).toBe(code);
      expectNeutralised(run, labels);
    });
  }

  it("doctor, list and call --verbose: a crashed server's stderr tail", { timeout: 60_000 }, async () => {
    const doctor = await mcpx(crashing, ['doctor']);
    expect(doctor.code).toBe(4);
    expectNeutralised(doctor, ['stderr line one', 'stderr line two']);
    const verbose = await mcpx(crashing, ['--verbose', 'call', 'h.poison']);
    expect(verbose.code).toBe(4);
    expectNeutralised(verbose, ['h stderr: stderr line one']);
    const list = await mcpx(crashing, ['--verbose', 'list']);
    expect(list.code).toBe(4);
    expectNeutralised(list, ['h stderr: stderr line one', '    | stderr line two']);
  });

  // Progress is drawn only on a terminal: `script` gives the CLI one.
  const script = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
  it.runIf(process.platform === 'linux' && script)(
    'progress messages on a terminal',
    { timeout: 60_000 },
    () => {
      const command = [process.execPath, cliPath, '--config', hostile, 'call', 'h.poison']
        .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
        .join(' ');
      const out = execFileSync(script as string, ['-qec', command, '/dev/null'], {
        cwd: dir.path,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: join(dir.path, 'home'),
          MCPX_HOME: join(dir.path, 'home', '.mcpx'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 45_000,
      }).toString('utf8');
      // The bar itself is mcpx's own drawing (\r, ESC[2K); the server's message must be neutralised.
      const ours = out.replace(/\r|\u001b\[2K/g, '');
      expect(ours, JSON.stringify(out)).toContain('% progress<U+202E>');
      expectNeutralised({ code: 0, signal: null, stdout: ours, stderr: '' }, ['progress', 'text content']);
    },
  );
});

const machine: [string, 'hostile' | 'crashing', string[], number, string[]][] = [
  ['tools', 'hostile', ['tools', 'h'], 0, ['param', 'description', 'named', 'param description']],
  [
    'call',
    'hostile',
    ['call', 'h.poison'],
    0,
    ['text content', 'link title', 'test://link', 'structured value'],
  ],
  ['call: a tool error result', 'hostile', ['call', 'h.fail'], 5, ['tool error']],
  ['call: a JSON-RPC error', 'hostile', ['call', 'h.reject'], 5, []],
  ['read', 'hostile', ['read', 'h', 'test://poison.txt'], 0, ['resource text']],
  ['resources', 'hostile', ['resources', 'h'], 0, ['resource description']],
  ['templates', 'hostile', ['templates', 'h'], 0, ['template description']],
  ['prompts', 'hostile', ['prompts', 'h'], 0, ['prompt description', 'arg']],
  ['prompt', 'hostile', ['prompt', 'h.poison'], 0, ['rendered description', 'prompt message']],
  ['list', 'crashing', ['list', '--verbose'], 4, ['stderr line one']],
];

describe('--json keeps the exact text', () => {
  for (const [what, config, args, code, labels] of machine) {
    it(`${what}`, { timeout: 60_000 }, async () => {
      const run = await mcpx(config === 'hostile' ? hostile : crashing, ['--json', ...args]);
      expect(run.code, run.stderr).toBe(code);
      expectExactInJson(run, labels);
    });
  }

  it('a JSON-RPC error message is exact in the JSON error', { timeout: 60_000 }, async () => {
    const run = await mcpx(hostile, ['--json', 'call', 'h.reject']);
    const error = JSON.parse(run.stderr.trim().split('\n').at(-1) ?? '');
    expect(error.error.message).toContain(`json-rpc error${POISON}`);
  });
});
