/**
 * One trace through a real OTLP/HTTP receiver: a library program with its own OpenTelemetry
 * SDK calls a tool through `mcpx serve --http` (the gateway, tracing switched on by
 * OTEL_EXPORTER_OTLP_ENDPOINT), which calls the upstream stdio test server; the test server
 * records the `traceparent` it received. Both protocol eras downstream.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../../src/testing/fake-model-server.js';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const rawServerPath = fileURLToPath(new URL('../../bench/lib/raw-server.mjs', import.meta.url));
const SERVER = 2;
const CLIENT = 3;

let world: GatewayWorld;
let receiver: OtlpReceiver;
let traceLog: string;

beforeAll(async () => {
  world = await gatewayWorld({});
  traceLog = join(world.dir, 'trace.log');
  await writeFile(
    world.configFile,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: {
        local: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_TRACE_LOG: traceLog } },
        // A 2025-11-25 server that sets no log level: a plain call's upstream hop is a line beside
        // the SDK client (`relayed-call.ts`).
        pinned: { command: process.execPath, args: [rawServerPath], protocol: 'legacy' },
      },
    }),
  );
});
afterEach(async () => {
  await world.stopAll();
  await receiver?.close();
});
afterAll(() => world.close());

describe('one trace from the library through the gateway to the upstream server', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`with a ${era === 'legacy' ? '2025-11-25' : '2026-07-28'} client downstream`, async () => {
      receiver = await startOtlpReceiver();
      const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' };
      const gateway = await world.serve([], otel);
      const libraryConfig = join(world.dir, `library-${era}.json`);
      await writeFile(
        libraryConfig,
        JSON.stringify({ mcpServers: { gw: { url: gateway.url, protocol: era } } }),
      );

      const { stdout, stderr } = await run(
        process.execPath,
        [fixture('library-traced.mjs'), libraryConfig, 'gw'],
        {
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: world.home,
            MCPX_HOME: join(world.home, '.mcpx'),
            ...otel,
          },
        },
      );
      expect(stderr).toBe('');
      const { traceId, text } = JSON.parse(stdout) as { traceId: string; text: string };
      expect(text).toBe('traced');

      const inTrace = (spans: readonly ReceivedSpan[]) => spans.filter((s) => s.traceId === traceId);
      const upstreamCall = (spans: readonly ReceivedSpan[]) =>
        inTrace(spans).find((s) => s.service === 'mcpx' && s.kind === CLIENT && s.name === 'tools/call echo');
      await receiver.waitFor((spans) => upstreamCall(spans) !== undefined);
      const spans = inTrace(receiver.spans);
      const byId = new Map(spans.map((s) => [s.spanId, s]));

      // The library: its own span, the mcpx CLIENT span of the call under it.
      const step = spans.find((s) => s.service === 'library-user' && s.name === 'agent step');
      const libraryCall = spans.find(
        (s) =>
          s.service === 'library-user' &&
          s.kind === CLIENT &&
          s.attributes['mcp.method.name'] === 'tools/call',
      );
      expect(step).toBeDefined();
      expect(libraryCall?.parentSpanId).toBe(step?.spanId);
      expect(libraryCall?.attributes['network.transport']).toBe('tcp');
      expect(libraryCall?.attributes['mcp.protocol.version']).toBe(
        era === 'legacy' ? '2025-11-25' : '2026-07-28',
      );

      // The gateway: a SERVER span, child of the library's call (the traceparent it was sent) …
      const inbound = spans.find(
        (s) => s.service === 'mcpx' && s.kind === SERVER && s.attributes['mcp.method.name'] === 'tools/call',
      );
      expect(inbound?.parentSpanId).toBe(libraryCall?.spanId);
      expect(inbound?.attributes['mcpx.hop']).toBe('gateway');
      // … and its upstream CLIENT call below it, over the pipe.
      const upstream = upstreamCall(spans) as ReceivedSpan;
      let ancestor = byId.get(upstream.parentSpanId);
      while (ancestor && ancestor !== inbound) ancestor = byId.get(ancestor.parentSpanId);
      expect(ancestor).toBe(inbound);
      expect(upstream.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'network.transport': 'pipe',
        'mcpx.server': 'local',
      });

      // The upstream server was sent the gateway's call span as its parent.
      const received = (await readFile(traceLog, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { method: string; traceparent?: string });
      const calls = received.filter((r) => r.method === 'tools/call');
      expect(calls.at(-1)?.traceparent).toBe(`00-${traceId}-${upstream.spanId}-01`);
    });
  }
});

describe('the library, with a provider registered globally only (no tracerProvider given)', () => {
  it("joins the user's trace: the connect, its spawn and handshake, and the call under the user's span", async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [fixture('library-global-tracing.mjs'), world.configFile, 'local'],
      {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: world.home,
          MCPX_HOME: join(world.home, '.mcpx'),
        },
      },
    );
    expect(stderr).toBe('');
    const { text, spans } = JSON.parse(stdout) as {
      text: string;
      spans: { name: string; traceId: string; spanId: string; parentSpanId?: string }[];
    };
    expect(text).toBe('traced');
    const named = (name: string) => spans.find((s) => s.name === name);
    const step = named('agent step');
    for (const name of ['connect local', 'spawn', 'handshake', 'tools/list', 'tools/call echo'])
      expect(named(name)?.traceId, `${name} in the user's trace`).toBe(step?.traceId);
    expect(named('connect local')?.parentSpanId).toBe(step?.spanId);
    // `host.connect` spawns the server before its connect starts, while the user's span is active.
    expect(named('spawn')?.parentSpanId).toBe(step?.spanId);
    expect(named('server/discover')?.parentSpanId).toBe(named('handshake')?.spanId);
    expect(named('handshake')?.parentSpanId).toBe(named('connect local')?.spanId);
    expect(named('tools/call echo')?.parentSpanId).toBe(step?.spanId);
  });
});

describe('a traced gateway, called by a client that sends no trace context', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`takes the fast path, and the call's spans end (${era === 'legacy' ? '2025-11-25' : '2026-07-28'} client)`, async () => {
      receiver = await startOtlpReceiver();
      const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' };
      // The fast path on, whatever the environment says (the suites also run with it off).
      const gateway = await world.serve(['--server', 'pinned', '--verbose'], {
        ...otel,
        MCPX_GATEWAY_FAST_PATH: '1',
      });
      const client = new Client(
        { name: 'plain', version: '1.0.0' },
        { versionNegotiation: era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url as string)));
      // A 2025 session takes the fast path once its standalone stream is open.
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const message of ['one', 'two']) {
        const result = await client.callTool({ name: 'echo', arguments: { message } });
        expect((result.content as { text: string }[])[0]?.text).toBe(message);
      }

      // Each call: the gateway's SERVER span, and its upstream CLIENT span under it, ended with the
      // answer (while the gateway still runs: closing it would end a span left open, as failed).
      const pairs = (spans: readonly ReceivedSpan[]) =>
        spans.filter(
          (inbound) =>
            inbound.service === 'mcpx' &&
            inbound.kind === SERVER &&
            inbound.attributes['mcp.method.name'] === 'tools/call' &&
            spans.some(
              (s) =>
                s.kind === CLIENT &&
                s.name === 'tools/call echo' &&
                s.parentSpanId === inbound.spanId &&
                s.attributes['error.type'] === undefined,
            ),
        );
      await receiver.waitFor((spans) => pairs(spans).length === 2);
      expect(pairs(receiver.spans)).toHaveLength(2);
      await client.close();
      gateway.child.kill('SIGTERM');
      await gateway.exited;
      expect(Number(/(\d+) call\(s\) took the fast path/.exec(gateway.stderr())?.[1])).toBe(2);
    });
  }
});

describe('mcpx doctor --trace', () => {
  const config = () => ({
    mcpServers: {
      modern: { command: process.execPath, args: [testServerPath], protocol: 'auto' },
      legacy: { command: process.execPath, args: [testServerPath], protocol: 'legacy' },
      missing: { command: 'mcpx-no-such-command', args: [] },
    },
  });

  it("draws each server's connect as a waterfall: spawn, handshake, era probe, listings", async () => {
    await writeFile(world.configFile, JSON.stringify(config()));
    const run = await runCli(['--config', world.configFile, 'doctor', '--trace'], {
      cwd: world.dir,
      home: world.home,
    });
    expect(run.stderr).toBe('');
    const section = (server: string) => {
      const start = run.stdout.indexOf(`\n${server} (`);
      expect(start, `no waterfall for ${server}:\n${run.stdout}`).toBeGreaterThan(-1);
      const end = run.stdout.indexOf('\n\n', start + 1);
      return run.stdout.slice(start + 1, end === -1 ? undefined : end);
    };
    const row = (name: string) =>
      new RegExp(`^\\s+${name.replace('/', '\\/')}\\s+\\+[\\d.]+ ms\\s+\\|[ █]+\\|\\s+[\\d.]+ ms`, 'm');
    for (const step of ['connect modern', 'spawn', 'handshake', 'server/discover', 'tools/list'])
      expect(section('modern')).toMatch(row(step));
    for (const step of ['connect legacy', 'spawn', 'handshake', 'initialize', 'tools/list'])
      expect(section('legacy')).toMatch(row(step));
    // The 2025-11-25 server pinned in the config is asked no era question.
    expect(section('legacy')).not.toMatch(/server\/discover/);
    expect(section('missing')).toMatch(/connect missing .*COMMAND_NOT_FOUND/);
  });

  it('gives the spans with --json, nested by their parents', async () => {
    await writeFile(world.configFile, JSON.stringify(config()));
    const run = await runCli(['--config', world.configFile, '--json', 'doctor', '--trace'], {
      cwd: world.dir,
      home: world.home,
    });
    const checks = JSON.parse(run.stdout) as {
      server: string;
      spans: { name: string; depth: number; spanId: string; parentSpanId?: string; durationMs: number }[];
    }[];
    const legacy = checks.find((c) => c.server === 'legacy');
    const names = legacy?.spans.map((s) => `${s.depth} ${s.name}`);
    expect(names).toEqual(
      expect.arrayContaining(['0 connect legacy', '1 spawn', '1 handshake', '2 initialize']),
    );
    const byName = new Map(legacy?.spans.map((s) => [s.name, s]));
    expect(byName.get('initialize')?.parentSpanId).toBe(byName.get('handshake')?.spanId);
    expect(byName.get('handshake')?.parentSpanId).toBe(byName.get('connect legacy')?.spanId);
    for (const span of legacy?.spans ?? []) expect(span.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('without --trace, doctor shows no waterfall and its JSON no spans', async () => {
    await writeFile(world.configFile, JSON.stringify(config()));
    const run = await runCli(['--config', world.configFile, '--json', 'doctor'], {
      cwd: world.dir,
      home: world.home,
    });
    const checks = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(checks.some((c) => 'spans' in c)).toBe(false);
  });
});

describe('mcpx chat --trace', () => {
  it('makes the turn one span: the model call and the tool under it, the MCP request under the tool', async () => {
    receiver = await startOtlpReceiver();
    const model = await startFakeModelServer([
      { toolCalls: [{ name: 'mcp_demo_echo', arguments: { message: 'sk-abcdefghijklmnopqrstuvwx' } }] },
      { text: 'done' },
    ]);
    try {
      await writeFile(world.configFile, JSON.stringify({ mcpServers: {} }));
      const run = await runCli(
        [
          '--config',
          world.configFile,
          '--trace',
          '--trace-content',
          'chat',
          '--base-url',
          model.baseUrl,
          '--model',
          'fake',
          '--permission',
          'yolo',
          '--once',
          'echo my key',
        ],
        {
          cwd: world.dir,
          home: world.home,
          env: { OPENAI_API_KEY: 'sk-e2e', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
        },
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('done\n');
      const find = (spans: readonly ReceivedSpan[], name: string) => spans.find((s) => s.name === name);
      await receiver.waitFor((spans) => find(spans, 'mcpx chat') !== undefined);
      const spans = receiver.spans;
      const root = find(spans, 'mcpx chat');
      const turn = find(spans, 'invoke_agent mcpx');
      const modelCalls = spans.filter((s) => s.name === 'chat fake');
      const tool = find(spans, 'execute_tool mcp_demo_echo');
      const request = spans.find((s) => s.kind === CLIENT && s.name === 'tools/call echo');
      expect(turn?.parentSpanId).toBe(root?.spanId);
      expect(modelCalls).toHaveLength(2);
      for (const call of modelCalls) expect(call.parentSpanId).toBe(turn?.spanId);
      expect(tool?.parentSpanId).toBe(turn?.spanId);
      expect(request?.parentSpanId).toBe(tool?.spanId);
      // --trace-content: the arguments and the result are recorded, the token in them masked.
      expect(request?.attributes['gen_ai.tool.call.arguments']).toBe('{"message":"***"}');
      expect(String(request?.attributes['gen_ai.tool.call.result'])).toContain('***');
      expect(JSON.stringify(spans)).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    } finally {
      await model.close();
    }
  });

  it('records no arguments or results without --trace-content', async () => {
    receiver = await startOtlpReceiver();
    const run = await runCli(
      ['--config', world.configFile, '--trace', 'call', 'demo.echo', 'message=private'],
      {
        cwd: world.dir,
        home: world.home,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
      },
    );
    expect(run.stdout).toBe('private\n');
    await receiver.waitFor((spans) => spans.some((s) => s.name === 'mcpx call'));
    const call = receiver.spans.find((s) => s.name === 'tools/call echo');
    expect(call?.attributes['gen_ai.tool.name']).toBe('echo');
    expect(JSON.stringify(receiver.spans)).not.toContain('private');
  });
});

describe('the daemon hop', () => {
  it("carries the trace: the CLI's call, the daemon's SERVER span under it, the daemon's upstream call, the server", async () => {
    receiver = await startOtlpReceiver();
    const dir = await tempDir('mcpx-trace-daemon-');
    const home = join(dir.path, 'home');
    await mkdir(join(home, '.mcpx'), { recursive: true });
    const log = join(dir.path, 'daemon-trace.log');
    await writeFile(
      join(home, '.mcpx', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          warm: {
            command: process.execPath,
            args: [testServerPath],
            keep_alive: true,
            env: { MCPX_TEST_TRACE_LOG: log },
          },
        },
      }),
    );
    // The daemon started on demand inherits this environment: it traces its hop to the same receiver.
    const env = {
      TMPDIR: dir.path,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    const mcpx = (args: string[]) => runCli(args, { cwd: dir.path, home, env, timeoutMs: 60_000 });
    try {
      const run = await mcpx(['call', 'warm.echo', 'message=via the daemon']);
      expect(run.stdout).toBe('via the daemon\n');
      const hop = (spans: readonly ReceivedSpan[]) =>
        spans.find(
          (s) => s.kind === SERVER && s.attributes['mcpx.hop'] === 'daemon' && s.name === 'tools/call echo',
        );
      const below = (spans: readonly ReceivedSpan[], parent: ReceivedSpan | undefined) =>
        spans.find((s) => s.kind === CLIENT && parent !== undefined && s.parentSpanId === parent.spanId);
      await receiver.waitFor(
        (spans) => below(spans, hop(spans)) !== undefined && spans.some((s) => s.name === 'mcpx call'),
      );
      const spans = receiver.spans;
      const server = hop(spans) as ReceivedSpan;
      const root = spans.find((s) => s.name === 'mcpx call');
      const cliCall = spans.find((s) => s.spanId === server.parentSpanId);
      expect(cliCall).toMatchObject({ kind: CLIENT, name: 'tools/call echo', traceId: root?.traceId });
      const upstream = spans.find(
        (s) => s.kind === CLIENT && s.parentSpanId === server.spanId,
      ) as ReceivedSpan;
      expect(upstream?.name).toBe('tools/call echo');
      const received = (await readFile(log, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { method: string; traceparent?: string });
      expect(received.filter((r) => r.method === 'tools/call').at(-1)?.traceparent).toBe(
        `00-${server.traceId}-${upstream.spanId}-01`,
      );
    } finally {
      await mcpx(['daemon', 'stop']);
      await dir.remove();
    }
  });
});
