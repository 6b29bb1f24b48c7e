/**
 * A command settles its host's options before `createHost` and never changes them afterwards
 * (issue 39): `run()` in-process, with every host made from options frozen in place, so a
 * command that assigned one later (a profile, list changes, its features) would fail.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CliIo } from '../../../src/cli/io/io.js';
import { run } from '../../../src/cli/run.js';
import type { HostOptions } from '../../../src/host/index.js';
import { tempDir, testServerPath } from '../../helpers/cli.js';

const made = vi.hoisted(() => [] as object[]);

vi.mock('../../../src/host/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/host/index.js')>();
  return {
    ...real,
    createHost: (options: HostOptions) => {
      made.push(options);
      // In place: the object the command handed over, and the plain settings under it.
      for (const value of Object.values(options))
        if (value && Object.getPrototypeOf(value) === Object.prototype) Object.freeze(value);
      return real.createHost(Object.freeze(options));
    },
  };
});

let dir: { path: string; remove: () => Promise<void> };
let config: string;
beforeAll(async () => {
  dir = await tempDir('mcpx-settled-host-');
  config = join(dir.path, 'mcp.json');
  const server = { command: process.execPath, args: [testServerPath] };
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { t: server, u: server }, profiles: { narrow: { servers: ['t'] } } }),
  );
});
afterAll(() => dir.remove());
beforeEach(() => {
  made.length = 0;
});

async function mcpx(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string | Uint8Array) => (stdout += String(s)) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { PATH: process.env.PATH, HOME: dir.path, MCPX_HOME: join(dir.path, '.mcpx') },
    cwd: dir.path,
    homedir: dir.path,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    interactive: false,
    signal: new AbortController().signal,
  };
  const code = await run(['--config', config, ...argv], io);
  return { code, stdout, stderr };
}

describe('a command makes its host once, from options it never changes', () => {
  it('mcpx call (a one-shot call: no list changes, its own features)', async () => {
    const result = await mcpx('--timeout', '20', 'call', 't.echo', 'message=settled');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('settled');
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ listChanges: false, timeoutMs: 20_000, offerConfigRoots: true });
  }, 30_000);

  it('mcpx exec --profile (the profile is an option of the host, not set on it later)', async () => {
    // An agent that takes whatever flags it is handed, and ends.
    const agent = join(dir.path, 'agent.mjs');
    await writeFile(agent, '');
    const result = await mcpx('exec', '--profile', 'narrow', '--quiet', '--', process.execPath, agent);
    expect(result.code, result.stderr).toBe(0);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ profile: 'narrow' });
  }, 30_000);

  it('mcpx tools (a command with no settings of its own)', async () => {
    const result = await mcpx('tools', 't');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('echo');
    expect(made).toHaveLength(1);
  }, 30_000);

  it('a bad --timeout fails the command with its usage error, before any host is made', async () => {
    const result = await mcpx('--timeout', 'soon', 'call', 't.echo', 'message=x');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--timeout takes a positive number of seconds, got 'soon'");
    expect(made).toHaveLength(0);
  });
});
