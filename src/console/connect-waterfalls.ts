import {
  ATTR_MCPX_SERVER,
  type ReadableSpan,
  serverWaterfall,
  type WaterfallSpan,
} from '../tracing/index.js';

/** Each server's latest connect, span by span, as `mcpx doctor --trace` draws it. */
export interface ConnectWaterfalls {
  /** Told of every span as it ends (give it to the process's tracing: `tapSpans`). */
  readonly onEnd: (span: ReadableSpan) => void;
  /** Each server that connected, with the spans of its latest connect and the listings after it. */
  list(): readonly { readonly server: string; readonly spans: readonly WaterfallSpan[] }[];
}

/** At most this many spans per server (its connect, then its listings: a server that re-lists often stops here). */
const SPANS_PER_SERVER = 100;
/** At most this many unfinished parents wait for their children's spans; the oldest go first. */
const WAITING_PARENTS = 500;

/**
 * Keeps, for each server, the spans of its latest connect (`connect NAME` and everything under
 * it: spawn, handshake, era probe) and the listings that follow it, so a reconnect replaces the
 * server's waterfall. Bounded: spans of anything else (tool calls, a gateway's requests) are
 * dropped as their trace ends. `changed` is told when a waterfall changed.
 */
export function createConnectWaterfalls(changed: () => void): ConnectWaterfalls {
  // A span ends before its parent: the ended ones wait under their parent's id until it ends.
  const waiting = new Map<string, ReadableSpan[]>();
  const byServer = new Map<string, { spans: ReadableSpan[]; rows?: WaterfallSpan[] }>();
  const onEnd = (span: ReadableSpan) => {
    const id = span.spanContext().spanId;
    const tree = [span, ...(waiting.get(id) ?? [])];
    waiting.delete(id);
    const server = span.attributes[ATTR_MCPX_SERVER];
    const parent = span.parentSpanContext?.spanId;
    if (typeof server === 'string' && span.name === `connect ${server}`) {
      byServer.set(server, { spans: tree });
      return changed();
    }
    if (parent) {
      const siblings = waiting.get(parent) ?? [];
      waiting.delete(parent); // to the end of the queue: the newest are kept
      waiting.set(parent, [...siblings, ...tree]);
      if (waiting.size > WAITING_PARENTS) waiting.delete(waiting.keys().next().value as string);
      return;
    }
    const method = span.attributes['mcp.method.name'];
    const shown = typeof server === 'string' ? byServer.get(server) : undefined;
    if (shown && typeof method === 'string' && method.endsWith('/list')) {
      if (shown.spans.length + tree.length > SPANS_PER_SERVER) return;
      shown.spans.push(...tree);
      shown.rows = undefined;
      changed();
    }
  };
  return {
    onEnd,
    list: () =>
      [...byServer].map(([server, shown]) => {
        shown.rows ??= serverWaterfall(shown.spans, server);
        return { server, spans: shown.rows };
      }),
  };
}
