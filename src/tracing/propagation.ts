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
