/**
 * Fan-out across a fleet (issue 43): three `mcpx serve --http --state` instances on one real
 * Redis, each running its own copy of the test server. A list change and a resource update heard
 * by instance A (from its upstream) reach the listeners connected to B (a 2025-11-25 session) and
 * to C (a 2026-07-28 `subscriptions/listen` stream) — and again once the store has been down and
 * is back.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { redisEachTest, stateKeyArgs } from '../helpers/redis.js';

const COUNTER = 'mcpx://local/test://counter';
let world: GatewayWorld;
const store = redisEachTest(() => world.stopAll());

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { local: { command: process.execPath, args: [testServerPath] } },
  });
}, 60_000);
afterAll(async () => world?.close());

/** What one client was told: list changes and resource updates, counted. */
function heard(client: Client): { lists: number; updates: string[] } {
  const told = { lists: 0, updates: [] as string[] };
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    told.lists++;
  });
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    told.updates.push(n.params.uri);
  });
  return told;
}

/** Do `act` until `done`, as a listen stream or a resubscription may take a moment to be in place. */
async function until(act: () => Promise<unknown>, done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) {
    await act();
    await delay(100);
  }
  if (!done()) throw new Error(`never ${what}`);
}

async function storeUp(url: string): Promise<boolean> {
  const body = (await (await fetch(new URL('/healthz', url))).json()) as { state?: { up?: boolean } };
  return body.state?.up === true;
}

describe('fan-out across a fleet (--state)', () => {
  it("a list change and a resource update on A's upstream reach the listeners on B and C, also after an outage", async () => {
    const serve = (id: string) =>
      world.serve(['--port', '0', '--instance-id', id, '--state', store().url, ...stateKeyArgs(world.dir)]);
    const [a, b, c] = (await Promise.all([serve('a'), serve('b'), serve('c')])) as [
      RunningGateway,
      RunningGateway,
      RunningGateway,
    ];
    // A's own client subscribes, so A's upstream tells A of the counter's updates.
    const onA = await world.client(a.url, 'legacy');
    await onA.subscribeResource({ uri: COUNTER });
    const onB = await world.client(b.url, 'legacy');
    const toldB = heard(onB);
    await onB.subscribeResource({ uri: COUNTER });
    const onC = await world.client(c.url, 'modern');
    const toldC = heard(onC);
    await onC.listen({ toolsListChanged: true, resourceSubscriptions: [COUNTER] });

    let added = 0;
    const addTool = () => onA.callTool({ name: 'local__add_tool', arguments: { name: `added_${++added}` } });
    await until(addTool, () => toldB.lists > 0 && toldC.lists > 0, 'told B and C of the list change');
    const touch = () => onA.callTool({ name: 'local__touch_resource', arguments: {} });
    await until(
      touch,
      () => toldB.updates.length > 0 && toldC.updates.length > 0,
      'told B and C of the update',
    );
    expect(new Set([...toldB.updates, ...toldC.updates])).toEqual(new Set([COUNTER]));

    await store().stop();
    await expect.poll(() => storeUp(b.url), { timeout: 15_000 }).toBe(false);
    await store().start();
    await expect
      .poll(async () => (await storeUp(a.url)) && (await storeUp(b.url)) && (await storeUp(c.url)), {
        timeout: 15_000,
      })
      .toBe(true);
    // Subscribed again by themselves: a change after the outage still reaches the others.
    const before = { b: toldB.lists, c: toldC.lists };
    await until(
      addTool,
      () => toldB.lists > before.b && toldC.lists > before.c,
      'told B and C after the outage',
    );
    // No process warning and no stack trace through the outage (an ioredis 'error' unheard would be one).
    expect(a.stderr()).not.toMatch(/Warning|\n\s+at /);
  });
});
