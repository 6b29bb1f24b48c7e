/**
 * The audit log (issue 27, item 3): every tool call from chat and from the gateway is one JSON
 * line — who asked, server and tool, the permission engine's decision and on whose word, the
 * duration and the outcome — in a file only its owner can read, secrets never written. Chat runs
 * on a real terminal (its person answers), the gateway is driven by SDK clients of both eras whose
 * person answers through form elicitation; `--access-log` is fed from the same records.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatInPty } from '../helpers/chat.js';
import { cliPath, tempDir, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const KEY = { down: '\x1b[B', enter: '\r' };
// Shaped like a live Stripe key, under a key named like a secret: neither may reach a log.
const SECRET = 'sk_live_0123456789abcdefABCDEF';

interface Line {
  client: string;
  clientInfo?: { name: string; version?: string };
  session?: string;
  server?: string;
  tool: string;
  decision?: { result: string; by: string; question?: string; reason?: string };
  durationMs: number;
  outcome: string;
  error?: { code?: number | string; message: string };
  argumentKeys: string[];
  arguments?: Record<string, unknown>;
}

async function linesOf(file: string): Promise<Line[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
}

/** What a line says, in a form a test can compare whole. */
const gist = (line: Line) => ({
  server: line.server,
  tool: line.tool,
  decision: line.decision && { result: line.decision.result, by: line.decision.by },
  outcome: line.outcome,
});

async function expectOwnerOnly(file: string): Promise<void> {
  if (process.platform === 'win32') return;
  expect((await stat(file)).mode & 0o777).toBe(0o600);
}

describe('mcpx chat on a terminal', () => {
  let dir: { path: string; remove: () => Promise<void> };
  const cleanups: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    dir = await tempDir('mcpx-audit-chat-');
    await mkdir(join(dir.path, 'home', '.mcpx'), { recursive: true });
    await writeFile(
      join(dir.path, 'home', '.mcpx', 'mcp.json'),
      JSON.stringify({ mcpServers: { mine: { command: process.execPath, args: [testServerPath] } } }),
    );
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  afterAll(() => dir.remove());

  it('records allowed, confirmed, denied and failed calls once each, secrets left out', {
    timeout: 60_000,
  }, async () => {
    const { term } = await chatInPty(
      [
        // echo and fail say they are read-only (the user's own server: believed); the others say nothing.
        { toolCalls: [{ name: 'mcp_mine_echo', arguments: { message: 'hello', api_key: SECRET } }] },
        { toolCalls: [{ name: 'mcp_mine_touch_resource', arguments: {} }] },
        { toolCalls: [{ name: 'mcp_mine_add_tool', arguments: { name: 'late' } }] },
        { toolCalls: [{ name: 'mcp_mine_fail', arguments: { message: 'it broke' } }] },
        { text: 'all done' },
      ],
      { cwd: dir.path, home: join(dir.path, 'home') },
      cleanups,
    );
    await term.waitFor('Require confirmation for each tool');
    await term.type(KEY.down, KEY.enter);
    await term.waitFor('> ');
    await term.type('go', KEY.enter);
    await term.waitFor('Allow touch_resource?');
    await term.type(KEY.enter); // Allow once
    await term.waitFor('Allow add_tool?');
    await term.type(KEY.down, KEY.down, KEY.enter); // Deny
    await term.waitFor('all done');
    await term.waitFor('> ');
    await term.type('/exit', KEY.enter);
    expect(await term.exited).toBe(0);

    const file = join(dir.path, 'home', '.mcpx', 'logs', 'audit.jsonl');
    const lines = await linesOf(file);
    expect(lines.map(gist)).toEqual([
      { server: 'mine', tool: 'echo', decision: { result: 'allowed', by: 'read-only' }, outcome: 'ok' },
      {
        server: 'mine',
        tool: 'touch_resource',
        decision: { result: 'confirmed', by: 'terminal' },
        outcome: 'ok',
      },
      {
        server: 'mine',
        tool: 'add_tool',
        decision: { result: 'denied', by: 'terminal' },
        outcome: 'refused',
      },
      {
        server: 'mine',
        tool: 'fail',
        decision: { result: 'allowed', by: 'read-only' },
        outcome: 'tool-error',
      },
    ]);
    for (const line of lines) expect(line.client).toBe('chat');
    expect(lines[0]?.argumentKeys).toEqual(['message', 'api_key']);
    expect(await readFile(file, 'utf8')).not.toContain(SECRET);
    expect(await readFile(file, 'utf8')).not.toContain('hello');
    await expectOwnerOnly(file);
    if (process.platform !== 'win32')
      expect((await stat(join(dir.path, 'home', '.mcpx', 'logs'))).mode & 0o777).toBe(0o700);
  });
});

/** The client's person: mcpx's consent forms are answered from `answers`, in order. */
function person(client: Client, answers: string[]): void {
  client.setRequestHandler('elicitation/create', async () => {
    const decision = answers.shift();
    if (decision === undefined) throw new Error('asked more than the test expected');
    return { action: 'accept', content: { decision } };
  });
}

