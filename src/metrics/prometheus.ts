import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';

/** Units whose Prometheus name carries a suffix (OTel's Prometheus compatibility rules). */
const UNIT_SUFFIXES: Readonly<Record<string, string>> = { s: 'seconds', ms: 'milliseconds', By: 'bytes' };

/**
 * A pull reader with no server of its own (the gateway's listener answers `/metrics`)
 * and the text it reads: cumulative, with the unit in the name as Prometheus names
 * it (`mcp.server.operation.duration` in seconds is `mcp_server_operation_duration_seconds`;
 * OpenTelemetry's JS serializer leaves the suffix out) and no per-series scope label.
 */
export function prometheusReader(): { reader: PrometheusExporter; text(): Promise<string> } {
  const reader = new PrometheusExporter({ preventServerStart: true });
  const serializer = new PrometheusSerializer(undefined, false, undefined, false, true);
  return {
    reader,
    async text() {
      const { resourceMetrics } = await reader.collect();
      return serializer.serialize(withUnitSuffixes(resourceMetrics));
    },
  };
}

function withUnitSuffixes(resourceMetrics: ResourceMetrics): ResourceMetrics {
  return {
    ...resourceMetrics,
    scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map((metric) => {
        const { name, unit } = metric.descriptor;
        // A count's annotation (`{call}`) is no unit to Prometheus.
        if (unit.startsWith('{')) return { ...metric, descriptor: { ...metric.descriptor, unit: '' } };
        const suffix = UNIT_SUFFIXES[unit];
        if (!suffix || name.endsWith(`_${suffix}`)) return metric;
        return { ...metric, descriptor: { ...metric.descriptor, name: `${name}_${suffix}`, unit: suffix } };
      }),
    })),
  };
}
