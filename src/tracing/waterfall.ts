/**
 * A server's connect as a waterfall: the spans naming it (spawn, handshake, era probe, listings)
 * and everything under them, flattened parents first with their offsets and durations. Drawn as
 * text by `mcpx doctor --trace` and as bars by the console's page.
 */
import type { ReadableSpan } from './types.js';

/** One span of a server's connect, as `--json` gives it. */
export interface WaterfallSpan {
  readonly name: string;
  /** Nesting under the server's first span (0: a root of the server's spans). */
  readonly depth: number;
  /** From the server's first span's start. */
  readonly startMs: number;
  readonly durationMs: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly error?: string;
  readonly attributes: Readonly<Record<string, unknown>>;
}

const ms = (time: readonly [number, number]) => time[0] * 1e3 + time[1] / 1e6;
const round = (n: number) => Math.round(n * 10) / 10;

/**
 * The spans about `server` (those naming it in `mcpx.server`, and everything under them),
 * parents before children, siblings in the order they started.
 */
export function serverWaterfall(spans: readonly ReadableSpan[], server: string): WaterfallSpan[] {
  const byParent = new Map<string, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId ?? '';
    byParent.set(parent, [...(byParent.get(parent) ?? []), span]);
  }
  const ours = new Set<ReadableSpan>();
  const take = (span: ReadableSpan) => {
    ours.add(span);
    for (const child of byParent.get(span.spanContext().spanId) ?? []) take(child);
  };
  for (const span of spans) if (span.attributes['mcpx.server'] === server) take(span);
  const roots = [...ours].filter((s) => !ours.has(parentOf(spans, s) as ReadableSpan));
  const origin = Math.min(...[...ours].map((s) => ms(s.startTime)));
  const out: WaterfallSpan[] = [];
  const byStart = (a: ReadableSpan, b: ReadableSpan) => ms(a.startTime) - ms(b.startTime);
  const walk = (span: ReadableSpan, depth: number) => {
    const parentSpanId = span.parentSpanContext?.spanId;
    const error = span.attributes['error.type'];
    out.push({
      name: span.name,
      depth,
      startMs: round(ms(span.startTime) - origin),
      durationMs: round(ms(span.duration)),
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      ...(parentSpanId ? { parentSpanId } : {}),
      ...(error === undefined ? {} : { error: String(error) }),
      attributes: span.attributes,
    });
    for (const child of [...(byParent.get(span.spanContext().spanId) ?? [])]
      .filter((c) => ours.has(c))
      .sort(byStart))
      walk(child, depth + 1);
  };
  for (const root of roots.sort(byStart)) walk(root, 0);
  return out;
}

function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  const id = span.parentSpanContext?.spanId;
  return id ? spans.find((s) => s.spanContext().spanId === id) : undefined;
}
