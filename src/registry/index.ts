/**
 * Registry: many servers at once — parallel connects, lifecycle states and
 * events, shared or agent-owned connections, reconnection policy.
 */

export {
  DEFAULT_RECONNECT_POLICY,
  type ReconnectMode,
  type ReconnectPolicy,
  reconnectDelay,
} from './reconnect-policy.js';
export {
  type ConnectOptions,
  type Connector,
  type RegistryEvent,
  ServerRegistry,
  type ServerRegistryOptions,
  type ServerStatus,
  type Visibility,
} from './registry.js';
export type { RoutableConnector, RoutedHooks } from './routable-connector.js';
export { canTransition, type ServerCondition, type ServerState } from './server-state.js';
export { filterTools } from './tool-filter.js';
