/**
 * A library program's agent calls are recorded by its host: into a sink of its own and the
 * file, as `library`; a file that cannot be written is one warning event, and the calls go on.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { AuditRecord } from '../../../src/audit/index.js';
import { createHost, type HostEvent } from '../../../src/index.js';
import { tempDir, testServerPath } from '../../helpers/cli.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function libraryHost(auditFile: string) {
  const dir = await tempDir('mcpx-library-audit-');
  cleanups.push(dir.remove);
  const configFile = join(dir.path, 'mcp.json');
  await writeFile(
    configFile,
    JSON.stringify({ mcpServers: { s: { command: process.execPath, args: [testServerPath] } } }),
  );
  const records: AuditRecord[] = [];
  const events: HostEvent[] = [];
  const host = createHost({
    configFile,
    cwd: dir.path,
    homedir: dir.path,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', MCPX_HOME: join(dir.path, '.mcpx') },
    permission: 'yolo',
    omitBuiltinWhenConfigured: true,
    audit: { sink: { write: (r) => records.push(r) }, file: join(dir.path, auditFile) },
  });
  host.on((event) => events.push(event));
  cleanups.push(() => host.close());
  return { host, records, events, dir: dir.path };
}

it('records agentTools() calls as the library’s, in its own sink and the file', async () => {
  const { host, records, dir } = await libraryHost('audit.jsonl');
  const tools = await host.agentTools();
  await tools.call('mcp_s_echo', { message: 'hi', password: 'hunter2' });
  tools.close();
  await host.close();
  expect(records).toHaveLength(1);
  expect(records[0]).toMatchObject({
    client: 'library',
    server: 's',
    tool: 'echo',
    decision: { result: 'allowed', by: 'level' },
    outcome: 'ok',
    argumentKeys: ['message', 'password'],
    arguments: { message: 'hi', password: '‹masked›' },
  });
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(join(dir, 'audit.jsonl'), 'utf8');
  expect(JSON.parse(text)).toMatchObject({ client: 'library', tool: 'echo' });
  expect(text).not.toContain('hunter2');
});

it('a log that cannot be written is one warning event; every call goes on', async () => {
  const { host, records, events, dir } = await libraryHost('blocked/audit.jsonl');
  await writeFile(join(dir, 'blocked'), 'a file where the folder would be');
  const tools = await host.agentTools();
  for (const message of ['one', 'two', 'three']) {
    const result = await tools.call('mcp_s_echo', { message });
    expect(result.isError).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  tools.close();
  await host.close();
  expect(records).toHaveLength(3);
  const warnings = events.filter((e) => e.type === 'warning');
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ message: expect.stringContaining('cannot be written') });
});

it('records an agent’s resource listings and reads as calls of resources/list and resources/read', async () => {
  const { host, records } = await libraryHost('audit.jsonl');
  const tools = await host.agentTools({ resources: true });
  const listing = await tools.call('list_resources', { server: 's' });
  expect(listing.text).toContain('test://readme.txt');
  const read = await tools.call('read_resource', { server: 's', uri: 'test://readme.txt' });
  expect(read.isError).toBe(false);
  tools.close();
  await host.close();
  expect(records.map((r) => [r.server, r.tool, r.outcome, r.decision])).toEqual([
    ['s', 'resources/list', 'ok', { result: 'allowed', by: 'level' }],
    ['s', 'resources/read', 'ok', { result: 'allowed', by: 'level' }],
  ]);
  expect(records[1]).toMatchObject({ client: 'library', argumentKeys: ['uri'] });
});
