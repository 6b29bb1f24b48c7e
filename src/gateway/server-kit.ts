/**
 * What a standalone MCP server program (the shipped test servers in testing/) shares with the
 * gateway's server side: Node's HTTP glue for the SDK's web-standard transport, the bounded SSE
 * event log, and a request's envelope. Without the gateway's core, which gateway/index.ts
 * brings along (the registry, the permissions, the tools).
 */
export { createSseEventLog } from './http/event-store.js';
export {
  initializeBody,
  outliveClientKeepAlive,
  type StreamCutter,
  toWebRequest,
  trackSockets,
  writeWebResponse,
} from './http/node-glue.js';
export { envelopeValue } from './input-rounds.js';
