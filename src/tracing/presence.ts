/**
 * Whether a span could record at all, told without loading OpenTelemetry's API: a plain call
 * (no provider given, nothing registered) never reads or compiles it. The API, once anything is
 * registered with it (a tracer provider, a propagator), keeps it on one object under a global
 * symbol shared by every copy of the API of its major version — the library user's own copy and
 * the one bundled here alike. Without that object every mcpx span is a no-op (`tracingInert`),
 * so the code that makes spans is loaded only when the object is there, or a provider is given.
 */

/** The API's global key for its 1.x versions (`@opentelemetry/api`'s internal/global-utils). */
const OTEL_API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/** Whether a tracer provider or a propagator is registered with OpenTelemetry's global API. */
export function otelRegistered(): boolean {
  const api = (globalThis as Record<symbol, { trace?: unknown; propagation?: unknown } | undefined>)[
    OTEL_API_GLOBAL
  ];
  return api?.trace !== undefined || api?.propagation !== undefined;
}

/** The tracing code that imports OpenTelemetry's API (the layer's index). */
export type TracingCode = typeof import('./index.js');

let loaded: TracingCode | undefined;

/** The tracing code, loaded on the first need (and kept, for {@link loadedTracing}). */
export async function loadTracing(): Promise<TracingCode> {
  loaded ??= await import('./index.js');
  return loaded;
}

/** The tracing code if it is loaded already, else `undefined`. */
export function loadedTracing(): TracingCode | undefined {
  return loaded;
}

/**
 * The tracing code when a span could record (`given`: a tracer or a provider was passed in, or
 * OpenTelemetry has something registered): at once when it is loaded already, else a promise of
 * it. `undefined` at once, and nothing loaded, when no span could record: a caller that spawns a
 * server (the connector) keeps its spawn in the same turn as its call.
 */
export function tracingIfLive(given: boolean): TracingCode | Promise<TracingCode> | undefined {
  if (!given && !otelRegistered()) return undefined;
  return loaded ?? loadTracing();
}