describe.each(['legacy', 'modern'] as const)('mcpx serve with a %s client', (era) => {
  let world: GatewayWorld;
  beforeAll(async () => {
    world = await gatewayWorld({
      permission: 'trusted',
      mcpServers: {
        // Says nothing of its tools: every call is the person's to decide.
        local: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_ANNOTATED: '0' } },
        free: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_ANNOTATED: '0' } },
      },
    });
  }, 60_000);
  afterEach(() => world.stopAll());
  afterAll(() => world?.close());

  it('records allowed, confirmed, denied and failed calls once each; the access log gets the same calls', {
    timeout: 60_000,
  }, async () => {
    const audit = join(world.dir, `audit-${era}.jsonl`);
    const access = join(world.dir, `access-${era}.log`);
    const gateway = await world.serve([
      '--allow',
      'free',
      '--audit-log',
      audit,
      '--access-log',
      access,
      '--log-arguments',
    ]);
    const client = await world.client(gateway.url, era, { capabilities: { elicitation: { form: {} } } });
    person(client, ['confirm-each', 'once', 'deny']);
    const allowed = await client.callTool({
      name: 'free__echo',
      arguments: { message: 'hi', api_key: SECRET },
    });
    expect(firstText(allowed)).toBe('hi');
    expect(firstText(await client.callTool({ name: 'local__echo', arguments: { message: 'yes' } }))).toBe(
      'yes',
    );
    const denied = await client.callTool({ name: 'local__add', arguments: { a: 1, b: 2 } });
    expect(denied.isError).toBe(true);
    expect((await client.callTool({ name: 'free__fail', arguments: {} })).isError).toBe(true);
    await expect(client.callTool({ name: 'free__nope', arguments: {} })).rejects.toThrow(/nope/);

    // Written behind the replies: the lines may land just after them.
    await expect.poll(async () => (await linesOf(audit)).length, { timeout: 5_000 }).toBe(5);
    const lines = await linesOf(audit);
    expect(lines.map(gist)).toEqual([
      { server: 'free', tool: 'echo', decision: { result: 'allowed', by: 'rule' }, outcome: 'ok' },
      { server: 'local', tool: 'echo', decision: { result: 'confirmed', by: 'client' }, outcome: 'ok' },
      { server: 'local', tool: 'add', decision: { result: 'denied', by: 'client' }, outcome: 'refused' },
      { server: 'free', tool: 'fail', decision: { result: 'allowed', by: 'rule' }, outcome: 'tool-error' },
      { server: undefined, tool: 'free__nope', decision: undefined, outcome: 'protocol-error' },
    ]);
    expect(lines[4]?.error?.code).toBe(-32602);
    for (const line of lines) {
      expect(line.client).toBe('gateway');
      expect(line.clientInfo).toEqual({ name: 'gateway-test', version: '0.0.0' });
      // A 2025-11-25 client's session; a 2026-07-28 client over HTTP has none, each request is its own.
      if (era === 'legacy') expect(line.session).toBe(lines[0]?.session);
      else expect(line.session).toEqual(expect.any(String));
    }
    expect(lines[0]?.argumentKeys).toEqual(['message', 'api_key']);
    expect(await readFile(audit, 'utf8')).not.toContain(SECRET);
    await expectOwnerOnly(audit);

    // The access log's tool calls are the same records, in its own line format, the secret masked;
    // a 2026-07-28 client's consent rounds are requests of their own there, marked as such.
    type Line = { method?: string; inputRequired?: boolean };
    const callLines = async () =>
      (await linesOf(access)).filter(
        (l) => (l as Line).method === 'tools/call' && !(l as Line).inputRequired,
      );
    await expect.poll(callLines).toHaveLength(5);
    const calls = await callLines();
    const rounds = (await linesOf(access)).filter((l) => (l as Line).inputRequired);
    if (era === 'legacy') expect(rounds).toEqual([]);
    else expect(rounds.length).toBeGreaterThan(0);
    expect(calls.map((c) => `${c.server}/${c.tool} ${c.outcome}`)).toEqual([
      'free/echo ok',
      'local/echo ok',
      'local/add tool-error',
      'free/fail tool-error',
      'undefined/free__nope error',
    ]);
    expect(calls[0]?.arguments).toEqual({ message: 'hi', api_key: '‹masked›' });
    expect(await readFile(access, 'utf8')).not.toContain(SECRET);
  });
});

describe('mcpx serve on stdio', () => {
  let world: GatewayWorld;
  beforeAll(async () => {
    world = await gatewayWorld({
      permission: 'trusted',
      mcpServers: {
        local: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_ANNOTATED: '0' } },
      },
    });
  }, 60_000);
  afterAll(() => world?.close());

  it('records its client’s calls as the HTTP front does, into the home’s log by default', async () => {
    const client = new Client({ name: 'stdio-agent', version: '1.2.3' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, '--config', world.configFile, 'serve', '--allow', 'local'],
        env: { PATH: process.env.PATH ?? '', HOME: world.home, MCPX_HOME: join(world.home, '.mcpx') },
        cwd: world.dir,
        stderr: 'pipe',
      }),
    );
    try {
      expect(firstText(await client.callTool({ name: 'local__echo', arguments: { message: 'hi' } }))).toBe(
        'hi',
      );
      expect((await client.callTool({ name: 'local__fail', arguments: {} })).isError).toBe(true);
    } finally {
      await client.close();
    }
    const file = join(world.home, '.mcpx', 'logs', 'audit.jsonl');
    await expect.poll(async () => (await linesOf(file)).length, { timeout: 5_000 }).toBe(2);
    const lines = await linesOf(file);
    expect(lines.map(gist)).toEqual([
      { server: 'local', tool: 'echo', decision: { result: 'allowed', by: 'rule' }, outcome: 'ok' },
      { server: 'local', tool: 'fail', decision: { result: 'allowed', by: 'rule' }, outcome: 'tool-error' },
    ]);
    for (const line of lines) expect(line.clientInfo).toEqual({ name: 'stdio-agent', version: '1.2.3' });
    await expectOwnerOnly(file);
  });
});
