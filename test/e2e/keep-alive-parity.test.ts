/**
 * `keep_alive` is invisible: the same commands print the same tool lists,
 * roots, results and errors whether a server is started directly or held by
 * the daemon. Over the npm reference servers (server-everything, whose tool
 * list depends on what the client declares; server-filesystem with a
 * configured folder, which a client's roots would replace) and, for the
 * 2026-07-28 era they do not speak, over mcpx's conformance backend in both eras.
 *
 * Each test runs its commands directly first, then with `"keep_alive": true`
 * added to the same file (same path, same line), so every message that names
 * the config names the same place. The first warm command starts the daemon
 * and reaches it over its socket (the MCP route); the later ones are light
 * calls run inside it; `mcpx list` always takes the MCP route.
 */
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot, runCli, tempDir } from '../helpers/cli.js';
import { daemonPids } from '../helpers/processes.js';
import { type PtyRun, runInPty } from '../helpers/pty.js';
import { everythingPath, filesystemPath } from '../helpers/servers.js';

const backendPath = join(repoRoot, 'dist/testing/conformance-backend.js');

let root: { path: string; remove: () => Promise<void> };
let home: string;
let work: string;
let folder: string;
let config: string;

beforeEach(async () => {
  root = await tempDir('mcpx-parity-');
  home = join(root.path, 'home');
  // The working directory is not the configured folder: a root made of it would replace the folder.
  work = join(root.path, 'work');
  folder = join(root.path, 'folder');
  config = join(root.path, 'mcp.json');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await mkdir(work);
  await mkdir(folder);
  folder = await realpath(folder);
  await writeFile(join(folder, 'a.txt'), 'hello from the configured folder\n');
});

const terminals: PtyRun[] = [];

afterEach(async () => {
  for (const term of terminals.splice(0)) {
    term.kill();
    await term.exited;
  }
  await runCli(['--config', config, 'daemon', 'stop'], { cwd: work, home });
  for (const pid of daemonPids(join(home, '.mcpx'))) process.kill(pid, 'SIGKILL');
  await root.remove();
});

type Entries = Record<string, Record<string, unknown>>;

/** The config on one line, so an error that points at an entry points at the same line both ways. */
async function writeConfig(entries: Entries, keepAlive: boolean, settings: object = {}): Promise<void> {
  const mcpServers = Object.fromEntries(
    Object.entries(entries).map(([name, entry]) => [
      name,
      keepAlive ? { ...entry, keep_alive: true } : entry,
    ]),
  );
  await writeFile(config, JSON.stringify({ ...settings, mcpServers }));
}

interface Outcome {
  readonly command: string;
  readonly code: number | null;
  readonly stdout: unknown;
  readonly stderr: unknown;
}

/**
 * JSON output as its value (the order of an object's keys is not what it says: a
 * 2026-07-28 server's schemas arrive through the daemon's 2025-11-25 link in another
 * order), anything else as its text.
 */
