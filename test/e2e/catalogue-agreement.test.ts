/**
 * One catalogue under every front end: for the same config, the library's agent tools, the
 * host's catalogue and `mcpx serve`'s tools/list give the same public names (a colliding pair
 * and a switched-off tool included), and `mcpx call` through the gateway reaches a hashed one.
 */

import type { Tool } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHost } from '../../src/host/index.js';
import type { Catalogue } from '../../src/tools/index.js';
import { runCli, testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';

let world: GatewayWorld;
let gateway: RunningGateway;

beforeAll(async () => {
  const test = { command: process.execPath, args: [testServerPath] };
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: {
      // `café__echo` is sanitized to `cafe__echo`, the name of `cafe`'s own echo: the sanitized
      // one of the pair gets a hash, everywhere.
      café: test,
      // Its `add` is switched off: `café`'s add then has no twin and keeps its plain name.
      cafe: { ...test, disabled_tools: ['add'] },
    },
  });
  gateway = await world.serve();
}, 60_000);

afterAll(async () => {
  await world?.close();
});

it('gives the same names through agentTools(), host.catalogue() and the gateway, and mcpx call reaches them', async () => {
  const client = await world.client(gateway.url, 'legacy');
  const served = (await client.listTools()).tools.map((t) => t.name).sort();
  const host = createHost({
    cwd: world.dir,
    homedir: world.dir,
    env: { PATH: process.env.PATH, MCPX_HOME: world.home },
    configFile: world.configFile,
    // As `mcpx serve` does: the built-in demo only when nothing is configured.
    omitBuiltinWhenConfigured: true,
  });
  let agentNames: string[];
  let catalogue: Catalogue<Tool>;
  try {
    const agent = await host.agentTools({ naming: 'namespaced', mode: 'all' });
    agentNames = agent.tools.map((t) => t.name).sort();
    agent.close();
    catalogue = await host.catalogue({ naming: 'namespaced' });
  } finally {
    await host.close();
  }

  expect(agentNames).toEqual(served);
  expect([...catalogue.names].sort()).toEqual(served);

  const hashed = served.find((n) => /^cafe__echo_[0-9a-f]{6}$/.test(n)) as string;
  expect(hashed).toBeDefined();
  expect(catalogue.resolve(hashed)).toMatchObject({ server: 'café', item: { name: 'echo' } });
  expect(catalogue.resolve('cafe__echo')).toMatchObject({ server: 'cafe', item: { name: 'echo' } });
  expect(catalogue.resolve('cafe__add')).toMatchObject({ server: 'café', item: { name: 'add' } });
  expect(served.filter((n) => /^cafe__add(_[0-9a-f]{6})?$/.test(n))).toEqual(['cafe__add']);

  const opts = { cwd: world.dir, home: world.home, timeoutMs: 30_000 };
  const call = await runCli(['--url', gateway.url, 'call', hashed, 'message=one name'], opts);
  expect(call.stderr).toBe('');
  expect(call.stdout.trim()).toBe('one name');
  // The switched-off tool is refused by `mcpx call` as it is left out of every list.
  const off = await runCli(['--config', world.configFile, 'call', 'cafe.add', 'a=1', 'b=2'], opts);
  expect(off.code).not.toBe(0);
  expect(off.stderr).toContain("'add' of 'cafe' is switched off in the config");
}, 60_000);

it('mcpx call never suggests a tool the config switches off, nor counts it', async () => {
  const opts = { cwd: world.dir, home: world.home, timeoutMs: 30_000 };
  // JSON arguments: the call goes to the server, whose refusal is explained from its own listing.
  const typo = await runCli(['--config', world.configFile, 'call', 'cafe.ad', '{}'], opts);
  expect(typo.code).not.toBe(0);
  expect(typo.stderr).toContain("'cafe' has no tool named 'ad'");
  expect(typo.stderr).not.toContain("did you mean 'add'?");
  // As many as `mcpx tools` shows (`cafe (9 tools)`), the switched-off one not among them.
  const tools = await runCli(['--config', world.configFile, 'tools', 'cafe'], opts);
  expect(tools.stdout).not.toMatch(/^ {2}add\(/m);
  const shown = tools.stdout.match(/^cafe \((\d+) tools\)/)?.[1];
  expect(typo.stderr).toContain(`see its ${shown} tools`);
}, 60_000);
