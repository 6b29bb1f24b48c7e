import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliRun, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { daemonPids, isAlive, waitForExit } from '../helpers/processes.js';

interface World {
  dir: string;
  home: string;
  configFile: string;
  cancelLog: string;
  remove: () => Promise<void>;
}

let world: World;

async function writeConfig(servers: Record<string, Record<string, unknown>>): Promise<void> {
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, extra]) => [
      name,
      {
        command: process.execPath,
        args: [testServerPath],
        keep_alive: true,
        ...extra,
        env: {
          MCPX_TEST_START_LOG: join(world.dir, `${name}.starts`),
          MCPX_TEST_CANCEL_LOG: world.cancelLog,
          ...((extra.env as Record<string, string>) ?? {}),
        },
      },
    ]),
  );
  await writeFile(world.configFile, JSON.stringify({ mcpServers }));
}

beforeEach(async () => {
  const { path, remove } = await tempDir('mcpx-daemon-');
  const home = join(path, 'home');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  const dir = join(path, 'work');
  await mkdir(dir);
  world = {
    dir,
    home,
    configFile: join(home, '.mcpx', 'mcp.json'),
    cancelLog: join(path, 'cancel.log'),
    remove,
  };
  await writeConfig({ a: {}, b: {}, c: {} });
});

afterEach(async () => {
  await mcpx(['daemon', 'stop']);
  for (const pid of ourDaemons()) process.kill(pid, 'SIGKILL');
  await world.remove();
});

function mcpx(args: readonly string[], env: Record<string, string> = {}, extra = {}): Promise<CliRun> {
  // The socket's folder is this test's own (mcpx-<uid> in TMPDIR), so a test may make it unsafe.
  const tmp = { TMPDIR: dirname(world.dir), ...env };
  return runCli(args, { cwd: world.dir, home: world.home, env: tmp, timeoutMs: 60_000, ...extra });
}

