/**
 * W3C trace context in an MCP request's `params._meta` (SEP-414, 2026-07-28; the same keys
 * on 2025-11-25, where `_meta` is open): `traceparent`, `tracestate` and `baggage`, written
 * and read by whatever propagator is registered globally (mcpx's own tracing registers the
 * W3C ones; a library user's OpenTelemetry SDK registers its own).
 */
import {
  type Context,
  context,
  propagation,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';

type Meta = Record<string, unknown>;

/** The `_meta` keys of W3C trace context (SEP-414): Trace Context's two headers and Baggage's one. */
export const TRACE_CONTEXT_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;

// W3C Trace Context §3.2: version ff and all-zero ids are invalid; a later version may add fields.
const TRACEPARENT =
  /^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}(?:-[\x21-\x7e]*)?$/;
const VISIBLE_TEXT = /^[\x20-\x7e]*$/;
/** The longest value carried on: Trace Context's 512 for `tracestate`, Baggage's 8192 bytes. */
const MAX_LENGTH = { traceparent: 256, tracestate: 512, baggage: 8192 } as const;

/**
 * The W3C trace context an inbound request's `_meta` carries, as it came (the string values of
 * `traceparent`, `tracestate` and `baggage`), or undefined when it carries none. What an
 * intermediary that does not trace passes on unchanged (W3C Trace Context, §3: a vendor that
 * does not take part forwards the headers as they are) — but only values of the specifications'
 * shape and size: a client's `_meta` is untrusted, and an upstream may put these keys in its own
 * headers or logs. A `tracestate` without a sound `traceparent` is dropped with it (§3.3).
 */
export function inboundTraceContext(meta: unknown): Readonly<Record<string, string>> | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const found: Record<string, string> = {};
  for (const key of TRACE_CONTEXT_KEYS) {
    const value = (meta as Meta)[key];
    if (typeof value === 'string' && value.length <= MAX_LENGTH[key] && VISIBLE_TEXT.test(value))
      found[key] = value;
  }
  if (found.traceparent !== undefined && !TRACEPARENT.test(found.traceparent)) delete found.traceparent;
  if (found.traceparent === undefined) delete found.tracestate;
  return Object.keys(found).length > 0 ? found : undefined;
}

/** `meta` without its W3C trace context keys (those a traced request replaces with its own). */
export function withoutTraceContext(meta: Meta | undefined): Meta | undefined {
  if (meta === undefined || !TRACE_CONTEXT_KEYS.some((key) => key in meta)) return meta;
  const rest = { ...meta };
  for (const key of TRACE_CONTEXT_KEYS) delete rest[key];
  return rest;
}

const setter: TextMapSetter<Meta> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

const getter: TextMapGetter<Meta | undefined> = {
  keys: (carrier) => (carrier ? Object.keys(carrier) : []),
  get: (carrier, key) => {
    const value = carrier?.[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** The trace context of `ctx` as `_meta` keys (empty when nothing is traced or no propagator is registered). */
export function traceMeta(ctx: Context = context.active()): Meta {
  const meta: Meta = {};
  propagation.inject(ctx, meta, setter);
  return meta;
}

/** The context an inbound request's `_meta` carries, on top of `base` (the active one by default). */
export function contextFromMeta(meta: unknown, base: Context = context.active()): Context {
  if (typeof meta !== 'object' || meta === null) return base;
  return propagation.extract(base, meta as Meta, getter);
}
