/**
 * Issue 38, through the built binary: servers whose stdout mcpx cannot read are failures, told
 * as such. A `tools/list` larger than the server's line limit is a failed listing everywhere a
 * failed listing shows (`list`, `tools`, `doctor`, `--json`, the exit code), with its size, the
 * limit and how to raise it, and the server stays connected. A server that writes only what is
 * not JSON-RPC is named within about a second, with what it wrote, not after the connect timeout;
 * one that prints a banner and then speaks JSON-RPC still works. A server that dies while its
 * tools are listed is that failure, not a server with no tools.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let file: string;
const node = process.execPath;
const server = (fault?: string, extra: Record<string, unknown> = {}) => ({
  command: node,
  args: [testServerPath],
  ...(fault ? { env: { MCPX_TEST_FAULT: fault } } : {}),
  ...extra,
});
// The test server's tools/list is a few KB, in one page: past a 2000-byte limit.
const LIMIT = 2000;

beforeAll(async () => {
  dir = await tempDir('mcpx-unreadable-');
  file = join(dir.path, 'mcp.json');
  await writeFile(
    file,
    JSON.stringify({
      mcpServers: {
        good: server(),
        huge: server(undefined, { max_line_bytes: LIMIT }),
        bad: server('tools-list-fails'),
        dying: server('crash-on-tools-list'),
        // Text, then nothing: a program that is no MCP server on stdio (it serves HTTP, say).
        http: {
          command: node,
          args: [
            '-e',
            "console.log('Listening on http://localhost:8080\\nPress Ctrl-C to stop'); setInterval(() => {}, 1e6)",
          ],
        },
        // Text, over and over.
        ticking: { command: node, args: ['-e', "setInterval(() => console.log('tick'), 20)"] },
        // A banner before serving, and text among its replies: an MCP server all the same.
        banner: server(undefined, {
          env: { MCPX_TEST_FAULT: 'garbage-stdout,slow-start', MCPX_TEST_SLOW_START_MS: '300' },
        }),
      },
    }),
  );
});
afterAll(() => dir.remove());

const mcpx = (args: readonly string[]) =>
  runCli(['--config', file, ...args], { cwd: dir.path, home: join(dir.path, 'home'), timeoutMs: 60_000 });

const tooLarge =
  /server 'huge' answered tools\/list with a \d+\.\d KB message, over the 2000 bytes limit on one message/;

describe('a tools/list larger than the line limit', () => {
  it('is listing-failed in `mcpx list`, as a failed listing is, with the size, the limit and the fix', async () => {
    const run = await mcpx(['list']);
    expect(run.code).toBe(4);
    expect(run.stdout).toMatch(/^huge\s+listing-failed\s+-\s+2026-07-28\s/m);
    expect(run.stdout).toMatch(/^bad\s+listing-failed\s+-\s/m);
    expect(run.stdout).toMatch(/^good\s+ready\s+\d+\s/m);
    expect(run.stderr).toContain("'huge' is connected, but listing its tools failed: ");
    expect(run.stderr).toMatch(tooLarge);
    expect(run.stderr).toMatch(
      /raise the limit for this server: "max_line_bytes": \d+ in its config entry \(now 2000\)/,
    );
  }, 60_000);

  it('is the same row as a failed listing in `mcpx --json list`', async () => {
    const run = await mcpx(['--json', 'list']);
    expect(run.code).toBe(4);
    const rows = JSON.parse(run.stdout) as { name: string; state: string; tools?: number; error?: string }[];
    const huge = rows.find((r) => r.name === 'huge');
    const bad = rows.find((r) => r.name === 'bad');
    expect(huge?.state).toBe('listing-failed');
    expect(huge?.state).toBe(bad?.state);
    expect(huge?.tools).toBeUndefined();
    expect(huge?.error).toMatch(tooLarge);
  }, 60_000);

  it('fails `mcpx tools huge` (never "huge (0 tools)"), and `mcpx tools` leaves it out with its reason', async () => {
    const named = await mcpx(['tools', 'huge']);
    // A list too large to read, like one past the list caps, and as a listing the server refuses.
    expect(named.code).toBe(5);
    expect(named.code).toBe((await mcpx(['tools', 'bad'])).code);
    expect(named.stdout).toBe('');
    expect(named.stderr).toMatch(tooLarge);

    const all = await mcpx(['tools']);
    expect(all.code).not.toBe(0);
    expect(all.stdout).toMatch(/^good \(\d+ tools\)/m);
    expect(all.stdout).not.toMatch(/^huge /m);
    expect(all.stderr).toMatch(tooLarge);
  }, 60_000);

  it('is a FAIL in `mcpx doctor` and in `doctor --json`, with the fix', async () => {
    const run = await mcpx(['doctor']);
    expect(run.code).toBe(5);
    expect(run.stdout).toMatch(/^FAIL\s+huge\s+\d+ ms\s+2026-07-28\s+-\s/m);
    expect(run.stdout).toMatch(tooLarge);
    expect(run.stdout).toContain('"max_line_bytes"');

    const json = await mcpx(['--json', 'doctor']);
    const checks = JSON.parse(json.stdout) as {
      server: string;
      healthy: boolean;
      state: string;
      error?: { code: string; message: string };
    }[];
    const huge = checks.find((c) => c.server === 'huge');
    expect(huge).toMatchObject({
      healthy: false,
      state: 'listing-failed',
      error: { code: 'LIST_TOO_LARGE' },
    });
    expect(checks.find((c) => c.server === 'bad')).toMatchObject({ healthy: false, state: 'listing-failed' });
  }, 60_000);

  it('leaves the server connected: a call that needs no listing still works', async () => {
    const run = await mcpx(['call', 'huge.echo', '{"message":"still here"}']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('still here');
  }, 60_000);
});

describe('a server that dies while its tools are listed', () => {
  it('fails `mcpx tools dying` with its crash, never "dying (0 tools)"', async () => {
    const run = await mcpx(['tools', 'dying']);
    expect(run.code).toBe(4);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("error: server 'dying' exited with code 3");
  }, 60_000);
});

describe('a server that writes only what is not JSON-RPC', () => {
  it.each([
    ['http', '"Listening on http://localhost:8080\\nPress Ctrl-C to stop"'],
    ['ticking', '"tick\\ntick'],
  ])(
    '%s is named within about a second with what it wrote, not after the 30 s connect timeout',
    async (name, quoted) => {
      const started = performance.now();
      const run = await mcpx(['--timeout', '30', 'tools', name]);
      // A bound, not a benchmark: the connect timeout is 30 s.
      expect(performance.now() - started).toBeLessThan(2_500);
      expect(run.code).toBe(4);
      expect(run.stderr).toContain(
        `error: server '${name}' does not speak MCP on stdio: in 1 s it wrote only this to stdout, and no JSON-RPC message: ${quoted}`,
      );
      expect(run.stderr).not.toMatch(/handshake|timed out|connect_timeout/);
    },
    60_000,
  );

  it('gives the causes and fixes with --verbose', async () => {
    const run = await mcpx(['--verbose', 'tools', 'http']);
    expect(run.stderr).toContain('error [INVALID_SERVER_OUTPUT]');
    expect(run.stderr).toContain('it is an MCP server that writes its logs or a banner to stdout');
    expect(run.stderr).toContain('make it log to stderr');
  }, 60_000);

  it('but a server that prints a banner, then speaks JSON-RPC, works', async () => {
    const run = await mcpx(['call', 'banner.echo', 'message=hello']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('hello');
  }, 60_000);
});
