/**
 * The gateway HTTP front ends the 2025-11-25 sessions a client left without a
 * DELETE (most clients just exit): after the idle time with no request and no
 * open stream, the session's server is closed and its id answers 404. A stream
 * the client still listens on keeps the session. An initialize refused before
 * it became a session leaves no server behind. Real HTTP, a plain SDK server
 * downstream, so only the listener is under test.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHttpServer, startGatewayHttp } from '../../../src/gateway/index.js';

const VERSION = '2025-11-25';
const IDLE_MS = 300;
let listener: GatewayHttpServer | undefined;
let opened = 0;
let closed = 0;

afterEach(async () => {
  await listener?.close();
  listener = undefined;
  opened = 0;
  closed = 0;
});

function start() {
  return startGatewayHttp({
    newServer: () => {
      const server = new McpServer({ name: 'plain', version: '0' });
      server.registerTool('say', { description: 'says hello' }, async () => ({
        content: [{ type: 'text', text: 'hello' }],
      }));
      opened += 1;
      server.server.onclose = () => {
        closed += 1;
      };
      return server.server;
    },
    onListChanged: () => () => {},
    sessionIdleMs: IDLE_MS,
  });
}

function headers(session?: string, accept = 'application/json, text/event-stream'): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept,
    'mcp-protocol-version': VERSION,
    ...(session ? { 'mcp-session-id': session } : {}),
  };
}

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

async function post(url: string, session: string | undefined, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    session: response.headers.get('mcp-session-id'),
    text: await response.text(),
  };
}

async function openSession(url: string): Promise<string> {
  const { session } = await post(url, undefined, initialize);
  await post(url, session as string, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return session as string;
}

const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'say', arguments: {} } };

describe('the gateway HTTP front ends idle 2025-11-25 sessions', () => {
  it('closes a session unused for the idle time; its id then answers 404', async () => {
    listener = await start();
    const session = await openSession(listener.url);
    // Used within the idle time: still there.
    await delay(IDLE_MS / 2);
    expect((await post(listener.url, session, call)).text).toContain('hello');
    await delay(IDLE_MS * 3);
    expect(closed).toBe(1);
    expect((await post(listener.url, session, call)).status).toBe(404);
    expect(listener.events.usage().sessions).toBe(0);
  });

  it('keeps a session whose client listens on a stream, however quiet, and ends it once the stream closes', async () => {
    listener = await start();
    const session = await openSession(listener.url);
    const controller = new AbortController();
    const stream = await fetch(listener.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-protocol-version': VERSION, 'mcp-session-id': session },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    await delay(IDLE_MS * 3);
    expect(closed).toBe(0);
    expect((await post(listener.url, session, call)).text).toContain('hello');
    controller.abort();
    await delay(IDLE_MS * 3);
    expect(closed).toBe(1);
    expect((await post(listener.url, session, call)).status).toBe(404);
  });

  it('leaves no server behind for an initialize refused before it became a session', async () => {
    listener = await start();
    // Accepting JSON only: the SDK refuses it (406) before any session exists.
    const refused = await fetch(listener.url, {
      method: 'POST',
      headers: headers(undefined, 'application/json'),
      body: JSON.stringify(initialize),
    });
    expect(refused.status).toBe(406);
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    expect(opened).toBe(1);
    expect(closed).toBe(1);
  });
});
