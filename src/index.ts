/**
 * mcpx as a library: load configs, connect many MCP servers, and use their
 * tools, resources and prompts. The library never prints; every failure is an
 * `McpxError` with a stable `code`, rendered by `formatError`.
 *
 * @example
 * const host = createHost({ ask: { who: 'this program', approveServer: async () => false } });
 * const registry = await host.registry();
 * await registry.connectAll();
 * await host.close();
 */
export * from './auth/index.js';
export * from './client/index.js';
export * from './config/index.js';
export * from './errors/index.js';
export {
  type Ask,
  createHost,
  type DefaultConnectorOptions,
  defaultConnector,
  type Host,
  type HostEvent,
  type HostListener,
  type HostOptions,
  nobody,
  type TrustQuestion,
} from './host/index.js';
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
} from './interop/index.js';
export * from './permissions/index.js';
export * from './registry/index.js';
export * from './tools/index.js';
export * from './transport/index.js';
export { VERSION } from './version.js';
