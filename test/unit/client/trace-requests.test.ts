import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { ProxyTracer } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RelayedCalls } from '../../../src/client/relayed-call.js';
import { traceRequests } from '../../../src/client/trace-requests.js';
import { mcpxTracer } from '../../../src/tracing/index.js';
import { startTracing } from '../../../src/tracing/start.js';
import type { StdioTransport } from '../../../src/transport/index.js';

/** A transport that keeps what it is given to send, and hands back what it is told to receive. */
function fakeTransport() {
  const sent: JSONRPCMessage[] = [];
  const transport: Transport = {
    start: async () => {},
    close: async () => {},
    send: async (message) => {
      sent.push(message);
    },
  };
  traceRequests(transport, {
    tracer: mcpxTracer(),
    server: 'bench',
    wire: 'stdio',
    protocolVersion: () => '2025-11-25',
  });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  return { transport, sent, received };
}

const call = (id: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { message: 'hi' } },
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('requests traced on the wire', () => {
  it('with tracing off, a request goes as it is: no span is started for it', async () => {
    const startSpan = vi.spyOn(ProxyTracer.prototype, 'startSpan');
    const { transport, sent } = fakeTransport();
    const requests = [call(1), call(2), call(3)];
    for (const request of requests) await transport.send(request);
    expect(startSpan).not.toHaveBeenCalled();
    expect(sent).toHaveLength(3);
    sent.forEach((message, i) => {
      expect(message).toBe(requests[i]);
    });
  });

  it('a provider registered after the connection is used from its next request on', async () => {
    const { transport, sent } = fakeTransport();
    await transport.send(call(1));
    const tracing = await startTracing({ exporter: 'memory' });
    try {
      await transport.send(call(2));
      transport.onmessage?.({ jsonrpc: '2.0', id: 2, result: { content: [] } });
      expect(tracing.spans().map((s) => s.name)).toEqual(['tools/call echo']);
      // The request carries its trace context.
      expect((sent[1] as { params: { _meta?: { traceparent?: string } } }).params._meta?.traceparent).toMatch(
        /^00-/,
      );
    } finally {
      await tracing.shutdown();
    }
  });

  it('a traced request replaces a passed-on trace context whole, and keeps the rest of its _meta', async () => {
    const { transport, sent } = fakeTransport();
    const tracing = await startTracing({ exporter: 'memory' });
    try {
      const passedOn: JSONRPCMessage = {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'echo',
          arguments: {},
          _meta: {
            traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
            tracestate: 'vendor=stale',
            progressToken: 'p1',
          },
        },
      };
      await transport.send(passedOn);
      const meta = (sent[0] as { params: { _meta: Record<string, unknown> } }).params._meta;
      // Its own span, in a trace of its own (nothing active here), and no tracestate of another trace.
      expect(meta.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(meta.traceparent).not.toContain('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(meta).not.toHaveProperty('tracestate');
      expect(meta.progressToken).toBe('p1');
    } finally {
      await tracing.shutdown();
    }
  });

  it("a call relayed as a plain line (the gateway's fast path) ends its span with the relayed reply", async () => {
    const { transport, sent } = fakeTransport();
    const relayed = transport as unknown as StdioTransport & { onrelayreply?: (m: JSONRPCMessage) => void };
    const relay = new RelayedCalls(relayed);
    const tracing = await startTracing({ exporter: 'memory' });
    try {
      const answered = relay.callTool({ name: 'echo', arguments: { message: 'hi' } }, { timeout: 1000 });
      // Sent once the tracing code is loaded (at once when it is already).
      await vi.waitFor(() => expect(sent).toHaveLength(1));
      const id = (sent[0] as { id: string }).id;
      relayed.onrelayreply?.({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'hi' }] } });
      await expect(answered).resolves.toEqual({ content: [{ type: 'text', text: 'hi' }] });
      expect(tracing.spans().map((s) => s.name)).toEqual(['tools/call echo']);
    } finally {
      await tracing.shutdown();
    }
  });
});
