import type { ServerConfig } from '../config/index.js';
import type { McpxError } from '../errors/index.js';

/**
 * Say which server an error is about, and where that server is configured
 * (file, line and layer), keeping whatever the error already says.
 */
export function locate(error: McpxError, server: Pick<ServerConfig, 'name' | 'origin'>): McpxError {
  if (error.context.server && error.context.origin) return error;
  return error.withContext({
    server: error.context.server ?? server.name,
    origin: error.context.origin ?? server.origin,
  });
}
