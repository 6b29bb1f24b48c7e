/**
 * The daemon as the light caller (cli/daemon-handoff/light-caller.ts, bundled into the CommonJS
 * entry mcpx.cjs) and the thin serve (cli/daemon-handoff/thin-serve.ts) need it: where the socket
 * is, whether it is safe to dial, the run wire and the gateway wire. Nothing here loads the SDK or
 * the error model, which index.ts would (through the socket transport and the socket client).
 */
export { CONTROL, type GatewayEvent, type GatewayRequest } from './gateway-wire.js';
export { configKey, contentAlias, daemonKey, daemonSocket, thisMachine } from './paths.js';
export {
  type CallerElicitation,
  DAEMON_PROTOCOL,
  type GivenAnswer,
  LIGHT_COMMANDS,
  type RunEvent,
  type RunReply,
  type RunRequest,
} from './run-wire.js';
export { socketState } from './socket-safety.js';
