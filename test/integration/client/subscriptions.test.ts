import { afterEach, describe, expect, it } from 'vitest';
import type { ServerConnection } from '../../../src/client/types.js';
import { COUNTER_URI } from '../../../src/testing/catalog.js';
import { connect, testServer, trackConnections } from '../../helpers/servers.js';
import { Resources, remoteServer } from '../http/helpers.js';

const { track, closeAll } = trackConnections();
const resources = new Resources();
afterEach(async () => {
  await closeAll();
  await resources.closeAll();
});

/** Resolves with the next update, or rejects after `ms` (generous: the machine may be loaded). */
function nextUpdate(updates: string[], ms = 15_000): Promise<string> {
  const seen = updates.length;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (updates.length > seen) {
        clearInterval(poll);
        resolve(updates[seen] as string);
      } else if (Date.now() - started > ms) {
        clearInterval(poll);
        reject(new Error(`no resources/updated within ${ms} ms`));
      }
    }, 20);
  });
}

const textOf = (result: { contents: readonly object[] }) => {
  const first = result.contents[0];
  return first && 'text' in first ? String(first.text) : '';
};

/** Subscribe, touch (via the server's tool or its host), see the update, re-read; unsubscribe, see none. */
async function exercise(c: ServerConnection, touch: () => Promise<unknown>) {
  const updates: string[] = [];
  const subscription = await c.subscribeResource(COUNTER_URI, (uri) => updates.push(uri));
  expect(textOf(await c.readResource(COUNTER_URI))).toBe('count 0\n');
  const first = nextUpdate(updates);
  await touch();
  expect(await first).toBe(COUNTER_URI);
  expect(textOf(await c.readResource(COUNTER_URI))).toBe('count 1\n');
  const second = nextUpdate(updates);
  await touch();
  await second;
  expect(textOf(await c.readResource(COUNTER_URI))).toBe('count 2\n');

  await subscription.unsubscribe();
  expect(await subscription.ended).toBe('unsubscribed');
  const count = updates.length;
  await touch();
  expect(textOf(await c.readResource(COUNTER_URI))).toBe('count 3\n');
  // Nothing may arrive after unsubscribing: give a late notification time to show up.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(updates).toHaveLength(count);
}

describe('resource subscriptions', () => {
  it('2025-11-25 over stdio: resources/subscribe and notifications/resources/updated', async () => {
    const c = await track(connect(testServer('legacy', {}, { protocol: 'legacy' })));
    expect(c.era).toBe('legacy');
    await exercise(c, () => c.callTool('touch_resource', {}));
  }, 60_000);

  it('2026-07-28 over stdio: a subscriptions/listen stream with a resource filter', async () => {
    const c = await track(connect(testServer('modern', {}, { protocol: 'modern' })));
    expect(c.era).toBe('modern');
    await exercise(c, () => c.callTool('touch_resource', {}));
  }, 60_000);

  it('2026-07-28 over stateless HTTP: the update comes on the listen stream', async () => {
    const server = await resources.server({ era: 'modern' });
    const c = await resources.connect(remoteServer('remote', server.url, { protocol: 'modern' }));
    expect(c.era).toBe('modern');
    await exercise(c, async () => server.touchResource());
  }, 60_000);

  it('2025-11-25 over Streamable HTTP with a session', async () => {
    const server = await resources.server({ era: 'legacy' });
    const c = await resources.connect(remoteServer('remote', server.url, { protocol: 'legacy' }));
    expect(c.era).toBe('legacy');
    await exercise(c, () => c.callTool('touch_resource', {}));
  }, 60_000);

  for (const protocol of ['legacy', 'modern'] as const)
    it(`${protocol === 'legacy' ? '2025-11-25' : '2026-07-28'}: a flood of updates for one resource is told a few times, the final state still read`, async () => {
      const c = await track(connect(testServer('flood', {}, { protocol })));
      const updates: number[] = [];
      const subscription = await c.subscribeResource(COUNTER_URI, () => updates.push(Date.now()));
      const started = Date.now();
      // 300 changes, each announced by the server (`notifications/resources/updated`).
      await Promise.all(Array.from({ length: 300 }, () => c.callTool('touch_resource', {})));
      // Quiet for longer than the interval once told: nothing more is owed.
      while (updates.length === 0 || Date.now() - (updates.at(-1) as number) < 1_500)
        await new Promise((r) => setTimeout(r, 100));
      expect(updates.length).toBeGreaterThanOrEqual(1);
      // At once, then at most once per 500 ms while the updates kept coming (uncoalesced: 300);
      // a tenth of slack, as a timer may fire a millisecond early.
      expect(updates.length).toBeLessThanOrEqual(1 + Math.ceil(((updates.at(-1) as number) - started) / 450));
      expect(textOf(await c.readResource(COUNTER_URI))).toBe('count 300\n');
      await subscription.unsubscribe();
    }, 60_000);

  it('ends every subscription when the server goes away', async () => {
    const c = await track(connect(testServer('gone', {}, { protocol: 'modern' })));
    const subscription = await c.subscribeResource(COUNTER_URI, () => {});
    await c.close();
    expect(await subscription.ended).toMatch(/connection-lost|ended-by-server/);
  }, 60_000);
});
