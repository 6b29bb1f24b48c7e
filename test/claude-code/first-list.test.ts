/**
 * A headless host's first list is complete (issue 38, item 9), shown with the real Claude Code
 * CLI: the model of a `claude -p` through the entry `mcpx config export --via-gateway` writes
 * works from mcpx's first tool list, and its first run of the day saw none of the servers that
 * took longer to start than `--list-wait` (their list changes came after it had answered). The model is a scripted fake of the Anthropic Messages
 * API (test/helpers/fake-anthropic.ts) that records what Claude Code sends it: the tools it
 * offers the model are the tools mcpx listed.
 *
 * Each test: `fast` and `slow` (12 s to start) in the user's mcpx config, exported to Claude
 * Code as the one `mcpx` entry; an earlier `claude -p` session that lasted until `slow` was
 * up; then a cold `claude -p`, in which `slow` takes its 12 s again.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { type AnthropicReply, type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.js';
import { trackProcessTree } from '../helpers/processes.js';

const claude = process.env.CLAUDE_BIN ?? join(repoRoot, 'claude-code/node_modules/.bin/claude');
// The test server's own tools (src/testing/catalog.ts).
const OWN_TOOLS = [
  'add',
  'add_tool',
  'echo',
  'env',
  'fail',
  'get_time',
  'large_output',
  'log',
  'slow_operation',
  'touch_resource',
];
/** What Claude Code calls a tool of the `mcpx` entry: `mcp__mcpx__<server>__<tool>`. */
const claudeNames = (server: string) => OWN_TOOLS.map((tool) => `mcp__mcpx__${server}__${tool}`);

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('mcpx-claude-first-list-');
});
afterAll(async () => {
  await dir.remove();
});

interface World {
  readonly home: string;
  readonly cwd: string;
  /** The requests `slow` received, one method a line. */
  slowMethods(): Promise<string[]>;
}

