/**
 * `mcpx serve --http` asks a 2026-07-28 upstream for log messages on a call only when someone
 * would read them: the call's own client (its envelope names a level) or a 2025-11-25 session
 * open on the gateway. Otherwise a server with something to log (the test server logs each echo)
 * answers one JSON body instead of an event stream. What reaches the client is the same.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type HttpTestServer, startHttpTestServer } from '../../src/testing/http-test-server.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

let world: GatewayWorld;
let upstream: HttpTestServer;
let recorder: Server;
/** Each upstream `tools/call`: the log level its envelope named, and the media type of the answer. */
const calls: { logLevel: unknown; answer: string | undefined }[] = [];

beforeAll(async () => {
  upstream = await startHttpTestServer({ era: 'modern' });
  const target = new URL(upstream.url);
  // A pass-through in front of the test server that streams (a listen stream never ends).
  recorder = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const message = body.length
        ? (JSON.parse(body.toString('utf8')) as {
            method?: string;
            params?: { _meta?: Record<string, unknown> };
          })
        : {};
      const forward = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          if (message.method === 'tools/call')
            calls.push({
              logLevel: message.params?._meta?.['io.modelcontextprotocol/logLevel'],
              answer: answer.headers['content-type']?.split(';')[0],
            });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: {
      remote: { url: `http://127.0.0.1:${(recorder.address() as AddressInfo).port}/mcp`, protocol: 'modern' },
    },
  });
}, 60_000);

afterEach(async () => {
  await world.stopAll();
  calls.length = 0;
});
afterAll(async () => {
  await world?.close();
  recorder.closeAllConnections();
  await new Promise<void>((resolve) => recorder.close(() => resolve()));
  await upstream?.close();
});

it('a 2026-07-28 client that asks for no logs: the upstream is asked for none and answers JSON', async () => {
  const gateway = await world.serve(['--server', 'remote']);
  const client = await world.client(gateway.url, 'modern');
  const result = await client.callTool({ name: 'echo', arguments: { message: 'quiet' } });
  expect(firstText(result)).toBe('quiet');
  expect(calls).toEqual([{ logLevel: undefined, answer: 'application/json' }]);
});

it('a 2026-07-28 client whose envelope names a level still gets the upstream’s log on its call', async () => {
  const gateway = await world.serve(['--server', 'remote']);
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/logLevel': 'info',
  };
  const answer = await fetch(gateway.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'loud' }, _meta: meta },
    }),
  });
  const text = await answer.text();
  expect(text).toContain('tool echo called');
  expect(text).toContain('loud');
  expect(calls).toEqual([{ logLevel: 'info', answer: 'text/event-stream' }]);
});

it('while a 2025-11-25 session is open, a 2026-07-28 call asks for logs (the session may hear them)', async () => {
  const gateway = await world.serve(['--server', 'remote']);
  await world.client(gateway.url, 'legacy');
  const modern = await world.client(gateway.url, 'modern');
  expect(firstText(await modern.callTool({ name: 'echo', arguments: { message: 'heard' } }))).toBe('heard');
  expect(calls.at(-1)).toEqual({ logLevel: 'info', answer: 'text/event-stream' });
});
