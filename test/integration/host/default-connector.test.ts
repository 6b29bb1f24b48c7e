/**
 * The library's connector spawns a stdio server before it loads the protocol stack (as the
 * CLI does), and that early process is the one the connection uses: one process per server,
 * none left when the connect is cancelled while the protocol stack loads.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openFileEraCache } from '../../../src/client/era-cache.js';
import type { ServerConnection } from '../../../src/client/types.js';
import { ErrorCode } from '../../../src/errors/index.js';
import { defaultConnector } from '../../../src/host/index.js';
import { tempDir } from '../../helpers/cli.js';
import {
  isOrphanWatchdog,
  type ProcessInfo,
  type ProcessTreeTracker,
  procAvailable,
  trackProcessTree,
} from '../../helpers/processes.js';
import { testServer } from '../../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
let tracker: ProcessTreeTracker | undefined;
afterEach(async () => {
  tracker?.stop();
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const onListChanged = () => {};
const servers = (processes: readonly ProcessInfo[]) => processes.filter((p) => !isOrphanWatchdog(p.pid));

it.runIf(procAvailable)('connects on the process it spawned early: one process for the server', async () => {
  tracker = trackProcessTree(process.pid, 10);
  const connector = defaultConnector({ hostEnv: process.env });
  const connection: ServerConnection = await connector(testServer('early'), { onListChanged });
  cleanups.push(() => connection.close());
  expect((await connection.callTool('echo', { message: 'early' })).content).toEqual([
    { type: 'text', text: 'early' },
  ]);
  // Sampled every 10 ms while the server booted (hundreds of ms): a second spawn would show.
  // Beside it runs this process's orphan watchdog, which is not a server.
  expect(servers(tracker.alive())).toHaveLength(1);
  expect(servers(tracker.seen())).toHaveLength(1);
});

it('keeps the era verdict in a file cache for the next run', async () => {
  const home = await tempDir('mcpx-connector-era-');
  cleanups.push(home.remove);
  const server = testServer('remembered');
  const first = await defaultConnector({ hostEnv: process.env, eraCache: await openFileEraCache(home.path) })(
    server,
    { onListChanged },
  );
  cleanups.push(() => first.close());
  const file = JSON.parse(await readFile(join(home.path, 'era-cache.json'), 'utf8')) as {
    entries: Record<string, { kind: string }>;
  };
  expect(Object.values(file.entries).map((e) => e.kind)).toEqual([first.era]);
});

it.runIf(procAvailable)('a connect cancelled while the protocol stack loads leaves no process', async () => {
  tracker = trackProcessTree(process.pid, 10);
  const controller = new AbortController();
  const connector = defaultConnector({ hostEnv: process.env });
  const connecting = connector(testServer('cancelled'), { onListChanged, signal: controller.signal });
  // The spawn happened in the call itself, before the protocol stack is imported.
  const spawned = servers(tracker.alive());
  expect(spawned).toHaveLength(1);
  controller.abort();
  await expect(connecting).rejects.toMatchObject({ code: ErrorCode.Cancelled });
  await expect.poll(() => tracker?.alive(), { timeout: 5000 }).toEqual([]);
});
