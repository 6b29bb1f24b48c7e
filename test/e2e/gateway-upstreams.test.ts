/**
 * The gateway toward its upstreams: a crash is a clean error and the server
 * comes back on the next use (the lazy policy); the client's Authorization
 * header never reaches an upstream; excluded tools and unlisted servers are
 * neither listed nor callable.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpTestServer, startHttpTestServer } from '../../src/testing/http-test-server.js';
import { testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const TOKEN = 'client-token-that-must-stay-here-0123';
let world: GatewayWorld;
let upstream: HttpTestServer;
let recorder: Server;
let recorderUrl: string;
const seenAuthorization: (string | undefined)[] = [];
let startLog: string;

beforeAll(async () => {
  upstream = await startHttpTestServer({ era: 'both' });
  // A pass-through in front of the HTTP test server that records what each request carried.
  recorder = createServer((req, res) => {
    seenAuthorization.push(req.headers.authorization);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
      ) as Record<string, string>;
      const answer = await fetch(upstream.url, {
        method: req.method ?? 'GET',
        headers,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}/mcp`;
  world = await gatewayWorld({});
  startLog = join(world.dir, 'starts.log');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    world.configFile,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: {
        crashy: {
          command: process.execPath,
          args: [testServerPath],
          env: { MCPX_TEST_FAULT: 'crash-mid-call', MCPX_TEST_START_LOG: startLog },
        },
        local: { command: process.execPath, args: [testServerPath] },
        remote: { url: recorderUrl, protocol: 'legacy' },
        hidden: { command: process.execPath, args: [testServerPath] },
      },
    }),
  );
}, 60_000);

afterEach(() => world.stopAll());
afterAll(async () => {
  await world?.close();
  await new Promise<void>((resolve) => recorder.close(() => resolve()));
  await upstream?.close();
});

describe('an upstream that crashes', () => {
  it('is a clean error for that call, is started again on the next, and the others keep working', async () => {
    const gateway = await world.serve();
    const client = await world.client(gateway.url, 'legacy');
    const startsBefore = (await readFile(startLog, 'utf8').catch(() => '')).trim().split('\n').length;
    const first = await client
      .callTool({ name: 'crashy__echo', arguments: { message: 'x' } })
      .catch((e) => e);
    expect(String(first)).toMatch(/crashy/);
    expect(String(first)).not.toMatch(/\n\s+at /);
    expect(firstText(await client.callTool({ name: 'local__echo', arguments: { message: 'fine' } }))).toBe(
      'fine',
    );
    await client.callTool({ name: 'crashy__echo', arguments: { message: 'y' } }).catch(() => undefined);
    const startsAfter = (await readFile(startLog, 'utf8')).trim().split('\n').length;
    expect(startsAfter).toBeGreaterThan(startsBefore);
  });
});

describe("the client's credentials", () => {
  it('never reach an upstream', async () => {
    const gateway = await world.serve(['--token', TOKEN]);
    const client = await world.client(gateway.url, 'legacy', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    seenAuthorization.length = 0;
    const result = await client.callTool({ name: 'remote__echo', arguments: { message: 'via recorder' } });
    expect(firstText(result)).toBe('via recorder');
    expect(seenAuthorization.length).toBeGreaterThan(0);
    expect(seenAuthorization.every((a) => a === undefined)).toBe(true);
  });
});

describe('global filters', () => {
  it('--servers and --exclude-tools: what is left out is neither listed nor callable', async () => {
    const gateway = await world.serve(['--servers', 'local,remote', '--exclude-tools', 'local.add*']);
    const client = await world.client(gateway.url, 'modern');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('local__echo');
    expect(names).not.toContain('local__add');
    expect(names).not.toContain('local__add_tool');
    expect(names).toContain('remote__add');
    expect(names.some((n) => n.startsWith('hidden__') || n.startsWith('crashy__'))).toBe(false);
    await expect(client.callTool({ name: 'local__add', arguments: { a: 1, b: 2 } })).rejects.toThrow(
      /Unknown tool/,
    );
  });
});

describe('SIGHUP', () => {
  it('reloads the config: adds, removes and restarts only the servers that changed', async () => {
    const { writeFile } = await import('node:fs/promises');
    const log = (name: string) => join(world.dir, `starts-${name}.log`);
    const entry = (name: string, extra: Record<string, string> = {}) => ({
      command: process.execPath,
      args: [testServerPath],
      env: { MCPX_TEST_START_LOG: log(name), ...extra },
    });
    const original = await readFile(world.configFile, 'utf8');
    await writeFile(
      world.configFile,
      JSON.stringify({
        permission: 'yolo',
        mcpServers: { keep: entry('keep'), gone: entry('gone'), change: entry('change', { V: '1' }) },
      }),
    );
    try {
      const gateway = await world.serve();
      const client = await world.client(gateway.url, 'legacy');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('gone__echo');
      await writeFile(
        world.configFile,
        JSON.stringify({
          permission: 'yolo',
          mcpServers: { keep: entry('keep'), change: entry('change', { V: '2' }), added: entry('added') },
        }),
      );
      gateway.child.kill('SIGHUP');
      for (let i = 0; i < 200 && !gateway.stderr().includes('restarted change'); i++)
        await new Promise((r) => setTimeout(r, 50));
      // The file change and the SIGHUP may both reload; the first did the work, the second finds nothing to do.
      expect(gateway.stderr()).toContain('added added; removed gone; restarted change');
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('added__echo');
      expect(names.some((n) => n.startsWith('gone__'))).toBe(false);
      expect(firstText(await client.callTool({ name: 'change__env', arguments: { name: 'V' } }))).toBe('2');
      const starts = async (name: string) => (await readFile(log(name), 'utf8')).trim().split('\n').length;
      expect(await starts('keep')).toBe(1);
      expect(await starts('change')).toBe(2);
    } finally {
      await writeFile(world.configFile, original);
    }
  });
});

describe('a config file edited while serving', () => {
  it('is reloaded without a signal', async () => {
    const { writeFile } = await import('node:fs/promises');
    const original = await readFile(world.configFile, 'utf8');
    const server = { command: process.execPath, args: [testServerPath] };
    await writeFile(world.configFile, JSON.stringify({ permission: 'yolo', mcpServers: { first: server } }));
    try {
      const gateway = await world.serve();
      const client = await world.client(gateway.url, 'modern');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('first__echo');
      await writeFile(
        world.configFile,
        JSON.stringify({ permission: 'yolo', mcpServers: { first: server, second: server } }),
      );
      for (let i = 0; i < 200 && !gateway.stderr().includes('added second'); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(gateway.stderr()).toContain('added second');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('second__echo');
    } finally {
      await writeFile(world.configFile, original);
    }
  });
});
