// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the config syntax under test
/**
 * Issue 24, items 5 and 7, through the built binary: every failure is told by
 * default — a server whose listing fails is not "ready 0" in `list`, `tools`,
 * `doctor` or the shell; a garbled reply fails its request at once, naming the
 * line; `--json` leaves exactly one JSON object on stderr — and a disabled
 * server is inert (an unset `${VAR}` in it is no error anywhere).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { gatewayWorld } from '../helpers/gateway.js';
import { type PtyRun, runInPty } from '../helpers/pty.js';

let dir: { path: string; remove: () => Promise<void> };
let file: string;
const node = process.execPath;
const server = (fault?: string) => ({
  command: node,
  args: [testServerPath],
  ...(fault ? { env: { MCPX_TEST_FAULT: fault } } : {}),
});

beforeAll(async () => {
  dir = await tempDir('mcpx-failures-');
  file = join(dir.path, 'mcp.json');
  await writeFile(
    file,
    JSON.stringify({
      mcpServers: {
        good: server(),
        bad: server('tools-list-fails'),
        noprompts: server('prompts-list-fails'),
        garbled: server('malformed-reply'),
        // Prints plain text to stdout before and during requests: never taken for a reply.
        chatty: server('garbage-stdout'),
      },
    }),
  );
});
afterAll(() => dir.remove());

const mcpx = (args: readonly string[], extra: { cwd?: string; home?: string } = {}) =>
  runCli(['--config', file, ...args], {
    cwd: extra.cwd ?? dir.path,
    home: extra.home ?? join(dir.path, 'home'),
    timeoutMs: 60_000,
  });

/** stderr must be one JSON object (and only that). */
function oneJsonObject(stderr: string): Record<string, unknown> {
  const text = stderr.trim();
  expect(text.split('\n')).toHaveLength(1);
  const value: unknown = JSON.parse(text);
  expect(value).toBeTypeOf('object');
  return value as Record<string, unknown>;
}

describe('a server whose tool listing fails', () => {
  it('is listing-failed in `mcpx list`, with the reason, and the exit code says so', async () => {
    const run = await mcpx(['list']);
    expect(run.code).toBe(4);
    expect(run.stdout).toMatch(/^bad\s+listing-failed\s+-\s/m);
    expect(run.stdout).toMatch(/^good\s+ready\s+\d+\s/m);
    expect(run.stderr).toContain("'bad' is connected, but listing its tools failed");
    expect(run.stderr).toContain('simulated tools/list failure');
  }, 60_000);

  it('makes `mcpx tools` fail: named, or among others (which are still listed)', async () => {
    const named = await mcpx(['tools', 'bad']);
    expect(named.code).not.toBe(0);
    expect(named.stdout).toBe('');
    expect(named.stderr).toContain('listing its tools failed');

    const all = await mcpx(['tools']);
    expect(all.code).not.toBe(0);
    expect(all.stdout).toMatch(/^good \(\d+ tools\)/m);
    expect(all.stdout).not.toMatch(/^bad /m);
    expect(all.stderr).toContain("'bad' is connected, but listing its tools failed");
  }, 60_000);

  it('is a FAIL in `mcpx doctor` with the reason and the fix; so is a failing prompts listing', async () => {
    const run = await mcpx(['doctor']);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toMatch(/^FAIL\s+bad\s/m);
    expect(run.stdout).toMatch(/^FAIL\s+noprompts\s/m);
    expect(run.stdout).toMatch(/^ok\s+good\s/m);
    expect(run.stdout).toContain('simulated tools/list failure');
    expect(run.stdout).toContain('`mcpx retry bad` lists its tools again');
    expect(run.stdout).toContain("'noprompts' is connected, but listing its prompts failed");
  }, 60_000);
});

