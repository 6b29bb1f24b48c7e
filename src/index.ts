/**
 * mcpx as a library: load configs, connect many MCP servers, and use their
 * tools, resources and prompts. The library never prints; every failure is an
 * `McpxError` with a stable `code`, rendered by `formatError`.
 *
 * @example
 * const config = await loadConfig({ cwd: process.cwd(), env: process.env, home: resolveMcpxHome(process.env, homedir()) });
 * const registry = new ServerRegistry(config.servers, { connector: defaultConnector({ hostEnv: process.env }) });
 * await registry.connectAll();
 */
export * from './auth/index.js';
export * from './client/index.js';
export {
  type ExportResult,
  entryFromServer,
  exportServers,
  HOST_IDS,
  HOSTS,
  type HostContext,
  type HostDialect,
  type HostId,
  type McpxEntry,
} from './config/hosts/index.js';
export * from './config/index.js';
export * from './errors/index.js';
export * from './permissions/index.js';
export * from './registry/index.js';
export * from './tools/index.js';
export * from './transport/index.js';
export { VERSION } from './version.js';
