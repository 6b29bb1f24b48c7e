/**
 * Requests on a connection made with nothing registered with OpenTelemetry and no tracer given
 * (a plain call): sent as they are without loading the tracing code, until a provider is
 * registered; the first request after that loads it, and what is sent while it loads keeps its
 * order on the wire. Its own file: the tracing code, once loaded, stays loaded for the process.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { traceRequests } from '../../../src/client/trace-requests.js';
import { loadedTracing } from '../../../src/tracing/presence.js';
import { startTracing } from '../../../src/tracing/start.js';

const call = (id: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { message: String(id) } },
});
const progress: JSONRPCMessage = {
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 'p', progress: 1 },
};

describe('requests traced on the wire, no tracer given', () => {
  it('untraced until a provider is registered; then traced, in the order they were sent', async () => {
    const sent: JSONRPCMessage[] = [];
    const transport: Transport = {
      start: async () => {},
      close: async () => {},
      send: async (message) => {
        sent.push(message);
      },
    };
    traceRequests(transport, { server: 'late', wire: 'stdio', protocolVersion: () => '2025-11-25' });
    transport.onmessage = () => {};

    const first = call(1);
    await transport.send(first);
    expect(sent).toEqual([first]);
    expect(loadedTracing()).toBeUndefined();

    const tracing = await startTracing({ exporter: 'memory' });
    try {
      // Not awaited one by one: the notification and the third call wait behind the second call.
      await Promise.all([transport.send(call(2)), transport.send(progress), transport.send(call(3))]);
      expect(loadedTracing()).toBeDefined();
      expect(sent.map((m) => ('id' in m ? m.id : 'method' in m ? m.method : '?'))).toEqual([
        1,
        2,
        'notifications/progress',
        3,
      ]);
      for (const traced of [sent[1], sent[3]])
        expect(
          (traced as { params: { _meta?: { traceparent?: string } } }).params._meta?.traceparent,
        ).toMatch(/^00-/);
      transport.onmessage?.({ jsonrpc: '2.0', id: 2, result: { content: [] } });
      transport.onmessage?.({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'bad' } });
      expect(tracing.spans().map((s) => [s.name, s.attributes['error.type']])).toEqual([
        ['tools/call echo', undefined],
        ['tools/call echo', '-32602'],
      ]);
    } finally {
      await tracing.shutdown();
    }
  });
});
