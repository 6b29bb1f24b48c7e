import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { recordFailure } from './tracer.js';

export interface InSpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** The parent (an inbound request's extracted context); default: the active one. */
  readonly parent?: ReturnType<typeof context.active>;
}

/**
 * Runs `work` inside a new span (the active one while it runs, so the spans and the
 * `traceparent` of whatever it sends are its children) and ends the span when `work`
 * settles, with the failure recorded when it throws.
 */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  options: InSpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const { parent, span } = startChild(tracer, name, options);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** {@link inSpan} for synchronous `work`: the span ends when it returns or throws. */
export function inSpanSync<T>(
  tracer: Tracer,
  name: string,
  options: InSpanOptions,
  work: (span: Span) => T,
): T {
  const { parent, span } = startChild(tracer, name, options);
  try {
    return context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** The span, a child of `options.parent` or of the active context, and that parent. */
function startChild(tracer: Tracer, name: string, options: InSpanOptions): { parent: Context; span: Span } {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.attributes ? { attributes: options.attributes } : {}),
    },
    parent,
  );
  return { parent, span };
}
