// The glue moved to the gateway (the library serves HTTP too); test servers keep importing it from here.
export {
  initializeBody,
  outliveClientKeepAlive,
  type StreamCutter,
  toWebRequest,
  trackSockets,
  writeWebResponse,
} from '../gateway/server-kit.js';
