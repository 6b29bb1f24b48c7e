/**
 * `mcpx serve --http --instance-id`: the prefix a load balancer routes sessions
 * on (docs/deploy-nginx.md) must be safe in a header and an nginx regex, and
 * means nothing without --http. test/deploy/nginx.test.ts shows it routing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { local: { command: process.execPath, args: [testServerPath] } },
  });
});

afterEach(() => world.stopAll());
afterAll(() => world?.close());

const serve = (args: string[]) =>
  runCli(['--config', world.configFile, 'serve', ...args], { cwd: world.dir, home: world.home });

describe('mcpx serve --instance-id', () => {
  it.each(['a.b', 'a b', '', 'x'.repeat(33), 'ä'])('refuses %j, saying what it takes', async (id) => {
    const run = await serve(['--http', '--instance-id', id]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--instance-id takes 1 to 32 letters, digits/);
    expect(run.stderr).not.toMatch(/listening/);
  });

  it('goes with --http only', async () => {
    const run = await serve(['--instance-id', 'a']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--instance-id go with --http/);
  });

  it('prefixes the session ids it mints', async () => {
    const gateway = await world.serve(['--instance-id', 'node-7_b']);
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toMatch(/^node-7_b\.[0-9a-f-]{36}$/);
    await response.body?.cancel();
  });
});
