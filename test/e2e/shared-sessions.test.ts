/**
 * Five `mcpx serve` sessions on stdio, as five agent sessions of one host start them, share
 * one process per keep-alive server through the daemon; what belongs to a session (its calls,
 * progress, cancellation, subscriptions, questions) stays its own, and `daemon status` says
 * which session uses which server.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliPath, gatewayPathEnv, repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { firstText } from '../helpers/gateway.js';
import {
  daemonPids,
  descendantPids,
  isAlive,
  isOrphanWatchdog,
  readCommandLine,
  waitForExit,
} from '../helpers/processes.js';
import { everythingPath, filesystemPath, memoryPath } from '../helpers/servers.js';

const conformanceBackend = join(repoRoot, 'dist/testing/conformance-backend.js');
const SESSIONS = 5;

interface Session {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly listChanges: () => number;
  readonly updates: string[];
  readonly logs: unknown[];
}

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let sessions: Session[] = [];

const env = () => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  MCPX_HOME: join(home, '.mcpx'),
  // The socket's folder is this test's own.
  TMPDIR: dir.path,
  // Once the last session has gone the daemon ends, and its servers with it.
  MCPX_DAEMON_IDLE: '2',
  // Run as given: the daemon the first session starts inherits it (MCPX_GATEWAY_FAST_PATH=0: the full path).
  ...gatewayPathEnv(),
});

beforeEach(async () => {
  dir = await tempDir('mcpx-shared-');
  home = join(dir.path, 'home');
  await mkdir(join(home, '.mcpx'), { recursive: true });
});

afterEach(async () => {
  await Promise.all(sessions.map((s) => s.client.close().catch(() => {})));
  sessions = [];
  await runCli(['daemon', 'stop'], { cwd: dir.path, home, env: { TMPDIR: dir.path } });
  for (const pid of daemonPids(join(home, '.mcpx'))) process.kill(pid, 'SIGKILL');
  await dir.remove();
});

async function writeConfig(mcpServers: Record<string, unknown>): Promise<void> {
  await writeFile(join(home, '.mcpx', 'mcp.json'), JSON.stringify({ permission: 'yolo', mcpServers }));
}

/** One `mcpx serve` on stdio with an SDK client, as a host starts it; it answers questions as `who`. */
async function startSession(who: string): Promise<Session> {
  const client = new Client({ name: who, version: '0.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { username: who, email: `${who}@example.com` },
  }));
  let listChanges = 0;
  const updates: string[] = [];
  const logs: unknown[] = [];
  client.setNotificationHandler('notifications/message', (n) => {
    logs.push(n.params.data);
  });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    listChanges += 1;
  });
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    updates.push(n.params.uri);
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'serve'],
    env: env(),
    cwd: dir.path,
    stderr: 'pipe',
  });
  await client.connect(transport);
  const session = { client, transport, listChanges: () => listChanges, updates, logs };
  sessions.push(session);
  return session;
}

async function startSessions(expectedTools: readonly string[]): Promise<Session[]> {
  const started: Session[] = [];
  for (let i = 0; i < SESSIONS; i++) started.push(await startSession(`session${i}`));
  // Each session lists every server's tools (from a remembered list, or once its servers are up).
  for (const s of started) {
    await until(async () => {
      const names = (await s.client.listTools()).tools.map((t) => t.name);
      return expectedTools.every((t) => names.includes(t));
    });
  }
  return started;
}

async function until(check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await delay(50);
  }
}