describe('mcpx serve', () => {
  it('says which upstream offers no tools, and starts with a disabled one whose ${VAR} is unset', async () => {
    const world = await gatewayWorld({
      mcpServers: {
        bad: server('tools-list-fails'),
        github: { ...server(), env: { TOKEN: '${MCPX_FAILURES_UNSET_TOKEN}' }, enabled: false },
      },
    });
    try {
      const gateway = await world.serve();
      const deadline = Date.now() + 30_000;
      while (!gateway.stderr().includes("'bad' offers no tools") && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(gateway.stderr()).toContain(
        "mcpx serve: 'bad' offers no tools: 'bad' is connected, but listing",
      );
      expect(gateway.stderr()).not.toContain('MCPX_FAILURES_UNSET_TOKEN');
    } finally {
      await world.close();
    }
  }, 60_000);
});

describe('the shell', () => {
  let term: PtyRun | undefined;
  afterEach(async () => {
    term?.kill();
    await term?.exited;
  });

  it('shows a failed listing in /mcp and as the error of /mcp connect', async () => {
    term = runInPty(['--config', file, 'shell'], { cwd: dir.path, home: join(dir.path, 'home') });
    await term.waitFor('mcpx> ');
    await term.type('/mcp connect bad', '\r');
    await term.waitFor("'bad' is connected, but listing its tools failed");
    await term.waitFor('mcpx> ');
    await term.type('/mcp', '\r');
    await term.waitFor(/bad\s+listing-failed\s+-\s/);
    await term.waitFor(/bad: 'bad' is connected, but listing its tools failed/);
  }, 60_000);
});

describe('a malformed reply', () => {
  it('fails its request at once with MALFORMED_REPLY and the line, not after the timeout', async () => {
    const started = Date.now();
    const run = await mcpx(['--timeout', '30', 'call', 'garbled.echo', 'message=hi']);
    // Well before the 30 s request timeout (the connect included).
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("server 'garbled' answered tools/call with a malformed line");
    expect(run.stderr).toContain('"text":"half an answ');
    expect(run.stderr).not.toMatch(/busy or stuck|timed out/);
    // The garbled notification before it answers no request: told as a warning, by default.
    expect(run.stderr).toContain(
      `warning: server 'garbled' wrote a malformed JSON-RPC message to stdout (JSON, but not JSON-RPC 2.0): {"jsonrpc":"2.0","method":"notifications/message"`,
    );

    const json = await mcpx(['--json', '--timeout', '30', 'call', 'garbled.echo', '{"message":"hi"}']);
    expect(oneJsonObject(json.stderr)).toMatchObject({
      error: { code: 'MALFORMED_REPLY', server: 'garbled' },
      warnings: [expect.stringContaining('wrote a malformed JSON-RPC message')],
    });
  }, 60_000);

  it('is not confused with a log line printed to stdout', async () => {
    const run = await mcpx(['call', 'chatty.echo', 'message=still-works']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('still-works');
    expect(run.code).toBe(0);
  }, 60_000);
});

describe('--json stderr', () => {
  it('is one JSON object when servers fail: the errors and nothing else', async () => {
    const run = await mcpx(['--json', 'tools']);
    expect(run.code).not.toBe(0);
    const report = oneJsonObject(run.stderr);
    expect(report).toMatchObject({ error: { code: 'SERVER_REJECTED', server: 'bad' } });
    expect(JSON.parse(run.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ server: 'good' })]),
    );
  }, 60_000);

  it('carries notices in `warnings` when the command succeeds', async () => {
    const project = join(dir.path, 'project');
    await mkdir(project, { recursive: true });
    // A repository's server, not trusted yet: skipped with a notice.
    await writeFile(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { repo: server() } }));
    const run = await runCli(['--json', 'tools', 'demo'], {
      cwd: project,
      home: join(dir.path, 'home-json'),
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(0);
    const report = oneJsonObject(run.stderr);
    expect(report.error).toBeUndefined();
    expect(report.warnings).toEqual([expect.stringContaining("skipped server 'repo'")]);
    expect(JSON.parse(run.stdout)).toMatchObject([{ server: 'demo' }]);
  }, 60_000);

  it('holds a usage error commander found', async () => {
    const run = await runCli(['--json', 'list', '--no-such-flag'], {
      cwd: dir.path,
      home: join(dir.path, 'h'),
    });
    expect(run.code).toBe(1);
    expect(oneJsonObject(run.stderr)).toMatchObject({ error: { code: 'USAGE' } });
  });
});

describe('a disabled server', () => {
  it('with an unset ${VAR} is inert: no error, no exit code, no FAIL, still listed as disabled', async () => {
    const home = join(dir.path, 'home-disabled');
    const cli = (args: readonly string[]) => runCli(args, { cwd: dir.path, home, timeoutMs: 60_000 });
    const add = await cli([
      'config',
      'add',
      'github',
      '--env',
      'GITHUB_TOKEN=${MCPX_FAILURES_UNSET_TOKEN}',
      '--',
      node,
      testServerPath,
    ]);
    expect(add.code).toBe(0);
    expect((await cli(['config', 'disable', 'github'])).code).toBe(0);

    const list = await cli(['list']);
    expect(list.stderr).toBe('');
    expect(list.stdout).toMatch(/^github\s+disabled\s/m);
    expect(list.code).toBe(0);

    const doctor = await cli(['doctor']);
    expect(doctor.stdout).not.toContain('FAIL');
    expect(doctor.stdout).not.toContain('MCPX_FAILURES_UNSET_TOKEN');
    expect(doctor.code).toBe(0);

    for (const args of [['tools'], ['call', 'demo.echo', 'message=ok'], ['config', 'validate']]) {
      const run = await cli(args);
      expect(run.stderr, args.join(' ')).not.toContain('MCPX_FAILURES_UNSET_TOKEN');
      expect(run.code, args.join(' ')).toBe(0);
    }
  }, 90_000);
});
