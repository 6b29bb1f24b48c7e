import { describe, expect, it } from 'vitest';
import type { ListKind } from '../../../src/client/server-connection.js';
import type { ServerConnection } from '../../../src/client/types.js';
import { Arrivals } from '../../../src/gateway/arrivals.js';
import { ServerRegistry } from '../../../src/registry/index.js';
import { testServer } from '../../helpers/servers.js';

/** Just enough of a connection for the registry: up, no tools, closes quietly. */
const connection = () =>
  ({
    closed: false,
    onClose: () => {},
    listTools: async () => [],
    close: async () => {},
  }) as unknown as ServerConnection;

/** `fast` connects at once, `slow` when `arrive()` is called. */
function world() {
  let arrive: () => void = () => {};
  const slow = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const registry = new ServerRegistry([testServer('fast'), testServer('slow')], {
    connector: async (server) => {
      if (server.name === 'slow') await slow;
      return connection();
    },
  });
  const announced: ListKind[] = [];
  const arrivals = new Arrivals(registry, (kind) => announced.push(kind));
  registry.on((event) => arrivals.heard(event));
  return { registry, arrivals, announced, arrive };
}

describe('Arrivals', () => {
  it('waits at most waitMs for servers still starting, then reports what is up', async () => {
    const { registry, arrivals, arrive } = world();
    const started = performance.now();
    await arrivals.settle(['fast', 'slow'], { waitMs: 100 });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(arrivals.isUp('fast')).toBe(true);
    expect(arrivals.isUp('slow')).toBe(false);
    arrive();
    await arrivals.settle(['slow']);
    expect(arrivals.isUp('slow')).toBe(true);
    await registry.close();
  });

  it('stops waiting when the request ends', async () => {
    const { registry, arrivals, arrive } = world();
    const request = new AbortController();
    const settled = arrivals.settle(['slow'], { signal: request.signal });
    request.abort();
    await settled;
    expect(arrivals.isUp('slow')).toBe(false);
    arrive();
    await registry.close();
  });

  it('announces a list owed by a server once it is up; tools are the registry’s to announce', async () => {
    const { registry, arrivals, announced, arrive } = world();
    await arrivals.settle(['fast', 'slow'], { waitMs: 0 });
    arrivals.owe('prompts', 'slow');
    arrivals.owe('resources', 'slow');
    arrivals.owe('tools', 'slow');
    expect(announced).toEqual([]);
    arrive();
    await arrivals.settle(['slow']);
    expect(announced.sort()).toEqual(['prompts', 'resources']);
    await registry.close();
  });
});
