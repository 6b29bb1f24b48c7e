/**
 * An mcpx that does not trace still carries a traced client's context on (W3C Trace Context's
 * rule for an intermediary that does not take part): the `traceparent`, `tracestate` and
 * `baggage` of a client's request reach the upstream's request as they came, through
 * `mcpx serve` on stdio and over HTTP (both eras), and through a thin serve over the keep-alive
 * daemon. The upstream test server logs the W3C keys each request carried (`MCPX_TEST_TRACE_LOG`).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliPath, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import { daemonPids, waitForExit } from '../helpers/processes.js';

const TRACE = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'vendor=opaque-value,other=t61rcWkgMzE',
  baggage: 'userId=alice,tenant=acme%20corp',
};

interface Received {
  readonly method: string;
  readonly traceparent?: string;
  readonly tracestate?: string;
  readonly baggage?: string;
}

/** The W3C keys each `tools/call` the upstream received carried, in order. */
async function upstreamCalls(log: string): Promise<Received[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Received)
    .filter((r) => r.method === 'tools/call');
}

/** One traced call and one untraced call through `client`; what the upstream got for each. */
async function traceThrough(client: Client, tool: string, log: string): Promise<Received[]> {
  const before = (await upstreamCalls(log)).length;
  const traced = await client.callTool({ name: tool, arguments: { message: 'traced' }, _meta: TRACE });
  expect(firstText(traced)).toBe('traced');
  const plain = await client.callTool({ name: tool, arguments: { message: 'plain' } });
  expect(firstText(plain)).toBe('plain');
  return (await upstreamCalls(log)).slice(before);
}

function expectCarriedOn(received: Received[]): void {
  expect(received).toEqual([{ method: 'tools/call', ...TRACE }, { method: 'tools/call' }]);
}

describe('mcpx serve without tracing', () => {
  let world: GatewayWorld;
  let traceLog: string;

  beforeAll(async () => {
    world = await gatewayWorld({});
    traceLog = join(world.dir, 'trace.log');
    await writeFile(
      world.configFile,
      JSON.stringify({
        permission: 'yolo',
        mcpServers: {
          local: {
            command: process.execPath,
            args: [testServerPath],
            env: { MCPX_TEST_TRACE_LOG: traceLog },
          },
        },
      }),
    );
  });
  afterEach(() => world.stopAll());
  afterAll(() => world.close());

  for (const era of ['legacy', 'modern'] as const) {
    it(`--http, a ${era === 'legacy' ? '2025-11-25' : '2026-07-28'} client: its trace context reaches the upstream unchanged`, async () => {
      const gateway = await world.serve();
      const client = await world.client(gateway.url, era);
      expectCarriedOn(await traceThrough(client, 'local__echo', traceLog));
      expect(gateway.stderr()).toBe(`mcpx serve: listening on ${gateway.url} (1 server)\n`);
    });
  }

  it('on stdio: its trace context reaches the upstream unchanged', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, '--config', world.configFile, 'serve'],
      cwd: world.dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: world.home,
        MCPX_HOME: join(world.home, '.mcpx'),
      },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'traced-stdio', version: '0.0.0' });
    await client.connect(transport);
    try {
      expectCarriedOn(await traceThrough(client, 'local__echo', traceLog));
      // A client's `_meta` is untrusted: values of another shape or size are not carried on.
      const before = (await upstreamCalls(traceLog)).length;
      for (const _meta of [
        { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n\u001b]0;owned\u0007' },
        { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01', tracestate: 'a=b' },
        { traceparent: TRACE.traceparent, tracestate: 'x'.repeat(513), baggage: `k=${'v'.repeat(8191)}` },
      ])
        await client.callTool({ name: 'local__echo', arguments: { message: 'hostile' }, _meta });
      expect((await upstreamCalls(traceLog)).slice(before)).toEqual([
        { method: 'tools/call' },
        { method: 'tools/call' },
        { method: 'tools/call', traceparent: TRACE.traceparent },
      ]);
    } finally {
      await client.close();
    }
    expect(await waitForExit(transport.pid as number, 10_000)).toBe(true);
    expect(stderr).toBe('');
  });
});

describe('a thin mcpx serve over the keep-alive daemon, without tracing', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let home: string;

  beforeEach(async () => {
    dir = await tempDir('mcpx-trace-thin-');
    home = join(dir.path, 'home');
    await mkdir(join(home, '.mcpx'), { recursive: true });
  });
  // The daemon ends with the test: no process outlives it.
  afterEach(async () => {
    await runCli(['daemon', 'stop'], { cwd: dir.path, home, env: { TMPDIR: dir.path } });
    for (const pid of daemonPids(join(home, '.mcpx'))) process.kill(pid, 'SIGKILL');
    await dir.remove();
  });

  it('carries the client’s trace context through both of the daemon’s hops to the upstream', {
    timeout: 120_000,
  }, async () => {
    const traceLog = join(dir.path, 'trace.log');
    await writeFile(
      join(home, '.mcpx', 'mcp.json'),
      JSON.stringify({
        permission: 'yolo',
        mcpServers: {
          local: {
            command: process.execPath,
            args: [testServerPath],
            keep_alive: true,
            env: { MCPX_TEST_TRACE_LOG: traceLog },
          },
        },
      }),
    );
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      MCPX_HOME: join(home, '.mcpx'),
      TMPDIR: dir.path,
      MCPX_DAEMON_IDLE: '2',
    };
    const started = await runCli(['daemon', 'start'], { cwd: dir.path, home, env: { TMPDIR: dir.path } });
    expect(started.code).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'serve'],
      cwd: dir.path,
      env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'traced-thin', version: '0.0.0' });
    await client.connect(transport);
    try {
      expectCarriedOn(await traceThrough(client, 'local__echo', traceLog));
    } finally {
      await client.close();
    }
    expect(await waitForExit(transport.pid as number, 10_000)).toBe(true);
    expect(stderr).toBe('');
  });
});
