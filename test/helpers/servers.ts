import { join } from 'node:path';
import { connectServer } from '../../src/client/server-connection.js';
import { createServerTransport } from '../../src/client/transport-factory.js';
import type { ServerConnection, ServerLogEvent } from '../../src/client/types.js';
import { SERVER_DEFAULTS } from '../../src/config/entry/server-defaults.js';
import type { ServerConfig } from '../../src/config/types.js';
import type { Connector } from '../../src/registry/index.js';
import { repoRoot, testServerPath } from './cli.js';

const modules = join(repoRoot, 'node_modules/@modelcontextprotocol');
export const everythingPath = join(modules, 'server-everything/dist/index.js');
export const filesystemPath = join(modules, 'server-filesystem/dist/index.js');
export const memoryPath = join(modules, 'server-memory/dist/index.js');

/** A ServerConfig for a node script, as the config loader would produce it. */
export function nodeServer(name: string, script: string, extra: Partial<ServerConfig> = {}): ServerConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    ...SERVER_DEFAULTS,
    args: [script],
    origin: { layer: 'explicit', file: '/test/mcp.json', line: 1 },
    fingerprint: `test-${name}`,
    ...extra,
  };
}

export function testServer(
  name = 'test',
  env: Record<string, string> = {},
  extra: Partial<ServerConfig> = {},
) {
  return nodeServer(name, testServerPath, { env, ...extra });
}

/** Connect with mcpx's own transport; the caller closes. */
export function connect(
  server: ServerConfig,
  options: {
    hostEnv?: Record<string, string | undefined>;
    onLog?: (e: ServerLogEvent) => void;
    connectTimeoutMs?: number;
  } = {},
): Promise<ServerConnection> {
  return connectServer(server, {
    createTransport: () => createServerTransport(server, { hostEnv: options.hostEnv ?? process.env }),
    ...(options.onLog ? { onLog: options.onLog } : {}),
    ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
  });
}

/** A registry connector that uses mcpx's real transport. */
export function realConnector(options: { connectTimeoutMs?: number } = {}): Connector {
  return (server, hooks) =>
    connectServer(server, {
      createTransport: () => createServerTransport(server, { hostEnv: process.env }),
      onListChanged: hooks.onListChanged,
      ...(hooks.signal ? { signal: hooks.signal } : {}),
      ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
    });
}

/**
 * Connections opened by a test file, closed after each test:
 * `const { track } = trackConnections(); afterEach(closeAll)`.
 */
export function trackConnections() {
  const open: ServerConnection[] = [];
  return {
    async track(pending: Promise<ServerConnection>): Promise<ServerConnection> {
      const connection = await pending;
      open.push(connection);
      return connection;
    },
    async closeAll(): Promise<void> {
      await Promise.all(open.splice(0).map((c) => c.close()));
    },
  };
}
