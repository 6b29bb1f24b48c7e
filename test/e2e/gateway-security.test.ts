/**
 * `mcpx serve --http` safe by default: loopback bind, a bearer token required
 * elsewhere and never taken from a query string, Host and Origin checked
 * against DNS rebinding, bodies capped, `/healthz` saying nothing.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';

const TOKEN = 'a-long-enough-secret-for-tests-0123456789';
let world: GatewayWorld;
let gateway: RunningGateway;
let port: number;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { local: { command: process.execPath, args: [testServerPath] } },
  });
  gateway = await world.serve(['--token', TOKEN]);
  port = Number(new URL(gateway.url).port);
}, 60_000);

afterAll(() => world?.close());

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
});

/** A raw request, so Host can be anything (fetch refuses to set it). */
function raw(
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  method = body === undefined ? 'GET' : 'POST',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: {
          host: `127.0.0.1:${port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const bearer = { authorization: `Bearer ${TOKEN}` };

describe('mcpx serve --http guard', () => {
  it('refuses to bind 0.0.0.0 without a token, saying how to fix it', async () => {
    const run = await runCli(['--config', world.configFile, 'serve', '--http', '--host', '0.0.0.0'], {
      cwd: world.dir,
      home: world.home,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--token/);
    expect(run.stderr).not.toMatch(/listening/);
  });

  it('answers 401 without the token or with a wrong one, and serves with the right one', async () => {
    expect((await raw('/mcp', {}, INIT)).status).toBe(401);
    expect((await raw('/mcp', { authorization: 'Bearer wrong-token-of-some-length' }, INIT)).status).toBe(
      401,
    );
    expect((await raw('/mcp', { authorization: `Bearer ${TOKEN}x` }, INIT)).status).toBe(401);
    const client = await world.client(gateway.url, 'modern', { headers: bearer });
    const result = await client.callTool({ name: 'local__echo', arguments: { message: 'authorized' } });
    expect(firstText(result)).toBe('authorized');
  });

  it('never takes the token from the query string', async () => {
    for (const name of ['token', 'access_token']) {
      const answer = await raw(`/mcp?${name}=${TOKEN}`, bearer, INIT);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatch(/query string/);
    }
  });

  it('answers 403 to a foreign Host or Origin, and accepts localhost ones', async () => {
    expect((await raw('/mcp', { ...bearer, host: `evil.example:${port}` }, INIT)).status).toBe(403);
    expect((await raw('/mcp', { ...bearer, origin: 'http://evil.example' }, INIT)).status).toBe(403);
    expect((await raw('/mcp', { ...bearer, origin: 'null' }, INIT)).status).toBe(403);
    expect((await raw('/mcp', { ...bearer, origin: `http://localhost:${port}` }, INIT)).status).toBe(200);
    expect((await raw('/mcp', { ...bearer, host: `localhost:${port}` }, INIT)).status).toBe(200);
  });

  it('caps request bodies (413)', async () => {
    const huge = Buffer.alloc(5 * 1024 * 1024, 0x20);
    expect((await raw('/mcp', bearer, huge)).status).toBe(413);
  });

  it('/healthz says ok and nothing else, without a token', async () => {
    const health = await raw('/healthz', {});
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ ok: true });
  });
});
