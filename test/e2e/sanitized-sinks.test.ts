/**
 * Every human-facing sink is sanitized (issue 28, item 5): text from the hostile test server —
 * a right-to-left override, a zero-width space, a tag character, 7-bit escape sequences and an
 * 8-bit (C1) CSI — goes through each sink of the built CLI, and none of those bytes reaches the
 * person: `mcpx serve --access-log -` (JSON lines, escaped, exact when parsed), stderr notices
 * (`--verbose` server logs, chat's tool lines), `mcpx chat`'s answers, and `mcpx shell`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from '../../src/testing/fake-model-server.js';
import { POISON } from '../../src/testing/hostile-server.js';
import { runChat } from '../helpers/chat.js';
import { repoRoot, runCli, tempDir } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import { type PtyRun, runInPty } from '../helpers/pty.js';

const hostileServerPath = join(repoRoot, 'dist/testing/hostile-server.js');
const hostile = { command: process.execPath, args: [hostileServerPath] };

/** The raw bytes of the poison; a terminal that gets any of them is steered or fooled. */
const RAW = ['\u202E', '\u200B', '\u{E0041}', '\u009b', '\u001b[31m', '\u001b[2J', '\u001b]0;', '\u0007'];

/** Fails naming the first raw byte found, with where it was. */
function expectNoRawBytes(sink: string, text: string): void {
  for (const raw of RAW) {
    expect(text.includes(raw), `${sink} passed on ${JSON.stringify(raw)}:\n${JSON.stringify(text)}`).toBe(
      false,
    );
  }
}

let dir: { path: string; remove: () => Promise<void> };
let config: string;
beforeAll(async () => {
  dir = await tempDir('mcpx-sinks-');
  config = join(dir.path, 'mcp.json');
  await writeFile(config, JSON.stringify({ mcpServers: { h: hostile } }));
});
afterAll(() => dir.remove());

describe('the access log (mcpx serve --access-log -)', () => {
  let world: GatewayWorld;
  beforeAll(async () => {
    world = await gatewayWorld({ permission: 'yolo', mcpServers: { h: hostile } });
  });
  afterEach(() => world.stopAll());
  afterAll(() => world.close());

  it('escapes what servers and clients name, and keeps it exact', { timeout: 60_000 }, async () => {
    const gateway = await world.serve(['--access-log', '-']);
    const client = await world.client(gateway.url, 'legacy');
    const { tools } = await client.listTools();
    const named = tools.find((t) => t.name.startsWith('h__named'));
    expect(named).toBeDefined();
    await client.callTool({ name: named?.name ?? '', arguments: {} });
    // A client of the gateway is untrusted too: a name of its own making.
    await client.callTool({ name: `nope${POISON}`, arguments: {} }).catch(() => {});
    await expect
      .poll(
        () =>
          gateway
            .stderr()
            .split('\n')
            .filter((l) => l.includes('"tools/call"')).length,
      )
      .toBe(2);
    const log = gateway.stderr();
    expectNoRawBytes('the access log', log);
    const calls = log
      .split('\n')
      .filter((line) => line.includes('"tools/call"'))
      .map((line) => JSON.parse(line) as { tool?: string });
    expect(calls.map((c) => c.tool)).toEqual([`named${POISON}`, `nope${POISON}`]);
  });
});

describe('stderr notices', () => {
  it('--verbose server log messages', { timeout: 60_000 }, async () => {
    const run = await runCli(['--config', config, '--verbose', 'call', 'h.poison'], {
      cwd: dir.path,
      home: join(dir.path, 'home'),
      timeoutMs: 45_000,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('log message<U+202E>evil');
    expectNoRawBytes('a --verbose notice', run.stderr);
    expectNoRawBytes('call', run.stdout);
  });
});

describe('mcpx chat', () => {
  let model: FakeModelServer | undefined;
  afterEach(() => model?.close());

  it("shows the tool lines and the model's answer neutralised", { timeout: 60_000 }, async () => {
    model = await startFakeModelServer([
      { toolCalls: [{ name: 'mcp_h_poison', arguments: {} }] },
      // A model relays what the server said, hidden characters and all.
      { text: `The tool said: text content${POISON}` },
    ]);
    const run = await runChat({
      baseUrl: model.baseUrl,
      cwd: dir.path,
      home: join(dir.path, 'home'),
      globalArgs: ['--config', config],
      args: ['--permission', 'yolo'],
      input: 'use the tool\n',
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('← mcp_h_poison: text content<U+202E>evil');
    expect(run.stdout).toContain('The tool said: text content<U+202E>evil');
    expectNoRawBytes("chat's notices", run.stderr);
    expectNoRawBytes("chat's answer", run.stdout);
  });
});

describe('mcpx shell', () => {
  let term: PtyRun | undefined;
  afterEach(() => term?.kill());

  it("shows a tool's result and the server's names neutralised", { timeout: 60_000 }, async () => {
    term = runInPty(['--config', config, 'shell'], { cwd: dir.path, home: join(dir.path, 'home') });
    await term.waitFor('mcpx> ');
    await term.type('@h poison', '\r');
    await term.waitFor('text content');
    await term.waitFor('mcpx> ');
    await term.type('/mcp tools h', '\r');
    await term.waitFor(/named/);
    await term.waitFor('mcpx> ');
    await term.type('\x04');
    expect(await term.exited).toBe(0);
    const raw = term.raw();
    expect(raw).toContain('text content<U+202E>evil');
    expectNoRawBytes('the shell', raw);
  });
});
