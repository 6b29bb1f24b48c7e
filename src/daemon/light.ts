/**
 * The daemon as the light caller (cli/light-caller.ts, bundled into the CommonJS entry mcpx.cjs)
 * needs it: where the socket is, whether it is safe to dial, and the run wire. Nothing here
 * loads the SDK, zod or the gateway, which daemon/index.ts would (through the daemon's server).
 */
export { configKey, daemonSocket, thisHost } from './paths.js';
export {
  DAEMON_PROTOCOL,
  type GivenAnswer,
  LIGHT_COMMANDS,
  type RunEvent,
  type RunReply,
  type RunRequest,
} from './run-wire.js';
export { socketState } from './socket-safety.js';