async function starts(name: string): Promise<number[]> {
  const text = await readFile(join(dir.path, `${name}.starts`), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

const live = async (name: string) => (await starts(name)).filter((pid) => isAlive(pid));

/** The server processes the daemon runs (its children, watchdogs left out). */
function daemonServers(): number[] {
  const [daemon] = daemonPids(join(home, '.mcpx'));
  if (daemon === undefined) return [];
  return descendantPids(daemon).filter((pid) => !isOrphanWatchdog(pid));
}

interface StatusJson {
  running: boolean;
  servers?: {
    name: string;
    calls: number;
    sessions?: { pid?: number; command: string; calls: number }[];
  }[];
}

async function status(): Promise<StatusJson> {
  const run = await runCli(['daemon', 'status', '--json'], {
    cwd: dir.path,
    home,
    env: { TMPDIR: dir.path },
  });
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as StatusJson;
}

function testServer(name: string, keepAlive: boolean) {
  return {
    command: process.execPath,
    args: [testServerPath],
    ...(keepAlive ? { keep_alive: true } : {}),
    env: {
      MCPX_TEST_START_LOG: join(dir.path, `${name}.starts`),
      MCPX_TEST_CANCEL_LOG: join(dir.path, 'cancel.log'),
    },
  };
}

async function cancellations(): Promise<number> {
  const text = await readFile(join(dir.path, 'cancel.log'), 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l.includes('cancelled')).length;
}

describe('five mcpx serve sessions on one config', () => {
  it('share one process per keep-alive server, keep their own calls, progress, cancellation, subscriptions and questions, and leave nothing behind', {
    timeout: 180_000,
  }, async () => {
    await writeConfig({
      a: testServer('a', true),
      b: testServer('b', true),
      c: testServer('c', true),
      ask: { command: process.execPath, args: [conformanceBackend], keep_alive: true },
      plain: testServer('plain', false),
    });
    const all = await startSessions([
      'a__echo',
      'b__echo',
      'c__echo',
      'ask__test_elicitation',
      'plain__echo',
    ]);

    // One process per keep-alive server, in the daemon; the plain one still runs per session. A
    // session may list a server's tools from its remembered list while the server still starts
    // (gateway/stand-ins.ts), so its process is waited for.
    await until(
      async () =>
        (await live('plain')).length === SESSIONS &&
        (await Promise.all(['a', 'b', 'c'].map(live))).every((pids) => pids.length > 0) &&
        daemonServers().length === 4,
    );
    for (const name of ['a', 'b', 'c']) expect(await live(name)).toHaveLength(1);
    expect(await live('plain')).toHaveLength(SESSIONS);
    expect(daemonServers()).toHaveLength(4);

    // Each session's call gets its own answer.
    const echoes = await Promise.all(
      all.map((s, i) => s.client.callTool({ name: 'a__echo', arguments: { message: `from ${i}` } })),
    );
    expect(echoes.map(firstText)).toEqual(all.map((_, i) => `from ${i}`));

    // A server's log message during a call goes to the session whose call it is.
    await all[2]?.client.callTool({ name: 'a__log', arguments: { message: 'for session two' } });
    await until(() => all[2]?.logs.includes('for session two') ?? false);
    for (const i of [0, 1, 3, 4]) expect(all[i]?.logs).not.toContain('for session two');

    // Questions go to the session whose call asked, also when two ask at once.
    const asked = await Promise.all(
      [1, 3].map((i) =>
        all[i]?.client.callTool({ name: 'ask__test_elicitation', arguments: { message: 'who are you?' } }),
      ),
    );
    expect(firstText(asked[0])).toContain('"username":"session1"');
    expect(firstText(asked[1])).toContain('"username":"session3"');

    // Progress reaches the caller, and one session's cancel stops only its own call.
    const [zero, one, two, three, four] = all as [Session, Session, Session, Session, Session];
    const progress: number[] = [];
    const controller = new AbortController();
    const before = await cancellations();
    const cancelled = one.client.callTool(
      { name: 'b__slow_operation', arguments: { steps: 40, delay_ms: 50 } },
      {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p.progress);
          if (progress.length === 2) controller.abort();
        },
      },
    );
    const otherProgress: number[] = [];
    // Steps far enough apart that a loaded machine does not deliver several in one chunk with the
    // result, where the SDK client drops the progress (typescript-sdk#2580, below).
    const finished = two.client.callTool(
      { name: 'b__slow_operation', arguments: { steps: 4, delay_ms: 150 } },
      { onprogress: (p) => void otherProgress.push(p.progress) },
    );
    await expect(cancelled).rejects.toThrow();
    expect(progress.slice(0, 2)).toEqual([1, 2]);
    expect(firstText(await finished)).toBe('completed 4 steps');
    // The last step's progress may still lose to the result in the SDK Client itself
    // (typescript-sdk#2580); the ones before it may not.
    expect(otherProgress.slice(0, 3)).toEqual([1, 2, 3]);
    await until(async () => (await cancellations()) > before);
    await delay(300);
    expect((await cancellations()) - before).toBe(1);

    // A subscription is its subscriber's: a change made by another session reaches it alone.
    await three.client.subscribeResource({ uri: 'mcpx://b/test://counter' });
    await four.client.callTool({ name: 'b__touch_resource', arguments: {} });
    await until(() => three.updates.length > 0);
    expect(three.updates).toEqual(['mcpx://b/test://counter']);
    for (const s of [zero, one, two, four]) expect(s.updates).toEqual([]);

    // The shared server's list changed: every session is told, and lists the new tool.
    // (A session is told of a list change as its servers arrive, too: count from here.)
    const told = all.map((s) => s.listChanges());
    await zero.client.callTool({ name: 'c__add_tool', arguments: { name: 'added' } });
    await until(() => all.every((s, i) => s.listChanges() > (told[i] as number)));
    for (const s of all) expect((await s.client.listTools()).tools.map((t) => t.name)).toContain('c__added');

    // `daemon status` names each server's sessions: the five serve processes, with their calls.
    const pids = all.map((s) => s.transport.pid);
    const shown = await status();
    for (const name of ['a', 'b', 'c', 'ask']) {
      const server = shown.servers?.find((s) => s.name === name);
      expect(server?.sessions?.map((s) => s.pid).sort()).toEqual([...pids].sort());
      expect(new Set(server?.sessions?.map((s) => s.command))).toEqual(new Set(['mcpx serve']));
    }
    const a = shown.servers?.find((s) => s.name === 'a');
    // Its echo each, and session two's log call.
    const callsOf = (pid: number | null) => a?.sessions?.find((s) => s.pid === pid)?.calls;
    expect(pids.map(callsOf)).toEqual([1, 1, 2, 1, 1]);
    const text = await runCli(['daemon', 'status'], { cwd: dir.path, home, env: { TMPDIR: dir.path } });
    expect(text.stdout).toMatch(/SERVER +ENV +STATE +UPTIME +CALLS +SESSIONS/);
    // Session zero's row: its echo on a, its add_tool on c, nothing on b (servers in the order they came up).
    const row = text.stdout.split('\n').find((line) => line.startsWith(`${pids[0]} `)) ?? '';
    expect(row).toMatch(/^\d+ +mcpx serve +\d+s +/);
    for (const use of ['a (1)', 'b (0)', 'c (1)', 'ask (0)']) expect(row).toContain(use);

    // kill -9 of one session: the others keep working, on the same servers.
    const killed = pids[0] as number;
    process.kill(killed, 'SIGKILL');
    expect(await waitForExit(killed, 10_000)).toBe(true);
    for (const [i, s] of all.slice(1).entries()) {
      const r = await s.client.callTool({ name: 'a__echo', arguments: { message: `still ${i}` } });
      expect(firstText(r)).toBe(`still ${i}`);
    }
    for (const name of ['a', 'b', 'c']) expect(await live(name)).toHaveLength(1);
    await until(
      async () => (await status()).servers?.every((s) => s.sessions?.length === SESSIONS - 1) ?? false,
    );

    // Every session gone: the daemon ends on its own, and every server with it.
    const servers = [...daemonServers(), ...(await starts('plain'))];
    for (const s of all.slice(1)) await s.client.close();
    sessions = [];
    await until(() => daemonPids(join(home, '.mcpx')).length === 0, 20_000);
    for (const pid of servers) expect(await waitForExit(pid, 10_000)).toBe(true);
  });
});

