/**
 * An upstream that announces its resource and prompt lists changed 30,000 times: `mcpx serve`
 * tells its client a few times, as it does for tool list changes, never not at all, and the
 * client's next lists show the final state.
 */
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliPath, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import { waitForExit } from '../helpers/processes.js';

const FLOOD = 30_000;
/** The least time between two notifications of one kind while changes keep coming (docs/gateway.md). */
const INTERVAL_MS = 500;

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: {
      n: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_NOISY: '1' } },
    },
  });
});
afterAll(() => world.close());

it(`coalesces ${FLOOD} resource and prompt list changes into a few notifications, and the lists end current`, {
  timeout: 180_000,
}, async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, '--config', world.configFile, 'serve'],
    cwd: world.dir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: world.home,
      MCPX_HOME: join(world.home, '.mcpx'),
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'flood-test', version: '0.0.0' });
  const told = { resources: 0, prompts: 0, last: Date.now() };
  client.setNotificationHandler('notifications/resources/list_changed', () => {
    told.resources += 1;
    told.last = Date.now();
  });
  client.setNotificationHandler('notifications/prompts/list_changed', () => {
    told.prompts += 1;
    told.last = Date.now();
  });
  await client.connect(transport);
  try {
    const started = Date.now();
    // A loaded machine may take a while to pass 60,000 notifications along.
    const result = await client.callTool(
      { name: 'n__flood_list_changes', arguments: { count: FLOOD } },
      { timeout: 150_000 },
    );
    expect(firstText(result)).toBe(
      `announced ${FLOOD} resource and prompt list changes; generation ${FLOOD}`,
    );
    // The flood is over once nothing more has come for a while.
    while (Date.now() - told.last < 1_500) await delay(100);

    expect(told.resources).toBeGreaterThanOrEqual(1);
    expect(told.prompts).toBeGreaterThanOrEqual(1);
    // One at once, then at most one an interval for as long as the flood lasted (uncoalesced:
    // one per change, 30,000 each). A tenth of slack: a timer may fire a millisecond early.
    const most = 1 + Math.ceil((told.last - started) / (INTERVAL_MS * 0.9));
    expect(told.resources).toBeLessThanOrEqual(most);
    expect(told.prompts).toBeLessThanOrEqual(most);
    expect(told.resources).toBeLessThan(FLOOD / 10);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.name)).toContain(`flood ${FLOOD}`);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain(`n__flood_${FLOOD}`);
  } finally {
    await client.close();
  }
  expect(await waitForExit(transport.pid as number, 10_000)).toBe(true);
  expect(stderr).toBe('');
});
