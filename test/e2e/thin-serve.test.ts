/**
 * A thin `mcpx serve`: with a keep-alive daemon holding every server it serves, the stdio
 * serve a host starts (Claude Code starts one per session) is a light bridge; the daemon
 * runs the session. Its client sees the same gateway: lists, calls, progress, a consent
 * round. Which files a process loads is recorded per pid (`helpers/module-loads.ts`), as in
 * daemon-light-caller.test.ts.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { cliPath, gatewayPathEnv, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { firstText } from '../helpers/gateway.js';
import { heavyIn, type ModuleLoads, recordModuleLoads } from '../helpers/module-loads.js';
import { daemonPids, waitForExit } from '../helpers/processes.js';

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let loads: ModuleLoads;
const clients: Client[] = [];

const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  MCPX_HOME: join(home, '.mcpx'),
  // The socket's folder is this test's own.
  TMPDIR: dir.path,
  MCPX_DAEMON_IDLE: '2',
  // Run as given: the daemon this session starts inherits it (MCPX_GATEWAY_FAST_PATH=0: the full path).
  ...gatewayPathEnv(),
  ...extra,
});

beforeEach(async () => {
  dir = await tempDir('mcpx-thin-');
  home = join(dir.path, 'home');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  loads = await recordModuleLoads(dir.path);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await runCli(['daemon', 'stop'], { cwd: dir.path, home, env: { TMPDIR: dir.path } });
  for (const pid of daemonPids(join(home, '.mcpx'))) process.kill(pid, 'SIGKILL');
  await dir.remove();
});

function server(name: string, keepAlive: boolean) {
  return {
    command: process.execPath,
    args: [testServerPath],
    ...(keepAlive ? { keep_alive: true } : {}),
    // Its tools say nothing of themselves (no readOnlyHint): a call is the person's to decide.
    env: { MCPX_TEST_ANNOTATED: '0', MCPX_TEST_START_LOG: join(dir.path, `${name}.starts`) },
  };
}

async function writeConfig(file: string, mcpServers: Record<string, unknown>): Promise<void> {
  await writeFile(file, JSON.stringify({ permission: 'trusted', mcpServers }));
}

const globalConfig = () => join(home, '.mcpx', 'mcp.json');

async function startDaemon(args: readonly string[] = []): Promise<void> {
  const started = await runCli([...args, 'daemon', 'start'], {
    cwd: dir.path,
    home,
    env: { TMPDIR: dir.path, MCPX_DAEMON_IDLE: '2' },
  });
  expect(started.code).toBe(0);
}

/** `mcpx serve` on stdio with an SDK client, as Claude Code starts it; consent forms answered `allow-all`. */
async function session(
  args: readonly string[] = [],
  record = false,
  serveArgs: readonly string[] = [],
  era?: 'legacy' | 'modern',
) {
  const client = new Client(
    { name: 'thin-test', version: '0.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(era
        ? {
            versionNegotiation:
              era === 'legacy' ? { mode: 'legacy' as const } : { mode: { pin: '2026-07-28' } },
          }
        : {}),
    },
  );
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { decision: 'allow-all' } };
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, ...args, 'serve', ...serveArgs],
    env: env(record ? { NODE_OPTIONS: loads.nodeOptions } : {}),
    cwd: dir.path,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport, asked, stderr: () => stderr, pid: transport.pid as number };
}

/** The mcpx files (dist/…) one process loaded, once it has exited. */
async function loadedFiles(pid: number): Promise<string[]> {
  return (await loads.loadedFiles(pid)).filter((f) => /[\\/]dist[\\/]/.test(f));
}

/** Private memory of a process (kB): what one more session costs, the Node binary's shared pages left out. */
async function rssAnonKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/RssAnon:\s+(\d+)/.exec(status)?.[1]);
}

