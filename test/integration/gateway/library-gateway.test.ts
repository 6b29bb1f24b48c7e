/**
 * A library program runs a gateway as `mcpx serve` does: `createHost` with the
 * gateway's wiring and policy, then `createGateway` over it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, expect, it } from 'vitest';
import { createGateway, gatewayWiring } from '../../../src/gateway/index.js';
import { createHost } from '../../../src/index.js';
import { tempDir, testServerPath } from '../../helpers/cli.js';
import { firstText } from '../../helpers/gateway.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('serves the host’s servers over HTTP, behind the host’s one guard with its policy', async () => {
  const dir = await tempDir('mcpx-library-gateway-');
  cleanups.push(dir.remove);
  const configFile = join(dir.path, 'mcp.json');
  const server = { command: process.execPath, args: [testServerPath] };
  // `other` says nothing of its tools (no readOnlyHint): only the policy decides its calls.
  const other = { ...server, env: { MCPX_TEST_ANNOTATED: '0' } };
  await writeFile(configFile, JSON.stringify({ mcpServers: { allowed: server, other } }));
  const wiring = gatewayWiring();
  const host = createHost({
    ...wiring,
    configFile,
    cwd: dir.path,
    homedir: dir.path,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', MCPX_HOME: join(dir.path, '.mcpx') },
    permission: 'trusted',
    omitBuiltinWhenConfigured: true,
    policy: { allowServers: ['allowed'], excludeTools: ['allowed.add'] },
  });
  cleanups.push(() => host.close());
  const events: unknown[] = [];
  const gateway = await createGateway(host, {
    wiring,
    http: { port: 0 },
    on: (event) => events.push(event),
  });
  cleanups.push(() => gateway.close());
  expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  expect(gateway.servers).toEqual(['allowed', 'other']);

  const client = new Client({ name: 'library-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url as string)));
  cleanups.push(() => client.close());
  const names = (await client.listTools()).tools.map((t) => t.name);
  // `excludeTools` hides the tool; the other server's own `add` stays.
  expect(names).toContain('allowed__echo');
  expect(names).not.toContain('allowed__add');
  expect(names).toContain('other__add');

  // `allowServers` lets `allowed` run at `trusted` with nobody to ask ...
  const echoed = await client.callTool({ name: 'allowed__echo', arguments: { message: 'via the library' } });
  expect(firstText(echoed)).toBe('via the library');
  // ... and the other server is refused in the gateway's words, which say how to allow it.
  const refused = await client.callTool({ name: 'other__echo', arguments: { message: 'no' } });
  expect(refused.isError).toBe(true);
  expect(firstText(refused)).toContain('--allow other');
  expect(events).toEqual([]);
});

it('refuses to start without exactly one of HTTP and stdio, before anything starts', async () => {
  const host = createHost({ env: {} });
  cleanups.push(() => host.close());
  await expect(createGateway(host, {})).rejects.toThrow(/listens on one of HTTP and stdio/);
  await expect(
    createGateway(host, { http: { port: 0 }, stdio: { stdin: process.stdin, stdout: process.stdout } }),
  ).rejects.toThrow(/listens on one of HTTP and stdio/);
});
