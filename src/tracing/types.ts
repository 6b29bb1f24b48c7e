/** What `startTracing()` (tracing/start.ts, loaded lazily) takes and gives. */
import type { TracerProvider } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { Env } from './switch.js';

export type { ReadableSpan };

export interface StartTracingOptions {
  /**
   * `otlp`: to the endpoint the standard variables name; `memory`: kept for `spans()`; `none`:
   * only to `tapSpans()` (no trace context sent either).
   */
  readonly exporter: 'otlp' | 'memory' | 'none';
  readonly serviceName?: string;
  /** The environment the exporter's settings are read from (`OTEL_BSP_SCHEDULE_DELAY`). */
  readonly env?: Env;
  /**
   * How long one export may take, retries included, unless `OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT`
   * says: a one-off command must not wait the exporter's default 10 s for a collector that is down.
   */
  readonly exportTimeoutMs?: number;
}

export interface Tracing {
  readonly provider: TracerProvider;
  /** The spans ended so far (the `memory` exporter; empty otherwise). */
  spans(): readonly ReadableSpan[];
  /** Exports what is pending and unregisters everything. */
  shutdown(): Promise<void>;
}
