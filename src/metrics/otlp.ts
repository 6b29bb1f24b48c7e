import { type MetricReader, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Whether the environment asks for metrics over OTLP, the standard way:
 * `OTEL_METRICS_EXPORTER` naming `otlp` (`none` turns it off), else an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`) being set.
 */
export function wantsOtlp(env: Env): boolean {
  const named = env.OTEL_METRICS_EXPORTER?.split(',').map((s) => s.trim().toLowerCase());
  if (named && named.length > 0 && named[0] !== '') return named.includes('otlp');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
}

/** Default push interval (the spec's `OTEL_METRIC_EXPORT_INTERVAL` default). */
const DEFAULT_INTERVAL_MS = 60_000;

/**
 * A reader pushing to the OTLP/HTTP endpoint the environment names (the exporter reads
 * `OTEL_EXPORTER_OTLP_*` itself: endpoint, headers, timeout), every
 * `OTEL_METRIC_EXPORT_INTERVAL` ms. The exporter is loaded only when asked for: most runs never pay for it.
 */
export async function otlpReader(env: Env): Promise<MetricReader> {
  // The metrics SDK is already loaded (create-metrics.ts); only the exporter waits to be asked for.
  const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter(),
    exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : DEFAULT_INTERVAL_MS,
  });
}
