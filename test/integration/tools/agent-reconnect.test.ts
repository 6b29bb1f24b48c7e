import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';
import type { ToolCallGuard } from '../../../src/permissions/types.js';
import { type RegistryEvent, ServerRegistry } from '../../../src/registry/index.js';
import { createAgentTools } from '../../../src/tools/index.js';
import { descendantPids, isAlive, procAvailable } from '../../helpers/processes.js';
import { realConnector, testServer } from '../../helpers/servers.js';

const registries: ServerRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()));
});

const allowAll: ToolCallGuard = { check: async () => {} };

function registry(...servers: ReturnType<typeof testServer>[]): ServerRegistry {
  const r = new ServerRegistry(servers, { connector: realConnector(), reconnect: { mode: 'lazy' } });
  registries.push(r);
  return r;
}

/** The live test-server processes started with this marker in their environment. */
function serverPids(marker: string): number[] {
  return descendantPids(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`MCPX_TEST_MARK=${marker}`);
    } catch {
      return false;
    }
  });
}

function waitFor(r: ServerRegistry, test: (e: RegistryEvent) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const stop = r.on((e) => {
      if (test(e)) {
        stop();
        resolve();
      }
    });
  });
}

describe('agent tools under the lazy reconnect policy', () => {
  it.skipIf(!procAvailable)(
    'a killed server keeps its tools offered, and the next call restarts it and runs',
    async () => {
      const marker = `agent-reconnect-${process.hrtime.bigint()}`;
      const r = registry(testServer('svc', { MCPX_TEST_MARK: marker }));
      await r.connectAll();
      const tools = await createAgentTools(r, { guard: allowAll });
      expect(tools.tools.map((t) => t.name)).toContain('mcp_svc_echo');
      const [first] = serverPids(marker);
      expect(first).toBeDefined();

      const lost = waitFor(r, (e) => e.type === 'state' && e.state === 'error');
      process.kill(first as number, 'SIGKILL');
      await lost;
      await tools.refresh();
      expect(r.status('svc')).toMatchObject({ state: 'error', usable: true });
      expect(tools.tools.map((t) => t.name)).toContain('mcp_svc_echo');

      const result = await tools.call('mcp_svc_echo', { message: 'back again' });
      expect(result).toMatchObject({ isError: false, text: 'back again' });
      expect(r.status('svc').state).toBe('ready');
      const [second] = serverPids(marker);
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      expect(isAlive(first as number)).toBe(false);
    },
    60_000,
  );

  it('a server that crashes mid-call: that call fails, its tools stay offered, the next call reconnects', async () => {
    const r = registry(testServer('flaky', { MCPX_TEST_FAULT: 'crash-mid-call' }));
    await r.connectAll();
    const tools = await createAgentTools(r, { guard: allowAll });
    const crashed = await tools.call('mcp_flaky_echo', { message: 'x' }).catch((e: unknown) => e);
    expect(crashed).toBeInstanceOf(McpxError);
    expect((crashed as McpxError).code).toBe(ErrorCode.ServerCrashed);
    await tools.refresh();
    expect(tools.tools.map((t) => t.name)).toContain('mcp_flaky_echo');

    // The next call reconnects (a new process) before it is sent: the state goes through starting.
    const states: string[] = [];
    r.on((e) => {
      if (e.type === 'state') states.push(e.state);
    });
    const again = await tools.call('mcp_flaky_echo', { message: 'x' }).catch((e: unknown) => e);
    expect(states).toContain('starting');
    expect(states).toContain('ready');
    // This server crashes on every call: a real reconnect, then the same crash, not UNKNOWN_TOOL.
    expect((again as McpxError).code).toBe(ErrorCode.ServerCrashed);
  }, 60_000);

  it('a server given up on, or stopped, offers no tools', async () => {
    const r = new ServerRegistry([testServer('flaky', { MCPX_TEST_FAULT: 'crash-mid-call' })], {
      connector: realConnector(),
      reconnect: { mode: 'lazy', maxAttempts: 2 },
    });
    registries.push(r);
    await r.connectAll();
    const tools = await createAgentTools(r, { guard: allowAll });
    for (let i = 0; i < 2; i++) await tools.call('mcp_flaky_echo', { message: 'x' }).catch(() => undefined);
    await tools.refresh();
    expect(r.status('flaky').usable).toBe(false);
    expect(tools.tools.map((t) => t.name)).not.toContain('mcp_flaky_echo');
    const refused = await tools.call('mcp_flaky_echo', { message: 'x' }).catch((e: unknown) => e);
    expect((refused as McpxError).code).toBe(ErrorCode.UnknownTool);

    const stopped = registry(testServer('calm'));
    await stopped.connectAll();
    const calmTools = await createAgentTools(stopped, { guard: allowAll });
    await stopped.disconnect('calm');
    await calmTools.refresh();
    expect(calmTools.tools).toEqual([]);
  }, 60_000);

  it('under the never policy a crashed server offers no tools', async () => {
    const r = new ServerRegistry([testServer('flaky', { MCPX_TEST_FAULT: 'crash-mid-call' })], {
      connector: realConnector(),
      reconnect: { mode: 'never' },
    });
    registries.push(r);
    await r.connectAll();
    const tools = await createAgentTools(r, { guard: allowAll });
    await tools.call('mcp_flaky_echo', { message: 'x' }).catch(() => undefined);
    await tools.refresh();
    expect(tools.tools).toEqual([]);
  }, 60_000);
});
