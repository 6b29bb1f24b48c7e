/**
 * Issue 24, item 2: mcpx never starts itself as its own server, and no server outlives the
 * mcpx that started it — not a gateway's upstream when the outer command ends, not
 * anything when mcpx is `kill -9`ed.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import {
  descendantPids,
  isOrphanWatchdog,
  procAvailable,
  readCommandLine,
  readProcess,
  trackProcessTree,
} from '../helpers/processes.js';

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let bin: string;
let stubbornConfig: string;

/** A server that ignores SIGTERM and the end of its input: only SIGKILL ends it. */
const stubborn = {
  command: process.execPath,
  args: [testServerPath],
  env: { MCPX_TEST_FAULT: 'ignore-sigterm' },
};

beforeAll(async () => {
  dir = await tempDir('mcpx-orphans-');
  home = join(dir.path, 'home');
  bin = join(dir.path, 'bin');
  await mkdir(home, { recursive: true });
  await mkdir(bin, { recursive: true });
  // `mcpx` on PATH, as an installed mcpx would be.
  await writeFile(join(bin, 'mcpx'), `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`);
  await chmod(join(bin, 'mcpx'), 0o755);
  stubbornConfig = join(dir.path, 'x.json');
  await writeFile(stubbornConfig, JSON.stringify({ mcpServers: { stubborn } }));
});

afterAll(async () => {
  await dir.remove();
});

const env = () => ({ PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` });

/**
 * Every command line seen below `root` while the returned sampler ran (every 10 ms). A child
 * caught between fork and exec still shows its parent's command line; when the same pid later
 * shows another line, that first sighting was the fork and is left out. A child that only ever
 * shows its parent's line (mcpx starting itself by its own command) is kept.
 */
function sampleCommandLines(root: () => number | undefined) {
  // Every line each process showed: one pid goes from the wrapper's shell to node by exec, and a
  // process that has exited (a zombie) shows an empty line, which must not hide what it ran.
  const seen = new Map<number, { lines: Set<string>; parentLines: Set<string> }>();
  const timer = setInterval(() => {
    const pid = root();
    if (pid === undefined) return;
    const own = readCommandLine(pid)?.join(' ');
    for (const child of descendantPids(pid)) {
      const line = readCommandLine(child)?.join(' ');
      if (!line || line === own) continue;
      const entry = seen.get(child) ?? { lines: new Set<string>(), parentLines: new Set<string>() };
      seen.set(child, entry);
      entry.lines.add(line);
      const ppid = readProcess(child)?.ppid;
      const parentLine = ppid === undefined ? undefined : readCommandLine(ppid)?.join(' ');
      if (parentLine === line) entry.parentLines.add(line);
    }
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return [...seen.values()].flatMap(({ lines, parentLines }) =>
        [...lines].filter((line) => !(parentLines.has(line) && lines.size > 1)),
      );
    },
  };
}

/** `mcpx <args>` in `cwd`, with every command line spawned below it (see sampleCommandLines). */
async function runSampled(args: readonly string[], cwd: string) {
  let pid: number | undefined;
  const sampler = sampleCommandLines(() => pid);
  const run = await runCli(args, {
    cwd,
    home,
    env: env(),
    onSpawn: (p) => {
      pid = p;
    },
  });
  return { run, spawned: sampler.stop() };
}

/** A project folder with `.mcp.json` holding `servers`, approved with `mcpx config trust`. */
async function trustedProject(name: string, servers: Record<string, unknown>): Promise<string> {
  const project = join(dir.path, name);
  await mkdir(project, { recursive: true });
  await writeFile(join(project, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
  const trust = await runCli(['config', 'trust', '--yes'], { cwd: project, home, env: env() });
  expect(trust.code, trust.stderr).toBe(0);
  return project;
}

/** A Node process, by the name /proc gives it: Node 24 names its main thread `MainThread`, earlier ones `node`. */
const isNode = (p: { readonly command: string }) => p.command === 'node' || p.command === 'MainThread';

describe.runIf(procAvailable)('mcpx never starts itself', () => {
  const selfEntries = {
    mcpx: { command: 'mcpx', args: ['serve'] },
    bundle: { command: process.execPath, args: [cliPath, 'serve'] },
    npx: { command: 'npx', args: ['-y', 'mcpx@latest', 'serve'] },
  };

  it('a trusted .mcp.json entry that runs mcpx is skipped with a notice; no second mcpx is ever spawned', async () => {
    const project = await trustedProject('self', selfEntries);
    const { run, spawned } = await runSampled(['tools', 'mcpx'], project);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `skipped server 'mcpx' from ${join(project, '.mcp.json')}: it runs mcpx itself (mcpx)`,
    );
    expect(run.stderr).toContain("skipped server 'npx'");
    expect(run.stderr).toContain('error: mcpx: it runs mcpx itself');
    expect(spawned).toEqual([]);

    const { run: list, spawned: listed } = await runSampled(['list', '--json'], project);
    expect(list.code, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout) as { name: string; state: string; reason?: string }[];
    for (const name of Object.keys(selfEntries)) {
      expect(rows.find((r) => r.name === name)).toMatchObject({
        state: 'skipped',
        reason: expect.stringContaining('it runs mcpx itself'),
      });
    }
    expect(rows.find((r) => r.name === 'demo')).toMatchObject({ state: 'ready' });
    // The demo server and the watchdog, nothing of mcpx's own, no npx.
    expect(listed.filter((line) => line.includes(cliPath) || /\bnpx\b|\bmcpx serve\b/.test(line))).toEqual(
      [],
    );
  });

  it('an mcpx reached through a wrapper script skips the entry that led to it (MCPX_SERVER_CHAIN)', async () => {
    const wrapper = join(bin, 'wrapped-gateway');
    await writeFile(wrapper, `#!/bin/sh\nexec mcpx serve\n`);
    await chmod(wrapper, 0o755);
    const project = await trustedProject('chain', { wrapped: { command: wrapper } });
    const { run, spawned } = await runSampled(['tools', 'wrapped'], project);
    expect(run.code, run.stderr).toBe(0);
    // The inner gateway serves the demo: it left out the entry it was started through.
    expect(run.stdout).toContain('demo__echo');
    // Every command line sampled goes with a failure, so a second serve says where it came from.
    expect(
      spawned.filter((line) => line.includes(`${cliPath} serve`)),
      spawned.join('\n'),
    ).toHaveLength(1);
  });
});

