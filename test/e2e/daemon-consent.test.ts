/**
 * Consent for a keep-alive server is asked at the calling terminal, never by
 * the daemon: `mcpx chat` on a pseudo-terminal asks before the call, the call
 * then runs in the daemon's warm server; without a terminal it is denied.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedReply, startFakeModelServer } from '../../src/testing/fake-model-server.js';
import { chatInPty } from '../helpers/chat.js';
import { cliPath, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { firstText } from '../helpers/gateway.js';
import { isAlive } from '../helpers/processes.js';
import { runInPty } from '../helpers/pty.js';

const KEY = { down: '\x1b[B', enter: '\r' };
let dir: { path: string; remove: () => Promise<void> };
const home = () => join(dir.path, 'home');
const startLog = () => join(dir.path, 'mine.starts');
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  dir = await tempDir('mcpx-daemon-consent-');
  await mkdir(join(home(), '.mcpx'), { recursive: true });
  await writeFile(
    join(home(), '.mcpx', 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        mine: {
          command: process.execPath,
          args: [testServerPath],
          keep_alive: true,
          env: { MCPX_TEST_START_LOG: startLog() },
        },
      },
    }),
  );
});
afterAll(() => dir.remove());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  // The daemon outlives each command on purpose, but not the test.
  await runCli(['daemon', 'stop'], { cwd: dir.path, home: home() });
});

function chatHere(script: ScriptedReply[]) {
  return chatInPty(script, { cwd: dir.path, home: home() }, cleanups);
}

async function starts(): Promise<number[]> {
  return (await readFile(startLog(), 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);
}

describe('consent for a keep-alive server', () => {
  it('is asked at the calling terminal; the call then runs in the warm server of the daemon', {
    timeout: 90_000,
  }, async () => {
    // Not `echo`: a read-only tool of the user's own server runs without a confirmation (issue 25).
    const { term } = await chatHere([
      { toolCalls: [{ name: 'mcp_mine_touch_resource', arguments: {} }] },
      { text: 'done' },
    ]);
    await term.waitFor("Connect to MCP server 'mine'?");
    await term.waitFor('Require confirmation for each tool');
    await term.type(KEY.down, KEY.enter);
    await term.waitFor('> ');
    await term.type('go', KEY.enter);
    await term.waitFor('Allow touch_resource?');
    await term.type(KEY.enter);
    await term.waitFor('← mcp_mine_touch_resource: test://counter is now count');
    await term.waitFor('done');
    await term.type('/exit', KEY.enter);
    expect(await term.exited).toBe(0);

    // The chat has ended, the server it used has not: it is the daemon's.
    const [server] = await starts();
    expect(await starts()).toHaveLength(1);
    expect(isAlive(server as number)).toBe(true);
    const status = JSON.parse(
      (await runCli(['daemon', 'status', '--json'], { cwd: dir.path, home: home() })).stdout,
    );
    expect(status.servers).toEqual([expect.objectContaining({ name: 'mine', state: 'ready', calls: 1 })]);
  });

  it('is denied without a terminal, and the daemon asks nobody', { timeout: 90_000 }, async () => {
    const before = await callsInDaemon();
    const model = await startFakeModelServer([
      { toolCalls: [{ name: 'mcp_mine_touch_resource', arguments: {} }] },
      { text: 'I was not allowed to use it.' },
    ]);
    cleanups.push(() => model.close());
    const run = await runCli(['chat', '--base-url', model.baseUrl, '--model', 'fake'], {
      cwd: dir.path,
      home: home(),
      env: { OPENAI_API_KEY: 'sk-test' },
      stdin: 'touch it\n',
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('I was not allowed to use it.\n');
    const toolMessage = (
      model.requests[1] as { messages: { role: string; content: string }[] }
    ).messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toMatch(/^error \[PERMISSION_DENIED\].*no terminal to ask on/);
    expect(await callsInDaemon()).toBe(before);
    expect(before).toBe(0);
  });
});

describe('a gateway in front of a keep-alive server', () => {
  // The daemon holds its servers at `yolo` (instance-pool.ts says why): the policy that counts is
  // the caller's, here `mcpx serve`'s, applied before a call reaches the daemon's socket.
  it("refuses by the gateway's own policy before the daemon; --allow lets the call run warm there", {
    timeout: 90_000,
  }, async () => {
    const serve = async (args: string[]) => {
      const client = new Client({ name: 'daemon-consent-test', version: '0.0.0' });
      cleanups.push(() => client.close().catch(() => {}));
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [cliPath, 'serve', ...args],
          env: { PATH: process.env.PATH ?? '', HOME: home(), MCPX_HOME: join(home(), '.mcpx') },
          cwd: dir.path,
          stderr: 'pipe',
        }),
      );
      return client;
    };
    const refusing = await serve([]);
    const refused = await refusing.callTool({ name: 'mine__touch_resource', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(firstText(refused)).toContain('the gateway has nobody to ask');
    expect(await callsInDaemon()).toBe(0);
    await refusing.close();

    const allowing = await serve(['--allow', 'mine']);
    const allowed = await allowing.callTool({ name: 'mine__touch_resource', arguments: {} });
    expect(firstText(allowed)).toMatch(/^test:\/\/counter is now count \d+$/);
    expect(await callsInDaemon()).toBe(1);
  });
});

async function callsInDaemon(): Promise<number> {
  const run = await runCli(['daemon', 'status', '--json'], { cwd: dir.path, home: home() });
  const status = JSON.parse(run.stdout) as { servers?: { calls: number }[] };
  return status.servers?.[0]?.calls ?? 0;
}

describe('a keep-alive server from a project file, on a terminal', () => {
  it('is approved at the calling terminal, then runs warm in the daemon; progress streams back', {
    timeout: 90_000,
  }, async () => {
    const repo = join(dir.path, 'repo');
    const projectLog = join(dir.path, 'proj.starts');
    await mkdir(repo, { recursive: true });
    await writeFile(
      join(repo, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          proj: {
            command: process.execPath,
            args: [testServerPath],
            keep_alive: true,
            env: { MCPX_TEST_START_LOG: projectLog },
          },
        },
      }),
    );
    // Without a terminal nobody can approve it: it is skipped, and no daemon runs it.
    const skipped = await runCli(['call', 'proj.echo', 'message=x'], { cwd: repo, home: home() });
    expect(skipped.code).toBe(2);
    expect(skipped.stderr).toContain('mcpx config trust');
    expect(await readFile(projectLog, 'utf8').catch(() => '')).toBe('');

    const term = runInPty(['call', 'proj.slow_operation', 'steps=6', 'delay_ms=300'], {
      cwd: repo,
      home: home(),
    });
    cleanups.push(
      () => term.kill(),
      () => runCli(['daemon', 'stop'], { cwd: repo, home: home() }).then(() => undefined),
    );
    await term.waitFor('Start it? Only say yes if you trust this repository. [y/N]');
    await term.type('y\r');
    await term.waitFor(/\[#+ +\] \d+% step \d of 6/);
    await term.waitFor('completed 6 steps');
    expect(await term.exited).toBe(0);

    // The approval was the person's, at their terminal; the daemon holds the server now, for
    // the next call at a terminal (one from a script, which can answer no question, is told
    // so and gets an instance of its own: see keep-alive-parity.test.ts).
    const again = runInPty(['call', 'proj.echo', 'message=warm'], { cwd: repo, home: home() });
    cleanups.push(() => again.kill());
    expect(await again.exited).toBe(0);
    expect(again.text()).toContain('warm');
    const pids = (await readFile(projectLog, 'utf8')).split('\n').filter(Boolean);
    expect(pids).toHaveLength(1);
    expect(isAlive(Number(pids[0]))).toBe(true);
  });
});
