// The glue moved to the gateway (the library serves HTTP too); test servers keep importing it from here.
export {
  initializeBody,
  type StreamCutter,
  toWebRequest,
  trackSockets,
  writeWebResponse,
} from '../gateway/server-kit.js';
