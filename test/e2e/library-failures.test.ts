/**
 * Issue 38, through library programs: a server that fails is told to the program (a `failure`
 * event with the typed error, and `host.failures()`), not found out by having fewer tools; and a
 * host at `sandboxed` starts nothing and offers no MCP tool, as `mcpx chat` at that level does.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir, testServerPath } from '../helpers/cli.js';

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
let dir: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  dir = await tempDir('mcpx-library-failures-');
});
afterAll(() => dir.remove());

const testServer = (fault?: string, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [testServerPath],
  ...(fault ? { env: { MCPX_TEST_FAULT: fault } } : {}),
  ...extra,
});

async function runProgram(
  program: string,
  servers: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const config = join(dir.path, `${program}.json`);
  await writeFile(config, JSON.stringify({ mcpServers: servers }));
  const { stdout, stderr } = await run(process.execPath, [fixture(program), config], {
    cwd: dir.path,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir.path, MCPX_HOME: join(dir.path, '.mcpx') },
  });
  expect(stderr).toBe('');
  return JSON.parse(stdout) as Record<string, unknown>;
}

it('tells a library program of every server that failed, as events and by host.failures()', async () => {
  const report = await runProgram('library-failures.mjs', {
    good: testServer(),
    missing: { command: join(dir.path, 'no-such-server') },
    crashing: testServer('stderr-exit'),
    silent: testServer('hang-before-initialize', { connect_timeout: 1 }),
    chatty: {
      command: process.execPath,
      args: ['-e', "console.log('Server ready on http://localhost:8080'); setInterval(() => {}, 1e6)"],
    },
    listless: testServer('tools-list-fails'),
  });
  expect(report.servers).toEqual(['good']);
  const failed = {
    missing: 'COMMAND_NOT_FOUND',
    crashing: 'SERVER_CRASHED',
    silent: 'CONNECT_TIMEOUT',
    chatty: 'INVALID_SERVER_OUTPUT',
    listless: 'SERVER_REJECTED',
  };
  expect(report.failures).toEqual(failed);
  const events = report.events as { server: string; code: string; message: string }[];
  expect(Object.fromEntries(events.map((e) => [e.server, e.code]))).toEqual(failed);
  expect(events).toHaveLength(5);
  expect(events.find((e) => e.server === 'missing')?.message).toMatch(
    /^missing is not available: cannot start server 'missing': command '.*no-such-server' not found$/,
  );
  expect(events.find((e) => e.server === 'listless')?.message).toMatch(
    /^'listless' is connected, but listing its tools failed: .*simulated tools\/list failure/,
  );
}, 60_000);

it("at permission 'sandboxed' starts no server, offers no MCP tool, and says why", async () => {
  const marker = join(dir.path, 'sandboxed-server-ran');
  const leaveMark = "require('node:fs').writeFileSync(process.argv[1], 'ran')";
  const report = await runProgram('library-sandboxed.mjs', {
    marking: { command: process.execPath, args: ['-e', leaveMark, marker] },
    good: testServer(),
  });
  expect(report.tools).toEqual([]);
  expect(report.catalogue).toEqual([]);
  expect(report.events).toEqual([
    {
      type: 'notice',
      message: expect.stringContaining(
        "permission 'sandboxed': the agent has no MCP access, so no server is started and no MCP tool is offered",
      ),
    },
  ]);
  expect(existsSync(marker)).toBe(false);
}, 60_000);
