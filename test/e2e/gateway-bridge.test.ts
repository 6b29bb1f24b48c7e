/**
 * `mcpx serve --server NAME`: one server re-served unchanged, stdio → HTTP and
 * HTTP → stdio; and `mcpx serve` on stdio to SDK clients of both eras.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpTestServer, startHttpTestServer } from '../../src/testing/http-test-server.js';
import { cliPath, gatewayPathEnv, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

let world: GatewayWorld;
let upstreamHttp: HttpTestServer;
const clients: Client[] = [];

beforeAll(async () => {
  upstreamHttp = await startHttpTestServer({ era: 'both' });
  world = await gatewayWorld({
    permission: 'trusted',
    mcpServers: {
      local: { command: process.execPath, args: [testServerPath] },
      remote: { url: upstreamHttp.url },
    },
  });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await world.stopAll();
});

afterAll(async () => {
  await world?.close();
  await upstreamHttp?.close();
});

async function stdioClient(args: string[], era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'gateway-test', version: '0.0.0' },
    { versionNegotiation: era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } } },
  );
  clients.push(client);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, '--config', world.configFile, 'serve', ...args],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: world.home,
        MCPX_HOME: `${world.home}/.mcpx`,
        ...gatewayPathEnv(),
      },
      cwd: world.dir,
      stderr: 'pipe',
    }),
  );
  return client;
}

describe.each(['legacy', 'modern'] as const)('a %s client', (era) => {
  it('--server over HTTP: the stdio server unchanged (names, URIs, instructions, results)', async () => {
    const gateway = await world.serve(['--server', 'local', '--allow', 'local']);
    const client = await world.client(gateway.url, era);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    expect(tools.every((t) => !t.name.includes('__'))).toBe(true);
    expect(client.getInstructions()).toMatch(/demo server/);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'bridged' } });
    expect(firstText(result)).toBe('bridged');
    const read = await client.readResource({ uri: 'test://readme.txt' });
    expect(read.contents[0]?.uri).toBe('test://readme.txt');
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('--server on stdio: the HTTP server unchanged', async () => {
    const client = await stdioClient(['--server', 'remote', '--allow', 'remote'], era);
    const result = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    expect(firstText(result)).toContain('42');
    const { prompts } = await client.listPrompts();
    expect(prompts.length).toBeGreaterThan(0);
    expect(prompts.every((p) => !p.name.includes('__'))).toBe(true);
  });

  it('mcpx serve on stdio: both servers, prefixed; a call that would ask a person is refused with how to allow it', async () => {
    const client = await stdioClient(['--allow', 'local'], era);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('local__echo');
    expect(names).toContain('remote__echo');
    expect(firstText(await client.callTool({ name: 'local__echo', arguments: { message: 'ok' } }))).toBe(
      'ok',
    );
    // Not `echo`: a read-only tool of a server in the user's own config runs unasked (issue 25).
    const refused = await client.callTool({ name: 'remote__add_tool', arguments: { name: 'no' } });
    expect(refused.isError).toBe(true);
    expect(firstText(refused)).toBe(
      "mcpx refused 'add_tool' of 'remote': permission 'trusted' asks a person before a server is used, " +
        'and the gateway has nobody to ask. To allow it, restart the gateway with `--allow remote` ' +
        '(every tool of that server) or `--permission yolo`, or set "permission": "yolo" in your mcpx config.',
    );
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => resolve());
    });
    if (era === 'modern') await client.listen({ toolsListChanged: true });
    await client.callTool({ name: 'local__add_tool', arguments: { name: 'late' } });
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('local__late');
  });
});
