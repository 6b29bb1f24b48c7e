import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, formatError } from '../../../src/errors/index.js';
import { type RegistryEvent, ServerRegistry } from '../../../src/registry/index.js';
import { realConnector, testServer } from '../../helpers/servers.js';

const registries: ServerRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()));
});
function track(registry: ServerRegistry): ServerRegistry {
  registries.push(registry);
  return registry;
}

/** The pid of our child whose environment carries MCPX_TEST_MARKER=marker. */
function pidWithMarker(marker: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
      if (environ.split('\0').includes(`MCPX_TEST_MARKER=${marker}`)) return Number(entry);
    } catch {
      // gone or not ours
    }
  }
  return undefined;
}

describe('ServerRegistry with real servers', () => {
  it('20 servers, one hanging and one crashing: the other 18 are ready long before the timeout', async () => {
    // Pinned to the 2025 handshake: this test is about isolation, not era probing under load.
    const servers = Array.from({ length: 18 }, (_, i) => testServer(`ok${i}`, {}, { protocol: 'legacy' }));
    servers.push(testServer('hang', { MCPX_TEST_FAULT: 'hang-before-initialize' }));
    servers.push(testServer('crash', { MCPX_TEST_FAULT: 'stderr-exit' }));
    const timeoutMs = 20_000;
    const registry = track(
      new ServerRegistry(servers, { connector: realConnector({ connectTimeoutMs: timeoutMs }) }),
    );
    const started = Date.now();
    let eighteenReadyAt = 0;
    let ready = 0;
    registry.on((event) => {
      if (event.type === 'state' && event.state === 'ready' && ++ready === 18)
        eighteenReadyAt = Date.now() - started;
    });
    const statuses = await registry.connectAll();
    const failures = statuses
      .filter((s) => s.name.startsWith('ok') && s.error)
      .map((s) => formatError(s.error));
    expect(failures).toEqual([]);
    expect(ready).toBe(18);
    expect(eighteenReadyAt).toBeLessThan(timeoutMs / 2);
    const byName = new Map(statuses.map((s) => [s.name, s]));
    expect(byName.get('ok7')?.tools.length).toBeGreaterThan(3);
    expect(byName.get('hang')).toMatchObject({ state: 'error' });
    expect(byName.get('hang')?.error?.code).toBe(ErrorCode.ConnectTimeout);
    expect(byName.get('crash')?.error?.code).toBe(ErrorCode.ServerCrashed);
    expect(formatError(byName.get('crash')?.error)).toContain('crash');
    expect(formatError(byName.get('crash')?.error, { verbose: true })).toContain('API key missing');
  }, 45_000);

  it('lazy: a server killed mid-session is reconnected by the next call', async () => {
    const registry = track(
      new ServerRegistry([testServer('lazy', { MCPX_TEST_MARKER: 'lazy' })], { connector: realConnector() }),
    );
    await registry.connect('lazy');
    const pid = pidWithMarker('lazy');
    expect(pid).toBeDefined();
    const lost = new Promise<RegistryEvent>((resolve) =>
      registry.on((e) => e.type === 'state' && e.state === 'error' && resolve(e)),
    );
    process.kill(pid as number, 'SIGKILL');
    await lost;
    expect(registry.status('lazy').state).toBe('error');
    const result = await registry.callTool('lazy', 'echo', { message: 'back' });
    expect(result.content?.[0]).toMatchObject({ text: 'back' });
    expect(registry.status('lazy').state).toBe('ready');
    expect(pidWithMarker('lazy')).not.toBe(pid);
  });

  it('never: a killed server stays in error and says why', async () => {
    const registry = track(
      new ServerRegistry([testServer('never', { MCPX_TEST_MARKER: 'never' })], {
        connector: realConnector(),
        reconnect: { mode: 'never' },
      }),
    );
    await registry.connect('never');
    const lost = new Promise<void>((resolve) =>
      registry.on((e) => e.type === 'state' && e.state === 'error' && resolve()),
    );
    process.kill(pidWithMarker('never') as number, 'SIGKILL');
    await lost;
    await expect(registry.callTool('never', 'echo', { message: 'x' })).rejects.toMatchObject({
      code: ErrorCode.ServerCrashed,
    });
    expect(registry.status('never').state).toBe('error');
  });

  it('eager: a killed server comes back by itself', async () => {
    const registry = track(
      new ServerRegistry([testServer('eager', { MCPX_TEST_MARKER: 'eager' })], {
        connector: realConnector(),
        reconnect: { mode: 'eager', baseDelayMs: 50, maxDelayMs: 200 },
      }),
    );
    await registry.connect('eager');
    const first = pidWithMarker('eager') as number;
    const states: string[] = [];
    const back = new Promise<void>((resolve) =>
      registry.on((e) => {
        if (e.type !== 'state') return;
        states.push(e.state);
        if (e.state === 'ready') resolve();
      }),
    );
    process.kill(first, 'SIGKILL');
    await back;
    expect(states).toEqual(['error', 'starting', 'ready']);
    expect(pidWithMarker('eager')).not.toBe(first);
  });

  it('eager: a server that crashes on every start stops being retried after the cap', async () => {
    const registry = track(
      new ServerRegistry([testServer('doomed', { MCPX_TEST_FAULT: 'stderr-exit' })], {
        connector: realConnector(),
        reconnect: { mode: 'eager', baseDelayMs: 20, maxDelayMs: 50, maxAttempts: 3 },
      }),
    );
    const gaveUp = new Promise<RegistryEvent>((resolve) =>
      registry.on((e) => e.type === 'warning' && e.message.includes('gave up') && resolve(e)),
    );
    await registry.connectAll();
    await gaveUp;
    const status = registry.status('doomed');
    expect(status.state).toBe('error');
    expect(status.attempts).toBe(3);
    await expect(registry.callTool('doomed', 'echo', {})).rejects.toMatchObject({
      code: ErrorCode.ConnectionClosed,
    });
  });

  it('a tool list that fails once leaves the server connected with no tools; retry fills them', async () => {
    const warnings: string[] = [];
    const registry = track(
      new ServerRegistry([testServer('flaky', { MCPX_TEST_FAULT: 'list-fails-once' })], {
        connector: realConnector(),
      }),
    );
    registry.on((e) => e.type === 'warning' && warnings.push(e.message));
    await registry.connectAll();
    // Connected, but not `ready` to a front end: the failed listing is its condition, with the reason.
    expect(registry.status('flaky')).toMatchObject({
      state: 'ready',
      condition: 'listing-failed',
      tools: [],
    });
    expect(registry.status('flaky').listingError?.message).toContain('list-fails-once');
    expect(warnings.join()).toContain('mcpx retry flaky');
    const tools = await registry.retry('flaky');
    expect(tools.map((t) => t.name)).toContain('echo');
    expect(registry.status('flaky')).toMatchObject({ condition: 'ready' });
    expect(registry.status('flaky').listingError).toBeUndefined();
    expect(registry.findTool('echo')).toEqual(['flaky']);
  });

  it('an owned connection is invisible to another agent', async () => {
    const registry = track(
      new ServerRegistry([testServer('mine'), testServer('ours')], { connector: realConnector() }),
    );
    await registry.connect('mine', { owner: 'agent-a' });
    await registry.connect('ours');
    expect(registry.list('agent-a').map((s) => s.name)).toEqual(['mine', 'ours']);
    expect(registry.list('agent-b').map((s) => s.name)).toEqual(['ours']);
    expect(registry.findTool('echo', 'agent-b')).toEqual(['ours']);
    await expect(
      registry.callTool('mine', 'echo', { message: 'x' }, { agentId: 'agent-b' }),
    ).rejects.toMatchObject({
      code: ErrorCode.UnknownServer,
    });
  });

  it('applies the config allow and deny lists to the catalogue', async () => {
    const registry = track(
      new ServerRegistry(
        [testServer('filtered', {}, { allowTools: ['echo', 'add', 'get_time'], denyTools: ['get_time'] })],
        {
          connector: realConnector(),
        },
      ),
    );
    await registry.connectAll();
    expect(
      registry
        .status('filtered')
        .tools.map((t) => t.name)
        .sort(),
    ).toEqual(['add', 'echo']);
  });

  it.each(['legacy', 'auto'] as const)(
    'a list-changed notification refreshes the catalogue (%s era)',
    async (protocol) => {
      const registry = track(
        new ServerRegistry([testServer('live', {}, { protocol })], { connector: realConnector() }),
      );
      await registry.connectAll();
      expect(registry.findTool('fresh_tool')).toEqual([]);
      const refreshed = new Promise<RegistryEvent>((resolve) =>
        registry.on(
          (e) => e.type === 'catalog' && e.tools?.some((t) => t.name === 'fresh_tool') && resolve(e),
        ),
      );
      await registry.callTool('live', 'add_tool', { name: 'fresh_tool' });
      await refreshed;
      expect(registry.findTool('fresh_tool')).toEqual(['live']);
    },
  );

  it('close leaves every server stopped', async () => {
    const registry = new ServerRegistry([testServer('a'), testServer('b')], { connector: realConnector() });
    await registry.connectAll();
    await registry.close();
    expect(registry.list().map((s) => s.state)).toEqual(['stopped', 'stopped']);
  });
});
