/**
 * Issue 38, item 5: mcpx never starts itself, whatever wraps it. Command lines are read as the
 * wrappers read them (`env` and its options, `sh|bash -c|-lc`, `"$@"`, links to the CLI), and a
 * loop hidden in a wrapper script that clears the environment (`env -i wrapper.sh`) is stopped by
 * the process ancestry, which no wrapper can clear: at most MAX_SERVER_CHAIN mcpx below the first.
 */
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SERVER_CHAIN } from '../../src/transport/stdio/server-chain.js';
import { cliPath, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import { descendantPids, procAvailable, readCommandLine, readProcess } from '../helpers/processes.js';

const node = process.execPath;
const systemPath = process.env.PATH ?? '/usr/bin:/bin';

/**
 * Watches the mcpx processes (node running the CLI's bundle) below `root`, every 20 ms: the most
 * seen at once, and every pid seen. A child caught between fork and exec still shows its
 * parent's command line; a pid seen so, then running something else, was such a fork, not an mcpx.
 * `skip`: how many levels of mcpx below `root` are not counted (the gateway a test watches from
 * before it starts).
 */
function watchNested(root: number, skip = 0) {
  const samples: number[][] = [];
  const forks = new Set<number>();
  const lines = new Map<number, string>();
  let deepest = 0;
  const isMcpx = (pid: number) => readCommandLine(pid)?.includes(cliPath) === true;
  /** How many mcpx processes lie between `pid` and `root`, `pid` included (its nesting level). */
  const depth = (pid: number) => {
    let level = 0;
    for (let at: number | undefined = pid; at !== undefined && at !== root; at = readProcess(at)?.ppid)
      if (isMcpx(at)) level += 1;
    return level;
  };
  const timer = setInterval(() => {
    const now: number[] = [];
    for (const pid of descendantPids(root)) {
      const line = readCommandLine(pid);
      if (line?.includes(cliPath)) {
        const level = depth(pid) - skip;
        if (level <= 0) continue;
        now.push(pid);
        lines.set(pid, line.join(' '));
        deepest = Math.max(deepest, level);
      } else if (line?.length && lines.has(pid)) {
        forks.add(pid);
      }
    }
    samples.push(now);
  }, 20);
  const counted = (sample: number[]) => sample.filter((pid) => !forks.has(pid));
  return {
    /**
     * The deepest nesting seen. Not a count at one moment: a refused deepest mcpx exits, its
     * parent may start it again, and the one leaving can still be listed beside the one coming.
     */
    deepest: () => deepest,
    most: () => Math.max(0, ...samples.map((sample) => counted(sample).length)),
    seen: () => [...new Set(samples.flatMap(counted))].map((pid) => `${pid}: ${lines.get(pid)}`),
    stop: () => clearInterval(timer),
  };
}

describe.runIf(procAvailable)(
  'entries that run mcpx through a wrapper are read as the wrapper reads them',
  () => {
    let dir: { path: string; remove: () => Promise<void> };
    let home: string;
    let bin: string;
    let config: string;

    beforeAll(async () => {
      dir = await tempDir('mcpx-wrapped-');
      home = join(dir.path, 'home');
      bin = join(dir.path, 'bin');
      await mkdir(home, { recursive: true });
      await mkdir(bin, { recursive: true });
      // mcpx as an install puts it (an executable `mcpx`), and links to it under other names: on
      // PATH (`gateway`), and one to the CLI's bundle for node to run (`cli-link`).
      await mkdir(join(dir.path, 'lib'), { recursive: true });
      await writeFile(join(dir.path, 'lib', 'mcpx'), `#!/bin/sh\nexec "${node}" "${cliPath}" "$@"\n`);
      await chmod(join(dir.path, 'lib', 'mcpx'), 0o755);
      await symlink('../lib/mcpx', join(bin, 'gateway'));
      await symlink(cliPath, join(bin, 'cli-link'));
      config = join(dir.path, 'mcp.json');
      const serve = ['serve', '--config', config];
      const servers = {
        'env-i-sh-exec': {
          command: 'env',
          args: [
            '-i',
            `PATH=${systemPath}`,
            `HOME=${home}`,
            'sh',
            '-c',
            `exec "${node}" "${cliPath}" serve --config "${config}"`,
          ],
        },
        'env-u-chain': { command: 'env', args: ['-u', 'MCPX_SERVER_CHAIN', node, cliPath, ...serve] },
        'env-chdir': { command: 'env', args: ['-C', bin, node, './cli-link', ...serve] },
        'env-split-string': { command: 'env', args: ['-S', `${node} ${cliPath} serve --config ${config}`] },
        'bash-lc': {
          command: 'bash',
          args: ['-lc', `exec "${node}" "${cliPath}" serve --config "${config}"`],
        },
        'sh-c-params': { command: 'sh', args: ['-c', 'exec "$0" "$@"', node, cliPath, ...serve] },
        'link-on-path': { command: 'gateway', args: serve },
        // Not mcpx: an env wrapper around a real server must still run.
        'env-server': { command: 'env', args: ['FOO=1', node, testServerPath] },
      };
      await writeFile(config, JSON.stringify({ mcpServers: servers }));
    });

    afterAll(async () => {
      await dir.remove();
    });

    it('list shows each as skipped with the reason, and no second mcpx is ever spawned', async () => {
      let watch: ReturnType<typeof watchNested> | undefined;
      const run = await runCli(['--config', config, 'list', '--json'], {
        cwd: dir.path,
        home,
        env: { PATH: `${bin}:${systemPath}` },
        timeoutMs: 60_000,
        onSpawn: (pid) => {
          watch = watchNested(pid);
        },
      });
      watch?.stop();
      expect(run.code, run.stderr).toBe(0);
      const rows = JSON.parse(run.stdout) as { name: string; state: string; reason?: string }[];
      const wrapped = [
        'env-i-sh-exec',
        'env-u-chain',
        'env-chdir',
        'env-split-string',
        'bash-lc',
        'sh-c-params',
        'link-on-path',
      ];
      for (const name of wrapped) {
        expect(
          rows.find((r) => r.name === name),
          name,
        ).toMatchObject({
          state: 'skipped',
          reason: expect.stringContaining('it runs mcpx itself'),
        });
        expect(run.stderr).toContain(`skipped server '${name}' from ${config}: it runs mcpx itself`);
      }
      expect(rows.find((r) => r.name === 'env-server')).toMatchObject({ state: 'ready' });
      expect(watch?.seen()).toEqual([]);
    });
  },
);

describe.runIf(procAvailable)('a loop hidden in a wrapper script that clears the environment', () => {
  let world: GatewayWorld | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close().catch(() => {});
    client = undefined;
    await world?.close();
    world = undefined;
  });

  /** `env -i` with only what a test's mcpx needs: PATH, and the test's own home. */
  const cleared = (home: string) => [
    '-i',
    `PATH=${systemPath}`,
    `HOME=${home}`,
    `MCPX_HOME=${join(home, '.mcpx')}`,
  ];

  /**
   * A gateway whose config holds `loop` (an entry mcpx cannot see into: `env -i` around a
   * script whose body is `script`) and the test server; the SDK client lists its tools.
   */
  async function gatewayWithLoop(
    wrapper: (configFile: string) => string,
    envArgs: (home: string) => readonly string[],
  ) {
    world = await gatewayWorld({});
    const script = join(world.dir, 'wrapper.sh');
    await writeFile(script, `#!/bin/sh\n${wrapper(world.configFile)}\n`);
    await chmod(script, 0o755);
    await writeFile(
      world.configFile,
      JSON.stringify({
        mcpServers: {
          loop: { command: 'env', args: [...envArgs(world.home), script] },
          local: { command: node, args: [testServerPath] },
        },
      }),
    );
    // Watched from before the gateway starts (as of this test's process, the gateway itself not
    // counted): a copy that starts and is refused while the gateway boots is still seen.
    const watch = watchNested(process.pid, 1);
    const gateway = await world.serve().catch((error: unknown) => {
      watch.stop();
      throw error;
    });
    client = await world.client(gateway.url, 'modern');
    const { tools } = await client.listTools();
    return { gateway, watch, tools: tools.map((t) => t.name) };
  }

  it('an mcpx started exactly as the mcpx above it starts nothing: one copy, not an endless line', async () => {
    const { watch, tools } = await gatewayWithLoop(
      (configFile) => `exec "${node}" "${cliPath}" serve --config "${configFile}"`,
      cleared,
    );
    try {
      expect(tools).toContain('local__echo');
      await expect.poll(() => watch.most(), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      // Five seconds more: nothing else starts.
      await new Promise((resolve) => setTimeout(resolve, 5000));
      // The copy refuses its servers and exits ("no servers to serve"): never more than it at once.
      expect(watch.most(), watch.seen().join('\n')).toBe(2);
    } finally {
      watch.stop();
    }
  }, 60_000);

  it('the same loop through `env -u MCPX_SERVER_CHAIN`: stopped alike', async () => {
    const { watch } = await gatewayWithLoop(
      (configFile) => `exec "${node}" "${cliPath}" serve --config "${configFile}"`,
      () => ['-u', 'MCPX_SERVER_CHAIN'],
    );
    try {
      await expect.poll(() => watch.most(), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      await new Promise((resolve) => setTimeout(resolve, 5000));
      expect(watch.most(), watch.seen().join('\n')).toBe(2);
    } finally {
      watch.stop();
    }
  }, 60_000);

  it(`a loop whose every level differs stops ${MAX_SERVER_CHAIN} mcpx deep, and stays there`, async () => {
    // LEVEL=$$ differs at each level, so no mcpx is started exactly as the one above it: only the
    // count of mcpx ancestors can end this loop.
    const { watch, tools } = await gatewayWithLoop(
      (configFile) =>
        `exec env -i PATH="$PATH" HOME="$HOME" MCPX_HOME="$MCPX_HOME" LEVEL=$$ "${node}" "${cliPath}" serve --config "${configFile}"`,
      cleared,
    );
    try {
      expect(tools).toContain('local__echo');
      await expect
        .poll(() => watch.deepest(), { timeout: 40_000, interval: 100 })
        .toBeGreaterThanOrEqual(MAX_SERVER_CHAIN);
      await new Promise((resolve) => setTimeout(resolve, 5000));
      // The deepest refuses its servers and exits ("no servers to serve"); its parent may start
      // it again, so pids come and go, but never one level deeper.
      expect(watch.deepest(), watch.seen().join('\n')).toBe(MAX_SERVER_CHAIN);
    } finally {
      watch.stop();
    }
  }, 90_000);
});
