import {
  ProxyTracer,
  ProxyTracerProvider,
  propagation,
  type Span,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { VERSION } from '../version.js';

/** The instrumentation scope every mcpx span is made under. */
export const TRACER_NAME = 'mcpx';

/**
 * mcpx's tracer from `provider`, or from the global API (a no-op until a provider is
 * registered: a request sent then skips its span altogether, see {@link tracingInert}).
 * The global one is a proxy, so a provider registered later is used from then on.
 */
export function mcpxTracer(provider?: TracerProvider): Tracer {
  return (provider ?? trace).getTracer(TRACER_NAME, VERSION);
}

/**
 * Whether a span started on `tracer` now would do nothing at all: it is the global API's tracer
 * (a proxy) while no provider is registered behind it, and no propagator is registered either
 * (which would carry an inbound parent's context on through a non-recording span). A request
 * sent then needs no span, no attributes and no trace context: checked per request, so a
 * provider registered later is used from its first request on, as the proxy would.
 */
export function tracingInert(tracer: Tracer): boolean {
  if (!(tracer instanceof ProxyTracer)) return false;
  const provider = trace.getTracerProvider();
  return (
    provider instanceof ProxyTracerProvider &&
    provider.getDelegateTracer(TRACER_NAME) === undefined &&
    propagation.fields().length === 0
  );
}

/** Records `error` on `span` as OTel's semantic conventions ask: `error.type`, an error status, the exception event. */
export function recordFailure(span: Span, error: unknown, type?: string): void {
  if (!span.isRecording()) return;
  const code = (error as { code?: unknown } | null)?.code;
  span.setAttribute(
    'error.type',
    type ?? (typeof code === 'string' || typeof code === 'number' ? String(code) : errorName(error)),
  );
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
  if (error instanceof Error) span.recordException(error);
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name || 'Error' : '_OTHER';
}
