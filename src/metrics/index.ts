/**
 * Metrics of the long-running processes (`mcpx serve`, the keep-alive daemon): one set of
 * OpenTelemetry instruments read as Prometheus text (`GET /metrics`, `mcpx daemon metrics`)
 * and pushed over OTLP when the environment asks. The gateway and the daemon see only
 * `MetricsRecorder` (`recorder.ts`, types alone); the front end imports this folder lazily,
 * so a short command never loads the OpenTelemetry SDK.
 */

export { createMetrics, type Metrics, type MetricsOptions } from './create-metrics.js';
export { DEFAULT_LABEL_LIMITS, MAX_LABEL_LENGTH, OTHER } from './labels.js';
export type {
  ConnectionState,
  MetricsRecorder,
  MetricsSource,
  Operation,
  ServingMetrics,
  SessionCount,
  StateEvents,
} from './recorder.js';
