import type { MetricsRecorder } from '../metrics/index.js';
import type { RequestEvent } from './session-server.js';

/**
 * A session server's `onRequest` that records each request a client made into `metrics`
 * (`mcp.server.operation.duration`; `mcpx.tool.calls` for a `tools/call`), and then tells
 * `next` (an access log), if any.
 */
export function recordingRequests(
  metrics: MetricsRecorder | undefined,
  next?: (event: RequestEvent) => void,
): ((event: RequestEvent) => void) | undefined {
  if (!metrics) return next;
  return (event) => {
    metrics.served({
      method: event.method,
      ...(event.server === undefined ? {} : { server: event.server }),
      ...(event.tool === undefined ? {} : { tool: event.tool }),
      seconds: event.durationMs / 1000,
      ...(event.errorType === undefined ? {} : { errorType: event.errorType }),
    });
    next?.(event);
  };
}

/**
 * Time one upstream request for `metrics` (`mcp.client.operation.duration`): the returned
 * function records its end, and why it failed when given an error type.
 */
export function timeUpstream(
  metrics: MetricsRecorder | undefined,
  method: string,
  server: string,
  tool?: string,
): (errorType?: string) => void {
  if (!metrics) return () => {};
  const started = performance.now();
  return (errorType) =>
    metrics.sent({
      method,
      server,
      ...(tool === undefined ? {} : { tool }),
      seconds: (performance.now() - started) / 1000,
      ...(errorType === undefined ? {} : { errorType }),
    });
}
