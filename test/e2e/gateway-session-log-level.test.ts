/**
 * An upstream's log messages sent outside any call reach every 2025-11-25 session of
 * `mcpx serve --http`, each filtered by the level that session asked for (`logging/setLevel`):
 * one session's `warning` keeps the upstream's `info` chatter from it, while another session at
 * `debug` gets it. (The SDK keeps a session's level under its session id; a message sent
 * without that id was let through to every session whatever its level.)
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: {
      // Logs `info` every 50 ms, between calls, for as long as it runs.
      chatty: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_LOG_EVERY_MS: '50' } },
    },
  });
}, 60_000);

afterEach(() => world.stopAll());
afterAll(() => world?.close());

it("filters an upstream's log outside a call by each session's own level", async () => {
  const gateway = await world.serve();
  const [quiet, loud] = await Promise.all([
    world.client(gateway.url, 'legacy'),
    world.client(gateway.url, 'legacy'),
  ]);
  const heard = { quiet: [] as unknown[], loud: [] as unknown[] };
  quiet.setNotificationHandler('notifications/message', (n) => {
    heard.quiet.push(n.params.data);
  });
  loud.setNotificationHandler('notifications/message', (n) => {
    heard.loud.push(n.params.data);
  });
  await quiet.setLoggingLevel('warning');
  await loud.setLoggingLevel('debug');
  // The upstream connected and chatting: the session at debug hears it.
  await expect.poll(() => heard.loud.length, { timeout: 10_000, interval: 50 }).toBeGreaterThan(3);
  // What reached the quiet session before its level was set (already on its way) is not counted.
  heard.quiet.length = 0;
  const loudBefore = heard.loud.length;
  await delay(800);
  expect(heard.loud.length).toBeGreaterThan(loudBefore + 3);
  expect(heard.loud.every((d) => /chatter/.test(String(d)))).toBe(true);
  // The session at warning hears none of the info chatter.
  expect(heard.quiet).toEqual([]);
});
