/**
 * The OpenTelemetry SDK, set up for this process: a tracer provider with the OTLP/HTTP
 * exporter (or an in-memory one for `mcpx doctor --trace`), the async-local-storage context
 * manager and the W3C propagators, all registered globally. Loaded only by a lazy import,
 * when tracing is switched on: a plain command never loads the SDK.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  TracerProvider as SdkTracerProvider,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { VERSION } from '../version.js';
import type { Env } from './switch.js';
import type { ReadableSpan, StartTracingOptions, Tracing } from './types.js';

// How long ended spans wait to be sent together; a command's end sends the rest at once.
const DEFAULT_BATCH_DELAY_MS = 1_000;

/** Sets up and registers the SDK for this process (once: a second call shuts the first down). */
export async function startTracing(options: StartTracingOptions): Promise<Tracing> {
  await current?.shutdown();
  const memory = options.exporter === 'memory' ? new InMemorySpanExporter() : undefined;
  const processor: SpanProcessor | undefined = memory
    ? new SimpleSpanProcessor({ exporter: memory })
    : options.exporter === 'otlp'
      ? new BatchSpanProcessor({
          exporter: new OTLPTraceExporter(exporterTimeout(options)),
          scheduledDelayMillis: batchDelay(options.env),
        })
      : undefined;
  const provider = new SdkTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: options.serviceName ?? 'mcpx',
      [ATTR_SERVICE_VERSION]: VERSION,
    }),
    spanProcessors: processor ? [processor, TAP] : [TAP],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  // Spans kept for this process alone ('none') put no trace context in what is sent: it would name
  // a trace nobody can look up.
  if (processor)
    propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    );
  trace.setGlobalTracerProvider(provider);
  const tracing: Tracing = {
    provider,
    spans: () => memory?.getFinishedSpans() ?? [],
    shutdown: async () => {
      if (current === tracing) current = undefined;
      await provider.shutdown().catch(() => {});
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
  current = tracing;
  return tracing;
}

let current: Tracing | undefined;

const taps = new Set<(span: ReadableSpan) => void>();

/** Hands each ended span to the taps, beside the exporter. */
const TAP: SpanProcessor = {
  onStart: () => {},
  onEnd: (span) => {
    for (const tap of taps) tap(span);
  },
  forceFlush: async () => {},
  shutdown: async () => {},
};

/**
 * Be told of every span this process's tracing ends, whatever its exporter (the console draws
 * each server's connect from them); returns the undo.
 */
export function tapSpans(tap: (span: ReadableSpan) => void): () => void {
  taps.add(tap);
  return () => taps.delete(tap);
}

function exporterTimeout(options: StartTracingOptions): { timeoutMillis?: number } {
  const { env, exportTimeoutMs } = options;
  if (
    exportTimeoutMs === undefined ||
    env?.OTEL_EXPORTER_OTLP_TIMEOUT ||
    env?.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT
  )
    return {};
  return { timeoutMillis: exportTimeoutMs };
}

function batchDelay(env: Env | undefined): number {
  const raw = Number(env?.OTEL_BSP_SCHEDULE_DELAY);
  return Number.isFinite(raw) && raw >= 0 ? raw : DEFAULT_BATCH_DELAY_MS;
}
