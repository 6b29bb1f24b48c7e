/**
 * The fleet's SSE event log in a real Redis, through the gateway HTTP front (a plain SDK server
 * downstream, so only the listener and the store are under test): a session's events are held
 * within the same bounds as in memory, oldest out first, with an expiry; an evicted id is refused
 * rather than replayed in part; a DELETE removes them from the store.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FleetState, openFleetState } from '../../src/gateway/fleet/index.js';
import { sharedEventKeys } from '../../src/gateway/http/shared-event-log.js';
import { type GatewayHttpServer, startGatewayHttp } from '../../src/gateway/index.js';
import { openRawSession, postToolCall, resumeStream, sessionHeaders } from '../helpers/raw-session.js';
import { type RunningRedis, startRedis } from '../helpers/redis.js';

let redis: RunningRedis;
let fleet: FleetState | undefined;
let listener: GatewayHttpServer | undefined;

beforeEach(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await listener?.close();
  await fleet?.close();
  listener = undefined;
  fleet = undefined;
  await redis.stop();
});

async function start(sessionEvents: number, sessionBytes: number): Promise<GatewayHttpServer> {
  fleet = await openFleetState(redis.url, { instanceId: 'a' });
  return startGatewayHttp({
    newServer: () => {
      const server = new McpServer({ name: 'plain', version: '0' });
      server.registerTool('say', { description: 'says hello' }, async () => ({
        content: [{ type: 'text', text: 'hello' }],
      }));
      return server.server;
    },
    onListChanged: () => () => {},
    instanceId: 'a',
    fleet,
    sessionIdleMs: 60_000,
    sseEventBounds: { sessionEvents, sessionBytes, totalEvents: 100, totalBytes: 1 << 20 },
  });
}

async function callSay(url: string, session: string, id: number): Promise<string[]> {
  const text = await (await postToolCall(url, session, { id, name: 'say', arguments: {} })).text();
  return [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1] as string);
}

describe("the fleet's SSE event log in Redis", () => {
  it('holds a session within its bounds, oldest out first, with an expiry, and a DELETE removes it', async () => {
    // Each call's stream holds a priming event and the result: 2 per call, 4 kept per session.
    listener = await start(4, 1 << 20);
    const session = await openRawSession(listener.url);
    const first = await callSay(listener.url, session, 1);
    await callSay(listener.url, session, 2);
    const third = await callSay(listener.url, session, 3);
    const [key, bytesKey] = sharedEventKeys('mcpx:', session) as [string, string];
    expect(redis.cli(['XLEN', key])).toBe('4');
    const ttl = Number(redis.cli(['PTTL', key]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000 + 30_000);
    expect(Number(redis.cli(['PTTL', `mcpx:session:${session}`]))).toBeGreaterThan(0);

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

    const ended = await fetch(listener.url, { method: 'DELETE', headers: sessionHeaders(session) });
    expect(ended.status).toBe(200);
    expect(redis.cli(['EXISTS', key, bytesKey, `mcpx:session:${session}`])).toBe('0');
  });

  it('counts bytes too: past the byte bound the oldest go', async () => {
    // A result is about 80 bytes of JSON; 200 bytes hold two of them and the small priming events.
    listener = await start(1_000, 200);
    const session = await openRawSession(listener.url);
    for (let id = 1; id <= 5; id++) await callSay(listener.url, session, id);
    const [key, bytesKey] = sharedEventKeys('mcpx:', session) as [string, string];
    expect(Number(redis.cli(['GET', bytesKey]))).toBeLessThanOrEqual(200);
    expect(Number(redis.cli(['XLEN', key]))).toBeLessThan(10);
    expect(Number(redis.cli(['XLEN', key]))).toBeGreaterThan(0);
  });
});
