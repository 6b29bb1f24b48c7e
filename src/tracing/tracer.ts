import { type Span, SpanStatusCode, type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { VERSION } from '../version.js';

/** The instrumentation scope every mcpx span is made under. */
export const TRACER_NAME = 'mcpx';

/**
 * mcpx's tracer from `provider`, or from the global API (a no-op until a provider is
 * registered: a plain call pays one `startSpan` of a non-recording span per request).
 * The global one is a proxy, so a provider registered later is used from then on.
 */
export function mcpxTracer(provider?: TracerProvider): Tracer {
  return (provider ?? trace).getTracer(TRACER_NAME, VERSION);
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
