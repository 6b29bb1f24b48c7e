/**
 * Whether tracing is switched on, read the standard way (OpenTelemetry's environment
 * variables) plus mcpx's `--trace`: no SDK is loaded to decide it.
 */

export type Env = Readonly<Record<string, string | undefined>>;

export interface TracingWanted {
  /** Where spans go: the OTLP endpoint the exporter will use (its own default when none is set). */
  readonly endpoint: string;
  /** True when no endpoint is set: spans go to the OTLP default, which may not be listening. */
  readonly defaultEndpoint: boolean;
  readonly serviceName: string;
}

/** The OTLP/HTTP exporter's default endpoint for traces (the spec's). */
export const OTLP_DEFAULT_TRACES_ENDPOINT = 'http://localhost:4318/v1/traces';

/**
 * Tracing is on with `--trace`, or `OTEL_TRACES_EXPORTER=otlp`, or an OTLP endpoint set
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`); off with
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`, whatever else is set.
 */
export function tracingWanted(env: Env, flag: boolean): TracingWanted | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes('none')) return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!flag && !exporters.includes('otlp') && !traces && !base) return undefined;
  const endpoint = traces || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : OTLP_DEFAULT_TRACES_ENDPOINT);
  return {
    endpoint,
    defaultEndpoint: !traces && !base,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'mcpx',
  };
}