/** Live server processes started for `name` (pids from the test server's start log). */
async function starts(name: string): Promise<number[]> {
  const text = await readFile(join(world.dir, `${name}.starts`), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

async function liveServers(name: string): Promise<number[]> {
  return (await starts(name)).filter((pid) => isAlive(pid));
}

/** mcpx daemons of this test's home. */
const ourDaemons = () => daemonPids(join(world.home, '.mcpx'));

async function status(): Promise<{
  running: boolean;
  pid?: number;
  servers?: { name: string; state: string; calls: number; uptimeMs?: number; lastError?: string }[];
}> {
  const run = await mcpx(['daemon', 'status', '--json']);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

describe('mcpx daemon', () => {
  it('starts on demand for a keep_alive server and gives the same stdout and exit codes as the direct path', async () => {
    const cases: string[][] = [
      ['call', 'a.echo', 'message=hello'],
      ['--json', 'call', 'a.add', 'a=2', 'b=3'],
      ['call', 'a.fail'],
      ['--json', 'call', 'a.fail'],
      ['call', 'a.no_such_tool'],
      ['tools', 'a'],
    ];
    const viaDaemon: CliRun[] = [];
    for (const args of cases) viaDaemon.push(await mcpx(args));
    const direct: CliRun[] = [];
    for (const args of cases) direct.push(await mcpx(args, { MCPX_DAEMON: 'off' }));

    for (const [i, args] of cases.entries()) {
      expect({ args, code: viaDaemon[i]?.code, stdout: viaDaemon[i]?.stdout }).toEqual({
        args,
        code: direct[i]?.code,
        stdout: direct[i]?.stdout,
      });
    }
    expect(viaDaemon.map((r) => r.code)).toEqual([0, 0, 5, 5, 1, 0]);
    expect(viaDaemon[0]?.stdout).toBe('hello\n');

    // Through the daemon the server was started once (the direct runs started one each).
    expect((await starts('a')).length).toBe(1 + cases.length);
    const now = await status();
    expect(now.running).toBe(true);
    expect(ourDaemons()).toEqual([now.pid]);
    const a = now.servers?.find((s) => s.name === 'a');
    expect(a?.state).toBe('ready');
    // Five calls reached it: `call a.no_such_tool` has no arguments to type, so it is sent as is
    // and the server's refusal is explained from the list afterwards.
    expect(a?.calls).toBe(5);
    expect(a?.uptimeMs).toBeGreaterThanOrEqual(0);
    const table = await mcpx(['daemon', 'status']);
    expect(table.stdout).toMatch(/SERVER\s+ENV\s+STATE\s+UPTIME\s+CALLS\s+SESSIONS\s+LAST ERROR/);
    // No session holds it between commands.
    expect(table.stdout).toMatch(/\ba\s+[0-9a-f]{8}\s+ready\s+\S+\s+5\s+0\s+-/);
  }, 120_000);

  it('50 simultaneous first callers start exactly one daemon and one server', async () => {
    const runs = await Promise.all(
      Array.from({ length: 50 }, (_, i) => mcpx(['call', 'a.echo', `message=caller ${i}`])),
    );
    expect(runs.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
    expect(runs.map((r) => r.stdout)).toEqual(runs.map((_, i) => `caller ${i}\n`));
    expect(ourDaemons()).toHaveLength(1);
    expect(await starts('a')).toHaveLength(1);
  }, 180_000);

  it('50 callers × 20 calls on 3 servers leave exactly 3 server processes; stop leaves none', async () => {
    expect((await mcpx(['daemon', 'start'])).code).toBe(0);
    const { Client } = await import('@modelcontextprotocol/client');
    const { openDaemon, daemonPaths, daemonKey, DaemonSocketTransport } = await import(
      '../../src/daemon-client/index.js'
    );
    const { createHomeFiles } = await import('../../src/home/index.js');
    const { loadConfig, loadTrustStore } = await import('../../src/config/index.js');
    const mcpxHome = join(world.home, '.mcpx');
    const env = { HOME: world.home, MCPX_HOME: mcpxHome };
    const config = await loadConfig({
      cwd: world.dir,
      env,
      home: mcpxHome,
      trust: await loadTrustStore(mcpxHome),
    });
    const home = createHomeFiles(mcpxHome);
    const paths = daemonPaths(home, daemonKey(config.files.map((f) => f.path)), {
      platform: process.platform,
      env: { TMPDIR: dirname(world.dir) },
    });
    const names = ['a', 'b', 'c'];
    const caller = async (i: number) => {
      const server = config.servers.find((s) => s.name === names[i % 3]);
      if (!server) throw new Error('no server');
      const { socket } = await openDaemon(
        { op: 'serve', server },
        { home, paths, pid: process.pid, uid: process.getuid?.() },
      );
      const client = new Client(
        { name: 'daemon-test', version: '0' },
        { versionNegotiation: { mode: 'legacy' } },
      );
      await client.connect(new DaemonSocketTransport(socket, server.name));
      const texts: string[] = [];
      for (let call = 0; call < 20; call++) {
        const result = await client.callTool({ name: 'echo', arguments: { message: `${i}/${call}` } });
        texts.push((result.content as { text: string }[])[0]?.text ?? '');
      }
      await client.close();
      return texts;
    };
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => caller(i)));
    expect(results[7]?.[19]).toBe('7/19');
    expect(results.flat()).toHaveLength(1000);

    for (const name of names) {
      expect(await starts(name)).toHaveLength(1);
      expect(await liveServers(name)).toHaveLength(1);
    }
    const now = await status();
    expect(now.servers?.map((s) => s.calls).reduce((x, y) => x + y, 0)).toBe(1000);

    const all = [...(await starts('a')), ...(await starts('b')), ...(await starts('c'))];
    expect((await mcpx(['daemon', 'stop'])).code).toBe(0);
    for (const pid of all) expect(await waitForExit(pid, 5_000)).toBe(true);
    expect(ourDaemons()).toEqual([]);
    expect((await status()).running).toBe(false);
  }, 180_000);

  it('kill -9 of the daemon leaves no server behind, and the next call recovers the stale socket', async () => {
    await mcpx(['call', 'a.echo', 'message=1']);
    await mcpx(['call', 'b.echo', 'message=1']);
    const servers = [...(await liveServers('a')), ...(await liveServers('b'))];
    expect(servers).toHaveLength(2);
    const [daemon] = ourDaemons();
    process.kill(daemon as number, 'SIGKILL');
    for (const pid of servers) expect(await waitForExit(pid, 5_000)).toBe(true);

    const again = await mcpx(['call', 'a.echo', 'message=after']);
    expect(again.stdout).toBe('after\n');
    expect(ourDaemons()).toHaveLength(1);
    expect(ourDaemons()[0]).not.toBe(daemon);
  }, 120_000);

  it('`daemon run` typed by hand while a daemon serves is refused and leaves that daemon serving', async () => {
    expect((await mcpx(['call', 'a.echo', 'message=1'])).code).toBe(0);
    const [daemon] = ourDaemons();
    const second = await mcpx(['daemon', 'run']);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(`an mcpx daemon \\(pid ${daemon}\\) already serves this config`),
    );
    expect(second.stderr).toContain('mcpx daemon stop');
    expect((await mcpx(['call', 'a.echo', 'message=2'])).stdout).toBe('2\n');
    expect(ourDaemons()).toEqual([daemon]);
    expect(await starts('a')).toHaveLength(1);
  }, 120_000);

  it("list shows a daemon-held server's own protocol version, as the direct path does", async () => {
    await writeConfig({ a: {} });
    const protocolOf = (run: CliRun) =>
      (JSON.parse(run.stdout) as { name: string; protocol?: string }[]).find((s) => s.name === 'a')?.protocol;
    const direct = protocolOf(await mcpx(['--json', 'list'], { MCPX_DAEMON: 'off' }));
    expect(direct).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const warm = protocolOf(await mcpx(['--json', 'list']));
    expect(ourDaemons()).toHaveLength(1);
    expect(warm).toBe(direct);
  }, 120_000);

  it('Ctrl-C cancels the call inside the daemon and the server hears it', async () => {
    await mcpx(['call', 'a.echo', 'message=warm']);
    const run = await mcpx(
      ['call', 'a.slow_operation', 'steps=200', 'delay_ms=50'],
      {},
      {
        onSpawn: (pid: number) => setTimeout(() => process.kill(pid, 'SIGINT'), 2500),
      },
    );
    expect(run.code).toBe(130);
    const deadline = Date.now() + 5_000;
    let log = '';
    while (Date.now() < deadline && !log.includes('cancelled')) {
      log = await readFile(world.cancelLog, 'utf8').catch(() => '');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(log).toContain('slow_operation cancelled');
    // The server survived the cancellation: the same process answers the next call.
    expect((await mcpx(['call', 'a.echo', 'message=still'])).stdout).toBe('still\n');
    expect(await starts('a')).toHaveLength(1);
  }, 120_000);

  it('a changed entry restarts only that server; a crashed one is reported and started again', async () => {
    await mcpx(['call', 'a.echo', 'message=1']);
    await mcpx(['call', 'b.echo', 'message=1']);
    const [firstA] = await starts('a');
    const [firstB] = await starts('b');
    await writeConfig({ a: { env: { CHANGED: '1' } }, b: {}, c: {} });
    expect((await mcpx(['call', 'a.echo', 'message=2'])).stdout).toBe('2\n');
    expect((await mcpx(['call', 'b.echo', 'message=2'])).stdout).toBe('2\n');
    expect(await starts('a')).toHaveLength(2);
    expect(await waitForExit(firstA as number, 5_000)).toBe(true);
    expect(await liveServers('b')).toEqual([firstB]);

    process.kill(firstB as number, 'SIGKILL');
    await waitForExit(firstB as number, 5_000);
    const after = await mcpx(['call', 'b.echo', 'message=3']);
    expect(after.code).toBe(0);
    expect(after.stdout).toBe('3\n');
    expect(after.stderr).toMatch(/'b' stopped since the last call/);
    expect(await liveServers('b')).toHaveLength(1);
    const b = (await status()).servers?.find((s) => s.name === 'b');
    expect(b?.lastError).toBeTruthy();
  }, 120_000);

  it('idle shutdown: a server after its keep_alive_idle, the daemon after its own idle time', async () => {
    await writeConfig({ a: { keep_alive_idle: 1 }, b: {}, c: {} });
    await mcpx(['call', 'a.echo', 'message=1'], { MCPX_DAEMON_IDLE: '4' });
    await mcpx(['call', 'b.echo', 'message=1'], { MCPX_DAEMON_IDLE: '4' });
    const [a] = await starts('a');
    const [b] = await starts('b');
    const [daemon] = ourDaemons();
    expect(await waitForExit(a as number, 6_000)).toBe(true);
    expect(isAlive(b as number)).toBe(true);
    expect(await waitForExit(daemon as number, 15_000)).toBe(true);
    expect(await waitForExit(b as number, 5_000)).toBe(true);
    expect(await readdir(join(world.home, '.mcpx', 'run'))).toEqual([]);
  }, 120_000);

  it('start --all keeps a server without keep_alive warm while it runs; without it that server starts per command', async () => {
    await writeConfig({ plain: { keep_alive: false } });
    expect((await mcpx(['call', 'plain.echo', 'message=1'])).stdout).toBe('1\n');
    expect(ourDaemons()).toEqual([]);
    expect((await mcpx(['daemon', 'start', '--all'])).code).toBe(0);
    // --all connects every server at start; the calls then find it warm.
    expect((await mcpx(['call', 'plain.echo', 'message=2'])).stdout).toBe('2\n');
    expect((await mcpx(['call', 'plain.echo', 'message=3'])).stdout).toBe('3\n');
    expect(await starts('plain')).toHaveLength(2);
    const now = await status();
    expect(now.servers).toEqual([expect.objectContaining({ name: 'plain', state: 'ready', calls: 2 })]);
  }, 120_000);

  it('refuses a socket folder or socket another user could reach', async () => {
    const run = join(dirname(world.dir), `mcpx-${process.getuid?.() ?? 0}`);
    await mkdir(run, { mode: 0o700 });
    await chmod(run, 0o755);
    const refused = await mcpx(['call', 'a.echo', 'message=1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/daemon's folder .*mcpx-\d+ is reachable by other users \(mode 755\)/);
    expect(await starts('a')).toEqual([]);

    await chmod(run, 0o700);
    expect((await mcpx(['call', 'a.echo', 'message=1'])).code).toBe(0);
    const [socket] = (await readdir(run)).filter((f) => f.endsWith('.sock'));
    await chmod(join(run, socket as string), 0o666);
    const second = await mcpx(['--json', 'call', 'a.echo', 'message=1']);
    expect(second.code).toBe(2);
    expect(JSON.parse(second.stderr).error.code).toBe('DAEMON_UNSAFE');
  }, 120_000);
});
