/**
 * Issue 38, item 5: mcpx never starts itself, whatever wraps it. Command lines are read as the
 * wrappers read them (`env` and its options, `sh|bash -c|-lc`, `"$@"`, links to the CLI).
 */
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { descendantPids, procAvailable, readCommandLine } from '../helpers/processes.js';

const node = process.execPath;
const systemPath = process.env.PATH ?? '/usr/bin:/bin';

/**
 * Watches the mcpx processes (node running the CLI's bundle) below `root`, every 20 ms: the most
 * seen at once, and every pid seen. A child caught between fork and exec still shows its
 * parent's command line; a pid seen so, then running something else, was such a fork, not an mcpx.
 */
function watchNested(root: number) {
  const samples: number[][] = [];
  const forks = new Set<number>();
  const lines = new Map<number, string>();
  const timer = setInterval(() => {
    const now: number[] = [];
    for (const pid of descendantPids(root)) {
      const line = readCommandLine(pid);
      if (line?.includes(cliPath)) {
        now.push(pid);
        lines.set(pid, line.join(' '));
      } else if (line?.length && lines.has(pid)) {
        forks.add(pid);
      }
    }
    samples.push(now);
  }, 20);
  const counted = (sample: number[]) => sample.filter((pid) => !forks.has(pid));
  return {
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
