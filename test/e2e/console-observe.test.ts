/**
 * The console's waterfall and daemon endpoints seen from plain HTTP (token, Host and Origin
 * checked as for every other), and the console over a running `mcpx serve --http` named by
 * `--url`: the gateway is one server whose tools are its upstreams', and a call from the page
 * goes through it.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { type RunningConsolePage, startConsole } from '../helpers/console.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

let running: RunningConsolePage | undefined;
let world: GatewayWorld | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  await world?.close();
  world = undefined;
});

const servers = { test: { command: process.execPath, args: [testServerPath] } };

function raw(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

describe('mcpx console: waterfalls, the daemon, a running gateway', () => {
  it('answers /api/waterfalls, /api/daemon and its script only with the token, Host and Origin', async () => {
    running = await startConsole(servers);
    const { port, token, origin } = running;
    const own = { Host: `127.0.0.1:${port}` };
    for (const path of ['/api/waterfalls', '/api/daemon', '/console-observe.js']) {
      expect((await raw(port, path, own)).status).toBe(401);
      expect((await raw(port, `${path}?token=${'0'.repeat(48)}`, own)).status).toBe(401);
      expect((await raw(port, `${path}?token=${token}`, { Host: `evil.example:${port}` })).status).toBe(403);
      expect(
        (await raw(port, `${path}?token=${token}`, { ...own, Origin: 'http://evil.example' })).status,
      ).toBe(403);
      expect((await raw(port, path, { ...own, Origin: origin, 'X-Mcpx-Token': token })).status).toBe(200);
    }
    const daemon = await raw(port, '/api/daemon', { ...own, 'X-Mcpx-Token': token });
    expect(JSON.parse(daemon.body)).toEqual({ known: true, running: false });
    await expect
      .poll(
        async () =>
          (
            JSON.parse((await raw(port, '/api/waterfalls', { ...own, 'X-Mcpx-Token': token })).body) as {
              server: string;
              spans: { name: string }[];
            }[]
          ).map((w) => [w.server, w.spans[0]?.name]),
        { timeout: 15_000 },
      )
      .toEqual([['test', 'connect test']]);
  });

  it('shows a running mcpx serve --http as one server, and calls through it', async () => {
    world = await gatewayWorld({ permission: 'yolo', mcpServers: { upstream: servers.test } });
    const gateway = await world.serve();
    running = await startConsole({}, ['--url', gateway.url, '--name', 'gateway']);
    const { port, token } = running;
    const headers = { Host: `127.0.0.1:${port}`, 'X-Mcpx-Token': token };
    type State = {
      servers: { name: string; state: string; serverInfo?: { name: string }; tools: { name: string }[] }[];
    };
    await expect
      .poll(
        async () =>
          (JSON.parse((await raw(port, '/api/state', headers)).body) as State).servers.map((s) => [
            s.name,
            s.state,
          ]),
        { timeout: 15_000 },
      )
      .toEqual([['gateway', 'ready']]);
    const [shown] = (JSON.parse((await raw(port, '/api/state', headers)).body) as State).servers;
    expect(shown?.serverInfo?.name).toBe('mcpx-gateway');
    expect(shown?.tools.map((t) => t.name)).toContain('upstream__echo');
    const call = await raw(
      port,
      '/api/call',
      { ...headers, 'Content-Type': 'application/json' },
      'POST',
      JSON.stringify({ server: 'gateway', tool: 'upstream__echo', args: { message: 'through the gateway' } }),
    );
    const made = JSON.parse(call.body) as { state: string; result?: { content: { text?: string }[] } };
    expect(made.state).toBe('done');
    expect(made.result?.content[0]?.text).toContain('through the gateway');
  });
});
