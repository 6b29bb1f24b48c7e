import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import type { ListKind } from '../../../src/client/server-connection.js';
import type { ServerConnection } from '../../../src/client/types.js';
import type { ServerConfig } from '../../../src/config/index.js';
import type { CatalogueMemory } from '../../../src/gateway/catalogue-memory.js';
import { GatewayCore } from '../../../src/gateway/core.js';
import { createPermissionGuard, denyingApprover } from '../../../src/permissions/index.js';
import { ServerRegistry } from '../../../src/registry/index.js';
import { testServer } from '../../helpers/servers.js';

const tool = (name: string, description = `${name}, as remembered`): Tool => ({
  name,
  description,
  inputSchema: { type: 'object' },
});

/** Just enough of a connection for the registry: up, listing `tools` (or failing to). */
const connection = (tools: Tool[] | Error) =>
  ({
    closed: false,
    onClose: () => {},
    listTools: async () => {
      if (tools instanceof Error) throw tools;
      return tools;
    },
    close: async () => {},
  }) as unknown as ServerConnection;

/**
 * A memory holding `lists` by server name (and `fast`'s, as it lists today), recording what it
 * is asked to remember.
 */
function memory(lists: Record<string, Tool[]>): CatalogueMemory & { remembered: [string, string[]][] } {
  const remembered: [string, string[]][] = [];
  const held: Record<string, Tool[]> = { fast: [tool('ping')], ...lists };
  return {
    remembered,
    recall: async (server) => held[server.name],
    remember: async (server, tools) => {
      remembered.push([server.name, tools.map((t) => t.name)]);
    },
  };
}

/**
 * A gateway core over `fast` (up at once) and `slow` (up when `arrive()` is called, listing
 * `slowLists`), with `memory`; `announced` records the list changes it tells clients.
 */
function world(options: {
  memory: CatalogueMemory;
  slowLists: Tool[] | Error;
  slow?: Partial<ServerConfig>;
  listWaitMs?: number;
}) {
  let arrive: () => void = () => {};
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const servers = [testServer('fast'), testServer('slow', {}, options.slow)];
  const registry = new ServerRegistry(servers, {
    connector: async (server) => {
      if (server.name !== 'slow') return connection([tool('ping')]);
      await arrived;
      return connection(options.slowLists);
    },
  });
  const guard = createPermissionGuard({ level: 'yolo', approver: denyingApprover('a test') });
  const core = new GatewayCore({
    registry,
    servers,
    guard,
    catalogues: options.memory,
    ...(options.listWaitMs === undefined ? {} : { listWaitMs: options.listWaitMs }),
  });
  const announced: ListKind[] = [];
  core.onListChanged((kind) => announced.push(kind));
  const start = async () => {
    await core.recalled;
    void registry.connectAll();
    await registry.connect('fast');
  };
  const names = async () => (await core.tools()).map((t) => t.name);
  const close = async () => {
    core.dispose();
    await registry.close();
  };
  return { core, registry, announced, arrive, start, names, close };
}

describe('GatewayCore with remembered tool lists', () => {
  it('lists a server still starting with its remembered tools, without waiting for it', async () => {
    const w = world({
      memory: memory({ slow: [tool('echo'), tool('add')] }),
      slowLists: [tool('echo'), tool('add')],
      listWaitMs: 60_000,
    });
    await w.start();
    expect(await w.names()).toEqual(['fast__ping', 'slow__echo', 'slow__add']);
    w.arrive();
    await w.registry.connect('slow');
    expect(await w.names()).toEqual(['fast__ping', 'slow__echo', 'slow__add']);
    await w.close();
  });

  it('routes a remembered tool only once its server is up, by the definition it gives then', async () => {
    const w = world({
      memory: memory({ slow: [tool('echo')] }),
      slowLists: [tool('echo', 'echo, as the server says today')],
      listWaitMs: 60_000,
    });
    await w.start();
    expect(await w.names()).toContain('slow__echo');
    expect(w.core.knownTool('slow__echo')).toBeUndefined();
    const routed = w.core.toolRoute('slow__echo');
    w.arrive();
    expect((await routed).tool.description).toBe('echo, as the server says today');
    expect(w.core.knownTool('slow__echo')?.tool.description).toBe('echo, as the server says today');
    await w.close();
  });

  it('announces nothing when the live list is the one remembered, and one change when it is not', async () => {
    const same = world({
      memory: memory({ slow: [tool('echo')] }),
      slowLists: [tool('echo')],
      listWaitMs: 60_000,
    });
    await same.start();
    await same.names();
    same.arrive();
    await same.registry.connect('slow');
    expect(same.announced).toEqual([]);
    await same.close();

    const grown = world({
      memory: memory({ slow: [tool('echo')] }),
      slowLists: [tool('echo'), tool('add')],
      listWaitMs: 60_000,
    });
    await grown.start();
    expect(await grown.names()).toEqual(['fast__ping', 'slow__echo']);
    grown.arrive();
    await grown.registry.connect('slow');
    expect(grown.announced).toEqual(['tools']);
    expect(await grown.names()).toEqual(['fast__ping', 'slow__echo', 'slow__add']);
    await grown.close();
  });

  it('drops the remembered tools of a server whose tools cannot be listed, with a list change', async () => {
    const w = world({
      memory: memory({ slow: [tool('echo')] }),
      slowLists: new Error('tools/list failed'),
      listWaitMs: 60_000,
    });
    await w.start();
    expect(await w.names()).toEqual(['fast__ping', 'slow__echo']);
    w.arrive();
    await w.registry.connect('slow');
    expect(w.announced).toEqual(['tools']);
    expect(await w.names()).toEqual(['fast__ping']);
    await w.close();
  });

  it("remembers each listing as the server gave it, and applies the entry's allow/deny lists to a remembered one", async () => {
    const mem = memory({ slow: [tool('echo'), tool('add'), tool('erase')] });
    const w = world({
      memory: mem,
      slowLists: [tool('echo'), tool('add'), tool('erase')],
      slow: { denyTools: ['erase'] },
      listWaitMs: 60_000,
    });
    await w.start();
    expect(await w.names()).toEqual(['fast__ping', 'slow__echo', 'slow__add']);
    w.arrive();
    await w.registry.connect('slow');
    expect(mem.remembered).toEqual([
      ['fast', ['ping']],
      ['slow', ['echo', 'add', 'erase']],
    ]);
    expect(w.announced).toEqual([]);
    await w.close();
  });

  it('without a list wait, waits for every server as before (and only remembers)', async () => {
    const mem = memory({ slow: [tool('echo')] });
    const w = world({ memory: mem, slowLists: [tool('echo'), tool('add')] });
    await w.start();
    const listed = w.names();
    const waiting = new Promise((resolve) => setTimeout(() => resolve('still waiting for slow'), 200));
    expect(await Promise.race([listed, waiting])).toBe('still waiting for slow');
    w.arrive();
    expect(await listed).toEqual(['fast__ping', 'slow__echo', 'slow__add']);
    expect(mem.remembered.map(([server]) => server).sort()).toEqual(['fast', 'slow']);
    await w.close();
  });
});
