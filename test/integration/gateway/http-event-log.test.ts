/**
 * The gateway HTTP front's event log through real HTTP: a session's events go
 * with the session (DELETE), and past its bounds an evicted event id is refused
 * rather than replayed in part. The downstream server is a plain SDK server, so
 * only the listener is under test.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHttpServer, startGatewayHttp } from '../../../src/gateway/index.js';
import { openRawSession, postToolCall, resumeStream, sessionHeaders } from '../../helpers/raw-session.js';

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

/** Call `say` in the session; resolves the SSE event ids its stream carried. */
async function callSay(url: string, session: string, id: number): Promise<string[]> {
  const text = await (await postToolCall(url, session, { id, name: 'say', arguments: {} })).text();
  return [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1] as string);
}

describe('the gateway HTTP front keeps SSE events', () => {
  it("per session, and drops a session's events when it ends", async () => {
    listener = await start();
    const one = await openRawSession(listener.url);
    const two = await openRawSession(listener.url);
    await callSay(listener.url, one, 1);
    await callSay(listener.url, two, 1);
    const held = listener.events.usage();
    expect(held.sessions).toBe(2);

    const ended = await fetch(listener.url, { method: 'DELETE', headers: sessionHeaders(one) });
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
    const session = await openRawSession(listener.url);
    const first = await callSay(listener.url, session, 1);
    await callSay(listener.url, session, 2);
    const third = await callSay(listener.url, session, 3);
    expect(listener.events.usage().events).toBe(4);

    const evicted = await resumeStream(listener.url, session, first[0] as string);
    expect(evicted.status).toBe(400);
    await evicted.body?.cancel();
    const held = await resumeStream(listener.url, session, third[0] as string);
    expect(held.status).toBe(200);
    const replayed = [...(await held.text()).matchAll(/^data: (.+)$/gm)].map((m) =>
      JSON.parse(m[1] as string),
    );
    expect(replayed).toEqual([
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'hello' }] } },
    ]);
  });
});
