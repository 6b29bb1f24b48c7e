/**
 * `mcpx serve` as a real process: the built CLI serving our stdio test server,
 * the HTTP test server and server-everything, to SDK clients in both eras and
 * to mcpx itself.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpTestServer, startHttpTestServer } from '../../src/testing/http-test-server.js';
import { runCli, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { everythingPath, filesystemPath, memoryPath } from '../helpers/servers.js';

const node = process.execPath;
const LONG = 'a_server_name_that_is_long_enough_to_push_tools_past_64';
let world: GatewayWorld;
let upstreamHttp: HttpTestServer;
let gateway: RunningGateway;
let startLog: string;
let accessLog: string;

beforeAll(async () => {
  upstreamHttp = await startHttpTestServer({ era: 'both' });
  world = await gatewayWorld({});
  startLog = join(world.dir, 'starts.log');
  const test = (env: Record<string, string> = {}) => ({
    command: node,
    args: [testServerPath],
    env: { MCPX_TEST_START_LOG: startLog, ...env },
  });
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    world.configFile,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: {
        a: test(),
        a__b: test(),
        [LONG]: test(),
        many: test({ MCP_TOOL_COUNT: '230', MCP_PAGE_SIZE: '40' }),
        remote: { url: upstreamHttp.url },
        everything: { command: node, args: [everythingPath] },
        memory: {
          command: node,
          args: [memoryPath],
          env: { MEMORY_FILE_PATH: join(world.dir, 'memory.jsonl') },
        },
        filesystem: { command: node, args: [filesystemPath, world.dir] },
      },
    }),
  );
  accessLog = join(world.dir, 'access.log');
  gateway = await world.serve(['--page-size', '50', '--access-log', accessLog]);
}, 60_000);

afterAll(async () => {
  await world?.close();
  await upstreamHttp?.close();
});

/** Every tool, one page per request (the SDK client would gather the pages itself). */
async function allTools(client: Client): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = (await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} })) as {
      tools: { name: string }[];
      nextCursor?: string;
    };
    pages += 1;
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  return { names, pages };
}

describe.each(['legacy', 'modern'] as const)('mcpx serve --http, a %s client', (era) => {
  it('lists every server under its own prefix, every name within 64 characters, in pages', async () => {
    const client = await world.client(gateway.url, era);
    const { names, pages } = await allTools(client);
    expect(new Set(names).size).toBe(names.length);
    expect(pages).toBeGreaterThan(5);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(names).toContain('a__echo');
    expect(names).toContain('a__b__echo');
    expect(names).toContain('remote__echo');
    expect(names).toContain('everything__echo');
    expect(names.filter((n) => n.startsWith('many__tool_'))).toHaveLength(230);
    // The long server's names were cut to 64 with a hash, and still call the right tool.
    const long = names.find((n) => n.startsWith(LONG.slice(0, 20)) && n.length === 64);
    expect(long).toBeDefined();
    const result = await client.callTool({ name: 'a__echo', arguments: { message: `hi ${era}` } });
    expect(firstText(result)).toBe(`hi ${era}`);
    const remote = await client.callTool({ name: 'remote__add', arguments: { a: 2, b: 3 } });
    expect(firstText(remote)).toContain('5');
    const dirs = await client.callTool({ name: 'filesystem__list_allowed_directories', arguments: {} });
    expect(firstText(dirs)).toContain('mcpx-gateway-');
    const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
    expect(graph.isError).toBeFalsy();
  });

  it('maps resource URIs reversibly and reads through them', async () => {
    const client = await world.client(gateway.url, era);
    const { resources } = await client.listResources();
    const readme = resources.find((r) => r.uri === 'mcpx://a__b/test://readme.txt');
    expect(readme).toBeDefined();
    const read = await client.readResource({ uri: 'mcpx://a__b/test://readme.txt' });
    expect(read.contents[0]?.uri).toBe('mcpx://a__b/test://readme.txt');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.some((t) => t.uriTemplate.startsWith('mcpx://a/test://'))).toBe(true);
    const { prompts } = await client.listPrompts();
    expect(prompts.some((p) => p.name.startsWith('a__b__'))).toBe(true);
  });

  it('refuses a tool of no server, and starts nothing for it', async () => {
    const client = await world.client(gateway.url, era);
    await client.listTools();
    const before = await readFile(startLog, 'utf8');
    await expect(client.callTool({ name: 'nobody__echo', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(client.readResource({ uri: 'mcpx://nobody/test://readme.txt' })).rejects.toThrow();
    expect(await readFile(startLog, 'utf8')).toBe(before);
  });

  it('refuses a malformed tools/call with invalid params, once checked by the SDK server', async () => {
    const client = await world.client(gateway.url, era);
    const malformed = client.request({ method: 'tools/call', params: { name: 42, arguments: 'x' } } as never);
    await expect(malformed).rejects.toMatchObject({ code: -32602 });
    await expect(malformed).rejects.toThrow(/Invalid tools\/call request/);
    const result = await client.callTool({ name: 'a__echo', arguments: { message: 'still fine' } });
    expect(firstText(result)).toBe('still fine');
  });
});

describe('names that would collide', () => {
  it('keeps a + b__c and a__b + c apart, each calling its own server', async () => {
    const client = await world.client(gateway.url, 'legacy');
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => resolve());
    });
    await client.callTool({ name: 'a__add_tool', arguments: { name: 'b__c' } });
    await changed;
    await client.callTool({ name: 'a__b__add_tool', arguments: { name: 'c' } });
    const { names } = await allTools(client);
    const clashing = names.filter((n) => n.startsWith('a__b__c'));
    expect(clashing).toHaveLength(2);
    expect(clashing[0]).not.toBe(clashing[1]);
    for (const name of clashing) await client.callTool({ name, arguments: {} });
    // The access log names the upstream server and tool each public name went to. It is
    // written behind the replies (an append stream), so its lines may land just after them.
    const calls = async () =>
      (await readFile(accessLog, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { method: string; server?: string; tool?: string })
        .filter((e) => e.method === 'tools/call' && (e.tool === 'b__c' || e.tool === 'c'))
        .map((e) => `${e.server}/${e.tool}`)
        .sort();
    await expect.poll(calls, { timeout: 5_000 }).toEqual(['a/b__c', 'a__b/c']);
  });
});

describe('mcpx itself as the client', () => {
  it('lists and calls through the gateway with --url', async () => {
    const opts = { cwd: world.dir, home: world.home, timeoutMs: 30_000 };
    const tools = await runCli(['--url', gateway.url, 'tools'], opts);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain('a__b__echo');
    const call = await runCli(['--url', gateway.url, 'call', 'a__b__echo', 'message=through'], opts);
    expect(call.stderr).toBe('');
    expect(call.stdout.trim()).toBe('through');
  });
});

describe('the gateway process', () => {
  it('with --json says where it listens as a JSON line at once, not when it stops', async () => {
    const json = await world.serve(['--json']);
    const [first] = json.stderr().trim().split('\n');
    expect(JSON.parse(first ?? '')).toEqual({
      warning: expect.stringMatching(/^mcpx serve: listening on http:/),
    });
    json.child.kill('SIGTERM');
    await json.exited;
  });

  it('wrote nothing but its own lines to stderr (no process warning)', () => {
    expect(gateway.stderr()).not.toMatch(/Warning|MaxListeners|\(node:\d+\)/);
    expect(gateway.stderr()).toMatch(/^mcpx serve: listening on /);
  });
});