async function until(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('mcpx serve with every server held by the daemon', () => {
  it("a profile is applied by the daemon's session: hidden tools are neither listed nor callable", {
    timeout: 120_000,
  }, async () => {
    await writeFile(
      globalConfig(),
      JSON.stringify({
        permission: 'trusted',
        mcpServers: { local: server('local', true) },
        profiles: { narrow: { tools: ['local.echo'], permission: 'trusted' } },
      }),
    );
    await startDaemon();
    const thin = await session([], true, ['--profile', 'narrow']);
    await until(async () => (await thin.client.listTools()).tools.some((t) => t.name === 'local__echo'));
    expect((await thin.client.listTools()).tools.map((t) => t.name)).toEqual(['local__echo']);
    const hidden = await thin.client.callTool({ name: 'local__add', arguments: { a: 1, b: 2 } });
    expect(hidden.isError).toBe(true);
    expect(firstText(hidden)).toContain("not in profile 'narrow'");
    await thin.client.close();
    expect(await waitForExit(thin.pid, 10_000)).toBe(true);
    // Thin all the same: the light chunk, none of the SDK, zod, ajv or the gateway.
    expect(await heavyIn(await loadedFiles(thin.pid))).toEqual([]);
  });

  it('is a light bridge: the daemon runs the session, with its lists, calls, progress and consent', {
    timeout: 120_000,
  }, async () => {
    await writeConfig(globalConfig(), { local: server('local', true) });
    await startDaemon();
    const thin = await session([], true);

    // A list waits 2 s for a server still starting; on a loaded machine it may answer before it.
    await until(async () => (await thin.client.listTools()).tools.some((t) => t.name === 'local__echo'));
    const tools = (await thin.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['local__echo', 'local__slow_operation']));
    // The consent round: the daemon's session asks this client, and its answer holds for the session.
    expect(firstText(await thin.client.callTool({ name: 'local__echo', arguments: { message: 'hi' } }))).toBe(
      'hi',
    );
    expect(thin.asked).toHaveLength(1);
    expect(thin.asked[0]).toContain("MCP server 'local'");
    const progress: number[] = [];
    const slow = await thin.client.callTool(
      { name: 'local__slow_operation', arguments: { steps: 4, delay_ms: 30 } },
      { onprogress: (p) => void progress.push(p.progress) },
    );
    expect(firstText(slow)).toBe('completed 4 steps');
    expect(progress.slice(0, 3)).toEqual([1, 2, 3]);
    expect(thin.asked).toHaveLength(1);

    // `daemon status` lists the session as this serve process.
    const status = await runCli(['daemon', 'status', '--json'], {
      cwd: dir.path,
      home,
      env: { TMPDIR: dir.path },
    });
    const local = (
      JSON.parse(status.stdout) as {
        servers: { name: string; sessions: { pid?: number; command: string }[] }[];
      }
    ).servers.find((s) => s.name === 'local');
    expect(local?.sessions).toContainEqual(expect.objectContaining({ pid: thin.pid, command: 'mcpx serve' }));

    await thin.client.close();
    expect(await waitForExit(thin.pid, 10_000)).toBe(true);
    // The CommonJS entry and its light chunk: none of the SDK, zod, ajv or the gateway.
    const files = await loadedFiles(thin.pid);
    expect(files.map((f) => f.split(/[\\/]/).slice(-2).join('/'))).toEqual([
      'bin/mcpx.cjs',
      expect.stringMatching(/^chunks\/light-[\w-]+\.cjs$/),
    ]);
    expect(await heavyIn(files)).toEqual([]);
    expect(thin.stderr()).toBe('');
    // One server process served it: the daemon's.
    expect((await readFile(join(dir.path, 'local.starts'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(
      1,
    );
  });

  it('starts the daemon when none runs, and costs a fraction of a full serve in private memory', {
    timeout: 120_000,
  }, async () => {
    await writeConfig(globalConfig(), { local: server('local', true) });
    // No daemon yet: the first session starts it (as the full serve would), and is thin too.
    const thin = await session([], true);
    expect(daemonPids(join(home, '.mcpx'))).toHaveLength(1);
    // The same serve started with the daemon route off: today's full process.
    const direct = new Client({ name: 'direct', version: '0' });
    const directTransport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'serve'],
      env: env({ MCPX_DAEMON: 'off' }),
      cwd: dir.path,
      stderr: 'pipe',
    });
    await direct.connect(directTransport);
    clients.push(direct);
    // Its memory measured on a second session without the module-load recorder, which loads
    // modules of its own into the process it watches (~10 MB of the first session's).
    const bare = await session();
    for (const c of [thin.client, bare.client, direct]) await c.listTools();
    const thinKb = await rssAnonKb(bare.pid);
    const directKb = await rssAnonKb(directTransport.pid as number);
    expect(thinKb).toBeLessThan(directKb / 4);
    await thin.client.close();
    expect(await waitForExit(thin.pid, 10_000)).toBe(true);
    expect(await heavyIn(await loadedFiles(thin.pid))).toEqual([]);
  });

  it('falls back to a full serve when a server it serves is not held by the daemon', {
    timeout: 120_000,
  }, async () => {
    await writeConfig(globalConfig(), { local: server('local', true), plain: server('plain', false) });
    await startDaemon();
    const full = await session([], true);
    await until(async () => {
      const names = (await full.client.listTools()).tools.map((t) => t.name);
      return names.includes('local__echo') && names.includes('plain__echo');
    });
    expect(
      firstText(await full.client.callTool({ name: 'plain__echo', arguments: { message: 'direct' } })),
    ).toBe('direct');
    await full.client.close();
    expect(await waitForExit(full.pid, 10_000)).toBe(true);
    expect(await heavyIn(await loadedFiles(full.pid))).not.toEqual([]);
    expect(full.stderr()).toBe('');
  });

  it('starts no daemon for a config whose servers all say "keep_alive": false', {
    timeout: 120_000,
  }, async () => {
    await writeConfig(globalConfig(), { local: { ...server('local', false), keep_alive: false } });
    const full = await session();
    expect((await full.client.listTools()).tools.map((t) => t.name)).toContain('local__echo');
    await full.client.close();
    expect(await waitForExit(full.pid, 10_000)).toBe(true);
    expect(daemonPids(join(home, '.mcpx'))).toEqual([]);
  });

  it('shares one daemon between configs with the same content at different paths', {
    timeout: 120_000,
  }, async () => {
    const one = join(dir.path, 'clone-1', 'mcp.json');
    const two = join(dir.path, 'clone-2', 'mcp.json');
    await mkdir(join(dir.path, 'clone-1'));
    await mkdir(join(dir.path, 'clone-2'));
    // No global config: each clone's file alone is the config.
    await writeConfig(one, { local: server('local', true) });
    await copyFile(one, two);
    await startDaemon(['--config', one]);
    const thin = await session(['--config', two], true);
    expect(
      firstText(await thin.client.callTool({ name: 'local__echo', arguments: { message: 'shared' } })),
    ).toBe('shared');
    expect(daemonPids(join(home, '.mcpx'))).toHaveLength(1);
    expect((await readFile(join(dir.path, 'local.starts'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(
      1,
    );
    // Either path names the same daemon, and the second session was a thin one on it.
    const statusOf = async (file: string) => {
      const run = await runCli(['--config', file, 'daemon', 'status', '--json'], {
        cwd: dir.path,
        home,
        env: { TMPDIR: dir.path },
      });
      return (JSON.parse(run.stdout) as { pid?: number }).pid;
    };
    expect(await statusOf(two)).toBe(await statusOf(one));
    await thin.client.close();
    expect(await waitForExit(thin.pid, 10_000)).toBe(true);
    expect(await heavyIn(await loadedFiles(thin.pid))).toEqual([]);
    const stop = await runCli(['--config', one, 'daemon', 'stop'], {
      cwd: dir.path,
      home,
      env: { TMPDIR: dir.path },
    });
    expect(stop.code).toBe(0);
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`carries a ${era} client's session over to a new daemon when its daemon stops: a call in flight is told, the next ones go on`, {
      timeout: 120_000,
    }, async () => {
      await writeConfig(globalConfig(), { kept: server('kept', true) });
      await startDaemon();
      const [first] = daemonPids(join(home, '.mcpx'));
      const { client, stderr } = await session([], false, [], era);
      // A 2025-11-25 session's state, replayed to the new daemon; a 2026-07-28 client has none (stateless).
      if (era === 'legacy') await client.setLoggingLevel('info');
      expect(firstText(await client.callTool({ name: 'kept__echo', arguments: { message: 'before' } }))).toBe(
        'before',
      );
      // Its outcome held at once: it settles while the daemon is being stopped.
      const inFlight = client
        .callTool({ name: 'kept__slow_operation', arguments: { duration: 30, steps: 3 } })
        .then(
          () => 'answered',
          (error: Error) => error.message,
        );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const stop = await runCli(['daemon', 'stop'], { cwd: dir.path, home, env: { TMPDIR: dir.path } });
      expect(stop.code).toBe(0);
      // Before, the bridge ended ("the mcpx daemon ended this session") and the client's calls with it.
      expect(await inFlight).toMatch(/the mcpx daemon stopped while this tools\/call request ran/);
      expect(firstText(await client.callTool({ name: 'kept__echo', arguments: { message: 'after' } }))).toBe(
        'after',
      );
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('kept__echo');
      expect(stderr()).toContain('carrying this session over to a new one');
      const [second] = daemonPids(join(home, '.mcpx'));
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
    });
  }

  it('tells a client of no request the daemon skipped when the daemon stops (a line that is not JSON-RPC)', {
    timeout: 120_000,
  }, async () => {
    await writeConfig(globalConfig(), { kept: server('kept', true) });
    await startDaemon();
    // A raw client: the SDK's would not send a request without `jsonrpc`.
    const serve = spawn(process.execPath, [cliPath, 'serve', '--allow', 'kept'], {
      env: env(),
      cwd: dir.path,
    });
    onTestFinished(() => {
      serve.kill('SIGKILL');
    });
    const lines: { id?: unknown; error?: { message: string }; result?: unknown }[] = [];
    let carry = '';
    serve.stdout.on('data', (chunk: Buffer) => {
      const parts = (carry + chunk.toString('utf8')).split('\n');
      carry = parts.pop() ?? '';
      for (const part of parts) if (part) lines.push(JSON.parse(part) as (typeof lines)[number]);
    });
    const send = (text: string) => serve.stdin.write(`${text}\n`);
    const answered = async (id: unknown) => {
      for (let i = 0; i < 200 && !lines.some((l) => l.id === id); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      return lines.find((l) => l.id === id);
    };
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      }),
    );
    expect(await answered(0)).toHaveProperty('result');
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    // The daemon's transport skips it (JSON, but no JSON-RPC message): it never answers it.
    send('{"method":"tools/call","params":{"name":"kept__echo","arguments":{"message":"x"}},"id":"skipped"}');
    send(
      '{"method":"tools/call","params":{"name":"kept__slow_operation","arguments":{"duration":30,"steps":3}},"jsonrpc":"2.0","id":1}',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await runCli(['daemon', 'stop'], { cwd: dir.path, home, env: { TMPDIR: dir.path } })).code).toBe(
      0,
    );
    expect((await answered(1))?.error?.message).toMatch(
      /the mcpx daemon stopped while this tools\/call request ran/,
    );
    send(
      '{"method":"tools/call","params":{"name":"kept__echo","arguments":{"message":"after"}},"jsonrpc":"2.0","id":2}',
    );
    expect(await answered(2)).toHaveProperty('result');
    // Before, the bridge answered it as lost: an answer to a request no daemon took.
    expect(lines.filter((l) => l.id === 'skipped')).toEqual([]);
    serve.stdin.end();
    expect(await waitForExit(serve.pid as number, 10_000)).toBe(true);
  });
});
