/**
 * `await using`: a host and a connection close when their block ends, their servers with them,
 * and an error thrown in the block still closes them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createHost } from '../../../src/host/index.js';
import { tempDir, testServerPath } from '../../helpers/cli.js';
import { waitForExit } from '../../helpers/processes.js';

let dir: { path: string; remove: () => Promise<void> };
let startLog: string;

beforeEach(async () => {
  dir = await tempDir('mcpx-async-dispose-');
  startLog = join(dir.path, 'starts.log');
  const server = {
    command: process.execPath,
    args: [testServerPath],
    env: { MCPX_TEST_START_LOG: startLog },
  };
  await writeFile(join(dir.path, 'mcp.json'), JSON.stringify({ mcpServers: { a: server, b: server } }));
});
afterEach(() => dir.remove());

function options() {
  return {
    cwd: dir.path,
    homedir: dir.path,
    env: { PATH: process.env.PATH, MCPX_HOME: join(dir.path, '.mcpx') },
    configFile: join(dir.path, 'mcp.json'),
  };
}

/** The process ids of every server started so far. */
async function started(): Promise<number[]> {
  return (await readFile(startLog, 'utf8')).trim().split('\n').map(Number);
}

it('closes a host and every server it started when its `await using` block ends', async () => {
  {
    await using host = createHost(options());
    const connection = await host.connect(await host.server('a'));
    expect((await connection.callTool('echo', { message: 'in the block' })).content).toEqual([
      { type: 'text', text: 'in the block' },
    ]);
    await (await host.registry()).connectAll();
  }
  const pids = await started();
  expect(pids.length).toBeGreaterThanOrEqual(2); // `a` and `b`, at least
  for (const pid of pids) expect(await waitForExit(pid, 2000)).toBe(true);
});

it('closes a connection when its block ends, even one left by a throw', async () => {
  const host = createHost(options());
  try {
    const failed = (async () => {
      await using connection = await host.connect(await host.server('b'));
      await connection.ping();
      throw new Error('the block failed');
    })();
    await expect(failed).rejects.toThrow('the block failed');
    const [pid] = await started();
    expect(pid).toBeDefined();
    expect(await waitForExit(pid as number, 2000)).toBe(true);
  } finally {
    await host.close();
  }
});
