/**
 * Seed 004's consent is the host's, for every agent: a library program that gave its host an
 * approver is asked about each server in `agentTools()`, before it gets any tool, and a server it
 * declines gives it none of its tools (as `mcpx chat` on a terminal). With nobody to ask, nothing
 * is asked up front. And a program's own call (`host.callTool`) is recorded as the person's.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { AuditRecord } from '../../../src/audit/index.js';
import { type Ask, createHost, type HostEvent, type HostOptions } from '../../../src/index.js';
import { type ConnectQuestion, denyingApprover, scriptedApprover } from '../../../src/permissions/index.js';
import { tempDir, testServerPath } from '../../helpers/cli.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function libraryHost(ask: Ask, more: Partial<HostOptions> = {}) {
  const dir = await tempDir('mcpx-library-consent-');
  cleanups.push(dir.remove);
  const configFile = join(dir.path, 'mcp.json');
  const server = { command: process.execPath, args: [testServerPath] };
  await writeFile(configFile, JSON.stringify({ mcpServers: { mine: server, other: server } }));
  const events: HostEvent[] = [];
  const host = createHost({
    configFile,
    cwd: dir.path,
    homedir: dir.path,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', MCPX_HOME: join(dir.path, '.mcpx') },
    omitBuiltinWhenConfigured: true,
    permission: 'trusted',
    ask,
    ...more,
  });
  host.on((event) => events.push(event));
  cleanups.push(() => host.close());
  return { host, events };
}

const serversOf = (catalog: readonly { source: { id: string } }[]) =>
  [...new Set(catalog.map((tool) => tool.source.id))].sort();

it('asks a program with an approver about each server before it gets the tools; a declined server gives none', async () => {
  const approver = scriptedApprover({ connect: ['allow-all', 'deny'] });
  const { host, events } = await libraryHost({ who: 'a test', approver });
  const tools = await host.agentTools({ agentId: 'agent-1' });
  // Both were asked before agentTools() resolved, each with its tools and where it is configured.
  expect(approver.asked.map((a) => [a.kind, a.question.server])).toEqual([
    ['connect', 'mine'],
    ['connect', 'other'],
  ]);
  const first = approver.asked[0]?.question as ConnectQuestion;
  expect(first.agentId).toBe('agent-1');
  expect(first.origin).toMatch(/mcp\.json:\d+/);
  expect(first.tools.length).toBeGreaterThan(0);
  expect(serversOf(tools.catalog)).toEqual(['mine']);
  expect(tools.tools.some((t) => t.name.startsWith('mcp_other_'))).toBe(false);
  expect(events).toContainEqual(
    expect.objectContaining({
      type: 'notice',
      message: "'other' denied: closed, and its tools are not offered",
    }),
  );
  // The declined server is closed, not left running for nobody.
  expect((await host.registry()).status('other').state).toBe('stopped');
  // "Allow all" was the answer for mine: its calls go ahead without another question.
  const echo = tools.catalog.find((t) => t.name === 'mcp_mine_echo');
  expect(echo).toBeDefined();
  const result = await tools.call('mcp_mine_echo', { message: 'hi' });
  expect(result.isError).toBeFalsy();
  expect(approver.asked).toHaveLength(2);
  tools.close();
}, 30_000);

it('asks nothing up front when nobody answers the approver: the tools are offered, and each call is refused', async () => {
  const { host } = await libraryHost({ who: 'a test', approver: denyingApprover('no person here') });
  const tools = await host.agentTools();
  expect(serversOf(tools.catalog)).toEqual(['mine', 'other']);
  await expect(tools.call('mcp_other_add_tool', { name: 'late' })).rejects.toThrow(
    /using 'other' was not allowed \(no person here\)/,
  );
  tools.close();
}, 30_000);

it("records a program's own call (host.callTool) as allowed by the person, with its result", async () => {
  const records: AuditRecord[] = [];
  const approver = scriptedApprover({});
  const { host } = await libraryHost(
    { who: 'a test', approver },
    { audit: { sink: { write: (r) => records.push(r) }, file: false } },
  );
  const result = await host.callTool('mine', 'echo', { message: 'hello' });
  expect(JSON.stringify(result.content)).toContain('hello');
  // Not an agent's call: the guard is not asked.
  expect(approver.asked).toEqual([]);
  await host.close();
  expect(records).toHaveLength(1);
  expect(records[0]).toMatchObject({
    client: 'library',
    server: 'mine',
    tool: 'echo',
    decision: { result: 'allowed', by: 'person' },
    outcome: 'ok',
  });
}, 30_000);
