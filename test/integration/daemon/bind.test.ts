/**
 * The daemon's serving functions are the front end's before its socket is published: a caller
 * that dials the moment the socket appears (the one that started the daemon does) is served
 * with the features it offered, not with none.
 */
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { connectServer } from '../../../src/client/server-connection.js';
import { createServerTransport } from '../../../src/client/transport-factory.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { type DaemonServer, startDaemonServer } from '../../../src/daemon/server.js';
import { daemonPaths, thisMachine } from '../../../src/daemon-client/paths.js';
import { DAEMON_PROTOCOL } from '../../../src/daemon-client/run-wire.js';
import { createHomeFiles, type HomeFiles } from '../../../src/home/index.js';
import { identify } from '../../../src/home/liveness.js';
import { createPermissionGuard, denyingApprover } from '../../../src/permissions/index.js';
import { ServerRegistry } from '../../../src/registry/index.js';
import { repoRoot, tempDir } from '../../helpers/cli.js';
import { nodeServer } from '../../helpers/servers.js';

const backend = nodeServer('backend', join(repoRoot, 'dist/testing/conformance-backend.js'), {
  keepAlive: true,
  protocol: 'legacy',
});

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The first line the socket brings. */
function firstLine(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end !== -1) resolve(text.slice(0, end));
    });
    socket.once('error', reject);
  });
}

it('serves a caller that dials before startDaemonServer resolves with the features it offered', {
  timeout: 30_000,
}, async () => {
  const dir = await tempDir('mcpx-daemon-bind-');
  cleanups.push(() => dir.remove());
  const files = createHomeFiles(join(dir.path, '.mcpx'));
  // The pid file is written after the socket is published: held back, the daemon has not
  // resolved yet when the caller below is served.
  let publish: () => void = () => {};
  const published = new Promise<void>((resolve) => {
    publish = resolve;
  });
  const paths = daemonPaths(files, '0123456789abcdef', thisMachine({}));
  const home: HomeFiles = {
    ...files,
    path: (p) => files.path(p),
    writeText: async (p, text) => {
      if (p === paths.pidFile) await published;
      return files.writeText(p, text);
    },
  };
  let serving: Omit<DaemonServer, 'close'> | undefined;
  const registries: ServerRegistry[] = [];
  const starting = startDaemonServer({
    // As the CLI's daemon wires it (cli/commands/daemon.ts): each connect asks the daemon for the features.
    createRegistry: async (config) => {
      const registry = new ServerRegistry([config], {
        connector: (server) =>
          connectServer(server, {
            createTransport: () => createServerTransport(server, { hostEnv: process.env }),
            features: serving?.featuresFor(server as ServerConfig) ?? {},
          }),
      });
      registries.push(registry);
      return registry;
    },
    createGuard: async () => createPermissionGuard({ level: 'yolo', approver: denyingApprover('a test') }),
    home,
    paths,
    identity: await identify(process.pid),
    all: false,
    idleMs: 60_000,
    serverIdleMs: 60_000,
    onStop: () => {},
    bind: (bound) => {
      serving = bound;
    },
  });
  cleanups.push(async () => {
    publish();
    await (await starting).close();
  });
  while (!existsSync(paths.absolute.socket)) await delay(10);
  const socket = connect(paths.absolute.socket);
  cleanups.push(() => socket.destroy());
  socket.write(
    `${JSON.stringify({
      protocol: DAEMON_PROTOCOL,
      op: 'serve',
      server: backend,
      offer: { capabilities: { sampling: {} } },
    })}\n`,
  );
  expect(JSON.parse(await firstLine(socket))).toMatchObject({ ok: true });
  // The held server was told the caller can sample: the tool that needs it runs.
  const result = await registries[0]?.callTool('backend', 'test_missing_capability', {});
  expect(result?.content).toEqual([{ type: 'text', text: 'Success' }]);
});