describe.runIf(procAvailable)('no server outlives the mcpx that started it', () => {
  let world: GatewayWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("a gateway's upstream that ignores SIGTERM and EOF is gone when the calling command ends", async () => {
    // mcpx's own bundle on the command line: the person asking for it, so it runs.
    let tracker: ReturnType<typeof trackProcessTree> | undefined;
    const run = await runCli(
      ['--stdio', `${process.execPath} ${cliPath} serve --config ${stubbornConfig}`, 'tools'],
      {
        cwd: dir.path,
        home,
        onSpawn: (p) => {
          tracker = trackProcessTree(p, 10);
        },
      },
    );
    try {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('stubborn__echo');
      const upstreams = (tracker?.seen() ?? []).filter(isNode);
      expect(upstreams.length).toBeGreaterThanOrEqual(2); // the gateway and its upstream
      expect(tracker?.alive()).toEqual([]);
    } finally {
      tracker?.stop();
    }
  });

  /** Runs `args`, waits until `count` test servers run below it, `kill -9`s it: what is left after 5 s. */
  async function killNine(args: readonly string[], count: number) {
    let tracker: ReturnType<typeof trackProcessTree> | undefined;
    let killedAt = 0;
    const run = await runCli(args, {
      cwd: dir.path,
      home,
      timeoutMs: 30_000,
      onSpawn: (p) => {
        tracker = trackProcessTree(p, 10);
        const poll = setInterval(() => {
          const servers = descendantPids(p).filter((d) => readCommandLine(d)?.includes(testServerPath));
          if (servers.length < count) return;
          clearInterval(poll);
          // A moment for the call to be under way.
          setTimeout(() => {
            killedAt = Date.now();
            process.kill(p, 'SIGKILL');
          }, 300);
        }, 20);
      },
    });
    expect(run.signal).toBe('SIGKILL');
    const current = tracker as NonNullable<typeof tracker>;
    try {
      const servers = current.seen().filter((p) => !isOrphanWatchdog(p.pid) && isNode(p));
      expect(servers.length).toBeGreaterThanOrEqual(count);
      while (current.alive().length > 0 && Date.now() - killedAt < 5000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return current.alive();
    } finally {
      current.stop();
    }
  }

  it('kill -9 of a command holding a server that ignores SIGTERM and EOF: nothing left after 5 s', async () => {
    const left = await killNine(
      [
        '--stdio',
        `${process.execPath} ${testServerPath}`,
        '--env',
        'MCPX_TEST_FAULT=ignore-sigterm',
        'call',
        'slow_operation',
        'steps=600',
        'delay_ms=100',
      ],
      1,
    );
    expect(left).toEqual([]);
  });

  it('kill -9 of mcpx serve with upstreams: every descendant gone within 5 s', async () => {
    world = await gatewayWorld({
      mcpServers: { stubborn, plain: { command: process.execPath, args: [testServerPath] } },
    });
    const gateway = world.spawnStdio();
    const pid = gateway.pid as number;
    const tracker = trackProcessTree(pid, 10);
    try {
      await expect
        .poll(() => descendantPids(pid).filter((d) => readCommandLine(d)?.includes(testServerPath)).length, {
          timeout: 20_000,
        })
        .toBe(2);
      const killedAt = Date.now();
      process.kill(pid, 'SIGKILL');
      while (tracker.alive().length > 0 && Date.now() - killedAt < 5000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(tracker.alive()).toEqual([]);
    } finally {
      tracker.stop();
    }
  });

  it('kill -9 of the daemon holding a server that ignores SIGTERM and EOF: gone within 5 s; a warm call starts no watchdog', async () => {
    const config = join(dir.path, 'keep-alive.json');
    await writeFile(config, JSON.stringify({ mcpServers: { held: { ...stubborn, keep_alive: true } } }));
    const cli = (args: string[], onSpawn?: (pid: number) => void) =>
      runCli(['--config', config, ...args], { cwd: dir.path, home, ...(onSpawn ? { onSpawn } : {}) });
    const first = await cli(['call', 'held.echo', 'message=cold']);
    expect(first.code, first.stderr).toBe(0);
    const status = JSON.parse((await cli(['daemon', 'status', '--json'])).stdout) as { pid: number };
    const tracker = trackProcessTree(status.pid, 10);
    try {
      const held = descendantPids(status.pid).filter((d) => readCommandLine(d)?.includes(testServerPath));
      expect(held).toHaveLength(1);
      // The light caller is answered by the daemon: it spawns nothing, not even a watchdog.
      let pid: number | undefined;
      const sampler = sampleCommandLines(() => pid);
      const warm = await cli(['call', 'held.echo', 'message=warm'], (p) => {
        pid = p;
      });
      expect(warm.code, warm.stderr).toBe(0);
      expect(warm.stdout).toContain('warm');
      expect(sampler.stop()).toEqual([]);

      const killedAt = Date.now();
      process.kill(status.pid, 'SIGKILL');
      while (tracker.alive().length > 0 && Date.now() - killedAt < 5000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(tracker.alive()).toEqual([]);
    } finally {
      tracker.stop();
    }
  });
});
