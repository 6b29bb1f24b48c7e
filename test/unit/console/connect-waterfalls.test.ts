/**
 * The console's connect waterfalls, fed by the process's tracing (`startTracing({ exporter:
 * 'none' })` and `tapSpans`, as `mcpx console` sets them up): a server's connect and its
 * listings kept, a reconnect drawn anew, anything else dropped, and no trace context sent.
 */
import { context, propagation } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectWaterfalls } from '../../../src/console/connect-waterfalls.js';
import { inSpan, mcpxTracer } from '../../../src/tracing/index.js';
import { startTracing, tapSpans } from '../../../src/tracing/start.js';
import type { Tracing } from '../../../src/tracing/types.js';

let tracing: Tracing | undefined;
let untap: (() => void) | undefined;
afterEach(async () => {
  untap?.();
  await tracing?.shutdown();
  tracing = undefined;
});

async function watched() {
  tracing = await startTracing({ exporter: 'none' });
  let changes = 0;
  const waterfalls = createConnectWaterfalls(() => changes++);
  untap = tapSpans(waterfalls.onEnd);
  return { waterfalls, changes: () => changes };
}

const tracer = () => mcpxTracer();
const attributes = (server: string, method?: string) => ({
  attributes: { 'mcpx.server': server, ...(method ? { 'mcp.method.name': method } : {}) },
});
const none = async () => {};

async function connect(server: string) {
  await inSpan(tracer(), `connect ${server}`, attributes(server), async () => {
    await inSpan(tracer(), 'spawn', {}, none);
    await inSpan(tracer(), 'handshake', attributes(server), () =>
      inSpan(tracer(), 'server/discover', attributes(server, 'server/discover'), none),
    );
  });
}

describe('connect waterfalls', () => {
  it("keeps a server's connect, nested, and the listings after it; not its tool calls", async () => {
    const { waterfalls, changes } = await watched();
    await connect('a');
    await inSpan(tracer(), 'tools/list', attributes('a', 'tools/list'), none);
    await inSpan(tracer(), 'tools/call echo', attributes('a', 'tools/call'), none);
    await inSpan(tracer(), 'tools/list', attributes('b', 'tools/list'), none); // b never connected
    const [a, ...others] = waterfalls.list();
    expect(others).toEqual([]);
    expect(a?.server).toBe('a');
    expect(a?.spans.map((s) => [s.name, s.depth])).toEqual([
      ['connect a', 0],
      ['spawn', 1],
      ['handshake', 1],
      ['server/discover', 2],
      ['tools/list', 0],
    ]);
    expect(changes()).toBe(2);
  });

  it('draws a reconnect anew, and keeps each server apart', async () => {
    const { waterfalls } = await watched();
    await connect('a');
    await connect('b');
    const before = waterfalls.list().find((w) => w.server === 'a')?.spans[0]?.traceId;
    await inSpan(tracer(), 'tools/list', attributes('a', 'tools/list'), none);
    await connect('a');
    const after = waterfalls.list().find((w) => w.server === 'a');
    expect(after?.spans[0]?.traceId).not.toBe(before);
    expect(after?.spans.map((s) => s.name)).toEqual(['connect a', 'spawn', 'handshake', 'server/discover']);
    expect(waterfalls.list().map((w) => w.server)).toEqual(['a', 'b']);
  });

  it('keeps at most 100 spans a server, however often it lists', async () => {
    const { waterfalls } = await watched();
    await connect('a');
    for (let i = 0; i < 300; i++) await inSpan(tracer(), 'tools/list', attributes('a', 'tools/list'), none);
    expect(waterfalls.list()[0]?.spans).toHaveLength(100);
  });

  it('sends no trace context: its spans are for this process alone', async () => {
    await watched();
    await inSpan(tracer(), 'connect a', attributes('a'), async () => {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      expect(carrier).toEqual({});
    });
  });
});
