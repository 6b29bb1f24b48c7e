/**
 * The gateway HTTP front's event log through real HTTP: a session's events go
 * with the session (DELETE), and past its bounds an evicted event id is refused
 * rather than replayed in part. The downstream server is a plain SDK server, so
 * only the listener is under test.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHttpServer, startGatewayHttp } from '../../../src/gateway/index.js';

const VERSION = '2025-11-25';
let listener: GatewayHttpServer | undefined;

afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

function start(bounds?: Parameters<typeof startGatewayHttp>[0]['sseEventBounds']) {
  return startGatewayHttp({
    newServer: () => {
      const server = new McpServer({ name: 'plain', version: '0' });
      server.registerTool('say', { description: 'says hello' }, async () => ({
        content: [{ type: 'text', text: 'hello' }],
      }));
      return server.server;
    },
    onListChanged: () => () => {},
    ...(bounds ? { sseEventBounds: bounds } : {}),
  });
}

function headers(session?: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    ...(session ? { 'mcp-session-id': session } : {}),
    ...extra,
  };
}

async function post(url: string, session: string | undefined, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { response, ids: [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1] as string), text };
}

async function openSession(url: string): Promise<string> {
  const { response } = await post(url, undefined, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
  const session = response.headers.get('mcp-session-id') as string;
  await post(url, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return session;
}

const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'say', arguments: {} },
});

describe('the gateway HTTP front keeps SSE events', () => {
  it("per session, and drops a session's events when it ends", async () => {
    listener = await start();
    const one = await openSession(listener.url);
    const two = await openSession(listener.url);
    await post(listener.url, one, call(1));
    await post(listener.url, two, call(1));
    const held = listener.events.usage();
    expect(held.sessions).toBe(2);

    const ended = await fetch(listener.url, { method: 'DELETE', headers: headers(one) });
    expect(ended.status).toBe(200);
    const after = listener.events.usage();
    expect(after.sessions).toBe(1);
    expect(after.events).toBeLessThan(held.events);
    expect(after.bytes).toBeLessThan(held.bytes);
  });

  it('within its bounds: an evicted event id is refused, a held one replays', async () => {
    // Each call's stream holds a priming event and the result: 2 per call, 4 kept per session.
    listener = await start({
      sessionEvents: 4,
      sessionBytes: 1 << 20,
      totalEvents: 100,
      totalBytes: 1 << 20,
    });
    const session = await openSession(listener.url);
    const first = await post(listener.url, session, call(1));
    await post(listener.url, session, call(2));
    const third = await post(listener.url, session, call(3));
    expect(listener.events.usage().events).toBe(4);

    const evicted = await fetch(listener.url, {
      headers: headers(session, { accept: 'text/event-stream', 'last-event-id': first.ids[0] as string }),
    });
    expect(evicted.status).toBe(400);
    await evicted.body?.cancel();
    const held = await fetch(listener.url, {
      headers: headers(session, { accept: 'text/event-stream', 'last-event-id': third.ids[0] as string }),
    });
    expect(held.status).toBe(200);
    const replayed = [...(await held.text()).matchAll(/^data: (.+)$/gm)].map((m) =>
      JSON.parse(m[1] as string),
    );
    expect(replayed).toEqual([
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'hello' }] } },
    ]);
  });
});