/** The user's mcpx config, `fast` and `slow`, handed to Claude Code as its one `mcpx` entry. */
async function exportedWorld(name: string): Promise<World> {
  const root = join(dir.path, name);
  const home = join(root, 'home');
  const cwd = join(root, 'repo');
  for (const folder of [home, cwd]) await mkdir(folder, { recursive: true });
  const slowLog = join(root, 'slow-methods.log');
  const cli = (args: string[]) => runCli(args, { cwd, home, timeoutMs: 60_000 });
  for (const args of [
    ['config', 'add', 'fast', '--', process.execPath, testServerPath],
    [
      'config',
      'add',
      'slow',
      '--env',
      'MCPX_TEST_FAULT=slow-start',
      '--env',
      'MCPX_TEST_SLOW_START_MS=12000',
      '--env',
      `MCPX_TEST_METHOD_LOG=${slowLog}`,
      '--',
      process.execPath,
      testServerPath,
    ],
    ['config', 'export', '--to', 'claude-code', '--via-gateway', '--write'],
  ]) {
    const run = await cli(args);
    expect(run.stderr, args.join(' ')).toBe('');
    expect(run.code).toBe(0);
  }
  const slowMethods = async () =>
    (await readFile(slowLog, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { home, cwd, slowMethods };
}

/** `claude <args>` as a user runs it, against the scripted model; resolves once it has exited. */
async function runClaude(
  world: World,
  args: readonly string[],
  script: readonly AnthropicReply[],
  env: Record<string, string> = {},
): Promise<{ model: FakeAnthropic; stdout: string; stderr: string; code: number }> {
  const model = await startFakeAnthropic(script);
  try {
    const run = await new Promise<{ stdout: string; stderr: string; code: number }>((resolve) => {
      execFile(
        claude,
        args,
        {
          cwd: world.cwd,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: world.home,
            ANTHROPIC_BASE_URL: model.baseUrl,
            ANTHROPIC_API_KEY: 'test-key',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
            ...env,
          },
          timeout: 120_000,
        },
        (error, stdout, stderr) => resolve({ stdout, stderr, code: error ? Number(error.code ?? 1) : 0 }),
      );
    });
    return { model, ...run };
  } finally {
    await model.close();
  }
}

/**
 * An earlier session of Claude Code that lasted until `slow` was up and had listed its tools
 * (the model took its time answering): what a user's day before looks like.
 */
async function earlierSession(world: World): Promise<void> {
  const listed = async () => {
    const until = Date.now() + 60_000;
    while (!(await world.slowMethods()).includes('tools/list') && Date.now() < until) await delay(200);
    // mcpx has the list a moment after `slow` answered it.
    await delay(1_000);
  };
  const run = await runClaude(world, ['-p', 'hi'], [{ text: 'hello', before: listed }]);
  expect(run.stdout, run.stderr).toContain('hello');
  expect(await world.slowMethods()).toContain('tools/list');
}

/** Every `mcp__mcpx__…` tool name a request to the model names (offered in full, or deferred by name). */
function mcpxToolsIn(request: unknown): string[] {
  const names = JSON.stringify(request).match(/mcp__mcpx__[A-Za-z0-9_]+/g) ?? [];
  return [...new Set(names)].sort();
}

/** Run `test` in a fresh world, then wait for every process it started (Claude Code kills `mcpx serve`) to go. */
async function withWorld(name: string, test: (world: World) => Promise<void>): Promise<void> {
  const started = trackProcessTree(process.pid);
  try {
    await test(await exportedWorld(name));
    const until = Date.now() + 60_000;
    while (started.alive().length > 0 && Date.now() < until) await delay(250);
    expect(started.alive().map((p) => `${p.pid} ${p.command}`)).toEqual([]);
  } finally {
    started.stop();
  }
}

describe('claude -p through the mcpx entry, on a cold start', () => {
  it("offers the model every server's tools in its first request", { timeout: 300_000 }, async () => {
    await withWorld('first-request', async (world) => {
      await earlierSession(world);
      const before = (await world.slowMethods()).length;
      // Claude Code's own setting for a headless run that needs its MCP tools: connect before the first message.
      const run = await runClaude(world, ['-p', 'hi'], [{ text: 'done' }], {
        MCP_CONNECTION_NONBLOCKING: '0',
      });
      expect(run.code, run.stderr).toBe(0);
      const [first] = run.model.requests;
      expect(mcpxToolsIn(first)).toEqual([...claudeNames('fast'), ...claudeNames('slow')].sort());
      // `slow` was never up in this run: its tools are the ones mcpx remembered.
      expect((await world.slowMethods()).slice(before)).not.toContain('tools/list');
    });
  });

  it('finds a tool of a server still starting and calls it, as Claude Code runs by default', {
    timeout: 300_000,
  }, async () => {
    await withWorld('tool-search', async (world) => {
      await earlierSession(world);
      const run = await runClaude(
        world,
        ['-p', 'say it through slow', '--allowedTools', 'mcp__mcpx'],
        [
          // Claude Code defers MCP tools: the model loads one by name, then calls it.
          { tool: 'ToolSearch', input: { query: 'select:mcp__mcpx__slow__echo', max_results: 5 } },
          { tool: 'mcp__mcpx__slow__echo', input: { message: 'worth the wait' } },
          { text: 'done' },
        ],
      );
      expect(run.code, run.stderr).toBe(0);
      const requests = run.model.requests;
      expect(requests).toHaveLength(3);
      // What the model was told after its search: the deferred tools, `slow`'s among them.
      expect(mcpxToolsIn(requests[1])).toEqual(expect.arrayContaining(claudeNames('slow')));
      const answer = requests[2]?.messages.at(-1)?.content;
      expect(answer).toEqual([
        expect.objectContaining({ type: 'tool_result', content: [{ type: 'text', text: 'worth the wait' }] }),
      ]);
    });
  });
});