function asRead(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function runAll(commands: readonly (readonly string[])[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const args of commands) {
    const run = await runCli(['--config', config, ...args], { cwd: work, home, timeoutMs: 60_000 });
    outcomes.push({
      command: args.join(' '),
      code: run.code,
      stdout: asRead(run.stdout),
      stderr: asRead(run.stderr),
    });
  }
  return outcomes;
}

/** Command by command, so a failure names the command whose outcome differs. */
function expectSame(warm: readonly Outcome[], direct: readonly Outcome[]): void {
  for (const [i, outcome] of direct.entries())
    expect.soft(warm[i], `with keep_alive: ${outcome.command}`).toEqual(outcome);
}

/** Every command's outcome directly, then with `keep_alive`: the two must be equal, command by command. */
async function bothWays(
  entries: Entries,
  commands: readonly (readonly string[])[],
  settings: object = {},
): Promise<{ direct: Outcome[]; warm: Outcome[] }> {
  await writeConfig(entries, false, settings);
  const direct = await runAll(commands);
  await writeConfig(entries, true, settings);
  const warm = await runAll(commands);
  // The warm runs did reach the daemon (else this compares direct with direct).
  expect(daemonPids(join(home, '.mcpx'))).toHaveLength(1);
  return { direct, warm };
}

const toolNames = (outcome: Outcome | undefined): string[] =>
  ((outcome?.stdout ?? []) as { tools: { name: string }[] }[]).flatMap((s) => s.tools.map((t) => t.name));

describe('keep_alive over the npm reference servers (2025-11-25)', () => {
  it('server-everything and server-filesystem: the same tools, roots, results and errors', {
    timeout: 240_000,
  }, async () => {
    const entries = {
      every: { command: process.execPath, args: [everythingPath, 'stdio'] },
      fs: { command: process.execPath, args: [filesystemPath, folder] },
    };
    const commands = [
      ['tools', 'every', '--json'],
      ['tools', 'fs', '--json'],
      ['call', 'fs.list_allowed_directories'],
      ['call', 'fs.read_text_file', `path=${join(folder, 'a.txt')}`],
      ['--json', 'call', 'every.echo', 'message=hi'],
      ['call', 'every.get-roots-list'],
      ['call', 'every.trigger-sampling-request', 'prompt=hi'],
      ['--json', 'call', 'every.trigger-elicitation-request'],
      ['call', 'every.trigger-url-elicitation', 'url=https://example.com/', 'message=visit'],
      ['tools', 'every', '--json'],
      ['list', '--json'],
    ];
    const { direct, warm } = await bothWays(entries, commands);
    expectSame(warm, direct);
    // What the direct path gives is what a user expects: the configured folder, and only the
    // tools a client that cannot answer questions may use.
    expect(direct[2]?.stdout).toContain(folder);
    expect(direct[3]).toMatchObject({ code: 0, stdout: 'hello from the configured folder\n' });
    expect(toolNames(direct[0])).toContain('echo');
    expect(toolNames(direct[0])).not.toContain('trigger-sampling-request');
  });
});

describe('keep_alive with roots in the config', () => {
  it('the servers are given the roots, from the daemon as directly', { timeout: 240_000 }, async () => {
    await mkdir(join(root.path, 'rooted'));
    const rooted = await realpath(join(root.path, 'rooted'));
    const entries = { every: { command: process.execPath, args: [everythingPath, 'stdio'] } };
    const commands = [
      ['call', 'every.get-roots-list'],
      ['tools', 'every', '--json'],
      ['call', 'every.get-roots-list'],
    ];
    const { direct, warm } = await bothWays(entries, commands, { roots: [rooted] });
    expectSame(warm, direct);
    expect(direct[0]?.stdout).toContain(`URI: file://${rooted}`);
  });

  it("a held server-filesystem asking for roots as it starts is answered with the callers' roots", {
    timeout: 120_000,
  }, async () => {
    // Compared with the config alone, not with a direct run: server-filesystem applies roots
    // after it has answered `initialize`, and a one-shot call sent at once may come first.
    const rooted = join(root.path, 'rooted');
    await mkdir(rooted);
    await writeConfig({ fs: { command: process.execPath, args: [filesystemPath, folder] } }, true, {
      roots: [rooted],
    });
    expect((await runCli(['--config', config, 'daemon', 'start'], { cwd: work, home })).code).toBe(0);
    // server-filesystem asks for roots after it has answered `initialize` and applies the answer
    // when it comes: a call at once may still see the folder it was started with. Asked again
    // for a few seconds; it never shows the callers' roots unless the daemon answered with them.
    const expected = `Allowed directories:\n${await realpath(rooted)}\n`;
    const call = () =>
      runCli(['--config', config, 'call', 'fs.list_allowed_directories'], { cwd: work, home });
    let listed = await call();
    for (let tries = 0; tries < 20 && listed.code === 0 && listed.stdout !== expected; tries++) {
      await new Promise((done) => setTimeout(done, 250));
      listed = await call();
    }
    expect(listed).toMatchObject({
      code: 0,
      stderr: '',
      stdout: expected,
    });
  });
});

describe('keep_alive over a server of either era', () => {
  it.each(['modern', 'legacy'])(
    'the conformance backend, protocol %s: the same tools, roots, results and errors',
    {
      timeout: 240_000,
    },
    async (protocol) => {
      const entries = { backend: { command: process.execPath, args: [backendPath], protocol } };
      const commands = [
        ['tools', 'backend', '--json'],
        ['call', 'backend.test_list_roots'],
        ['call', 'backend.test_sampling', 'prompt=hi'],
        ['--json', 'call', 'backend.test_elicitation', 'message=hi'],
        ['call', 'backend.test_missing_capability'],
        ['call', 'backend.test_input_required_result_capabilities'],
        ['list', '--json'],
      ];
      const { direct, warm } = await bothWays(entries, commands);
      expectSame(warm, direct);
      expect(direct[0]?.code).toBe(0);
    },
  );
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

describe('keep_alive at a terminal', () => {
  /** A person at a terminal declines what server-everything asks them to visit: what they see after answering. */
  async function declineVisit(): Promise<{ code: number; after: string }> {
    const term = runInPty(
      [
        '--config',
        config,
        'call',
        'every.trigger-url-elicitation',
        'url=https://example.com/',
        'message=visit',
      ],
      { cwd: work, home },
    );
    terminals.push(term);
    await term.waitFor("Server 'every' asks you to visit https://example.com/");
    await term.waitFor('Will you visit it?');
    const asked = term.text().length;
    await term.type('n', '\r');
    const code = await term.exited;
    // The server names each question with a fresh UUID.
    return { code, after: term.text().slice(asked).trim().replace(UUID, '<id>') };
  }

  it("server-everything's questions are asked at the terminal, warm (in the daemon) as directly", {
    timeout: 120_000,
  }, async () => {
    const entries = { every: { command: process.execPath, args: [everythingPath, 'stdio'] } };
    await writeConfig(entries, false);
    const direct = await declineVisit();
    await writeConfig(entries, true);
    // A running daemon: the call is a light one, run inside it, its question asked here.
    expect((await runCli(['--config', config, 'daemon', 'start'], { cwd: work, home })).code).toBe(0);
    const warm = await declineVisit();
    expect(warm).toEqual(direct);
    expect(direct.code).toBe(0);
    const status = await runCli(['--config', config, 'daemon', 'status', '--json'], { cwd: work, home });
    const { servers } = JSON.parse(status.stdout) as { servers: { name: string; calls: number }[] };
    expect(servers.find((s) => s.name === 'every')?.calls).toBe(1);
  });
});
