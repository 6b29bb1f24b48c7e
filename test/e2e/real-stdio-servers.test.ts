/**
 * Servers as they are in the wild, through the built CLI with default
 * settings: slow to start, silent until `initialize`, answering what they do
 * not know with an id-less error, exiting on it, crashing at start.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let config: string;

const SERVERS = {
  slow3: { MCPX_TEST_FAULT: 'slow-start', MCPX_TEST_SLOW_START_MS: '3000' },
  slow12: { MCPX_TEST_FAULT: 'slow-start', MCPX_TEST_SLOW_START_MS: '12000' },
  silent: { MCPX_TEST_FAULT: 'silent-until-initialize' },
  idless: { MCPX_TEST_FAULT: 'idless-error-before-initialize' },
  exits: { MCPX_TEST_FAULT: 'exit-before-initialize' },
  crashes: { MCPX_TEST_FAULT: 'stderr-exit' },
  impatient: { MCPX_TEST_FAULT: 'slow-start', MCPX_TEST_SLOW_START_MS: '3000' },
} as const;

beforeAll(async () => {
  dir = await tempDir('mcpx-wild-');
  config = join(dir.path, 'mcp.json');
  const mcpServers = Object.fromEntries(
    Object.entries(SERVERS).map(([name, env]) => [
      name,
      {
        command: process.execPath,
        args: [testServerPath],
        env: { ...env, MCPX_TEST_START_LOG: join(dir.path, `${name}.starts`) },
        ...(name === 'impatient' ? { connect_timeout: 1 } : {}),
      },
    ]),
  );
  await writeFile(config, JSON.stringify({ mcpServers }));
});
afterAll(() => dir.remove());

/** `mcpx tools <name>` with a fresh home (nothing remembered) and default settings. */
function tools(name: string, home = `home-${name}`, extra: string[] = []) {
  return runCli(['--config', config, ...extra, 'tools', name], {
    cwd: dir.path,
    home: join(dir.path, home),
    timeoutMs: 60_000,
  });
}

async function starts(name: string): Promise<number> {
  const log = await readFile(join(dir.path, `${name}.starts`), 'utf8').catch(() => '');
  return log.split('\n').filter(Boolean).length;
}

describe('servers in the wild, default settings', () => {
  it.each([
    ['slow3', 'takes 3 s before it reads stdin'],
    ['silent', 'ignores server/discover and answers only initialize'],
    ['idless', 'answers server/discover with an error that has no id'],
  ])('%s (%s) connects', async (name) => {
    const run = await tools(name);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('echo(message: string)');
    expect(await starts(name)).toBe(1);
  });

  it('slow12 (takes 12 s before it reads stdin) connects', { timeout: 90_000 }, async () => {
    const run = await tools('slow12');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('echo(message: string)');
  });

  it('exits (exits on any request before initialize) is started once more and connects', async () => {
    const run = await tools('exits');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('echo(message: string)');
    expect(await starts('exits')).toBe(2);
    // Remembered: the next command speaks the 2025 handshake at once and starts it once.
    const again = await tools('exits');
    expect(again.code).toBe(0);
    expect(await starts('exits')).toBe(3);
  });

  it('a server that writes to stderr and exits at start is SERVER_CRASHED on every run, started once each', {
    timeout: 180_000,
  }, async () => {
    const runs = 30;
    for (let n = 0; n < runs; n++) {
      const run = await tools('crashes', 'home-crashes', ['--json']);
      expect(run.code, run.stderr).toBe(4);
      expect(run.stdout).toBe('');
      const { error } = JSON.parse(run.stderr) as {
        error: { code: string; exitCode: number; stderrTail: string[] };
      };
      expect(error.code).toBe('SERVER_CRASHED');
      expect(error.exitCode).toBe(1);
      expect(error.stderrTail.at(-1)).toBe('Error: API key missing: set EXAMPLE_API_KEY');
    }
    expect(await starts('crashes')).toBe(runs);
    // Nothing is remembered from a failed connect.
    const cache = await readFile(join(dir.path, 'home-crashes/.mcpx/era-cache.json'), 'utf8').catch(
      () => '{}',
    );
    expect(cache).not.toContain('crashes');
  });

  it('the fix a handshake timeout suggests works: --timeout wins over connect_timeout', async () => {
    const short = await tools('impatient', 'home-impatient', ['--json']);
    expect(short.code).toBe(4);
    const { error } = JSON.parse(short.stderr) as { error: { code: string; fixes: string[] } };
    expect(error.code).toBe('CONNECT_TIMEOUT');
    expect(error.fixes.join('\n')).toContain('--timeout SECONDS');
    const patient = await tools('impatient', 'home-impatient', ['--timeout', '20']);
    expect(patient.stderr).toBe('');
    expect(patient.code).toBe(0);
    expect(patient.stdout).toContain('echo(message: string)');
  });
});