describe('five mcpx serve sessions on the real npm servers', () => {
  it('run one server-everything, one server-memory and one server-filesystem between them', {
    timeout: 180_000,
  }, async () => {
    const files = join(dir.path, 'files');
    await mkdir(files);
    await writeFile(join(files, 'hello.txt'), 'hello from the shared filesystem server\n');
    await writeConfig({
      everything: { command: process.execPath, args: [everythingPath, 'stdio'], keep_alive: true },
      memory: {
        command: process.execPath,
        args: [memoryPath],
        keep_alive: true,
        env: { MEMORY_FILE_PATH: join(dir.path, 'memory.jsonl') },
      },
      filesystem: { command: process.execPath, args: [filesystemPath, files], keep_alive: true },
    });
    const all = await startSessions([
      'everything__echo',
      'memory__create_entities',
      'filesystem__read_text_file',
    ]);
    const servers = daemonServers();
    expect(servers.map((pid) => readCommandLine(pid)?.[1]).sort()).toEqual(
      [everythingPath, filesystemPath, memoryPath].sort(),
    );

    // Each session's calls, on each server.
    for (const [i, s] of all.entries()) {
      const echo = await s.client.callTool({ name: 'everything__echo', arguments: { message: `s${i}` } });
      expect(firstText(echo)).toContain(`s${i}`);
      const read = await s.client.callTool({
        name: 'filesystem__read_text_file',
        arguments: { path: join(files, 'hello.txt') },
      });
      expect(firstText(read)).toContain('hello from the shared filesystem server');
    }
    // What one session stores in the shared memory server, another reads.
    await all[0]?.client.callTool({
      name: 'memory__create_entities',
      arguments: { entities: [{ name: 'shared', entityType: 'fact', observations: ['one process'] }] },
    });
    const graph = await all[4]?.client.callTool({ name: 'memory__read_graph', arguments: {} });
    expect(JSON.stringify(graph)).toContain('one process');

    // Progress, and a cancel that stops one session's call while another's finishes.
    const progress: number[] = [];
    const controller = new AbortController();
    const cancelled = all[1]?.client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 30, steps: 30 } },
      {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p.progress);
          if (progress.length === 2) controller.abort();
        },
      },
    );
    const finishedProgress: number[] = [];
    const finished = all[2]?.client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 1, steps: 4 } },
      { onprogress: (p) => void finishedProgress.push(p.progress) },
    );
    await expect(cancelled).rejects.toThrow();
    expect(progress.slice(0, 2)).toEqual([1, 2]);
    expect(firstText(await finished)).toMatch(/completed/i);
    expect(finishedProgress.slice(0, 3)).toEqual([1, 2, 3]);

    // A resource subscription is its subscriber's alone.
    const [resource] = (await all[3]?.client.listResources())?.resources ?? [];
    expect(resource).toBeDefined();
    await all[3]?.client.subscribeResource({ uri: resource?.uri as string });
    // The server tells its subscribers every 5 s once asked to, whichever session asked.
    await all[0]?.client.callTool({ name: 'everything__toggle-subscriber-updates', arguments: {} });
    await until(() => (all[3]?.updates.length ?? 0) > 0, 20_000);
    expect(new Set(all[3]?.updates)).toEqual(new Set([resource?.uri]));
    for (const i of [0, 1, 2, 4]) expect(all[i]?.updates).toEqual([]);
    expect((await status()).servers?.find((s) => s.name === 'everything')?.sessions).toHaveLength(SESSIONS);

    // kill -9 of one session: the others keep working.
    const killed = all[0]?.transport.pid as number;
    process.kill(killed, 'SIGKILL');
    expect(await waitForExit(killed, 10_000)).toBe(true);
    for (const s of all.slice(1)) {
      const r = await s.client.callTool({ name: 'everything__echo', arguments: { message: 'after' } });
      expect(firstText(r)).toContain('after');
    }
    expect(daemonServers().sort()).toEqual([...servers].sort());

    for (const s of all.slice(1)) await s.client.close();
    sessions = [];
    await until(() => daemonPids(join(home, '.mcpx')).length === 0, 20_000);
    for (const pid of servers) expect(await waitForExit(pid, 10_000)).toBe(true);
  });
});
