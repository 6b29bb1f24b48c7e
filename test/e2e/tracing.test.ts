/**
 * One trace through a real OTLP/HTTP receiver: a library program with its own OpenTelemetry
 * SDK calls a tool through `mcpx serve --http` (the gateway, tracing switched on by
 * OTEL_EXPORTER_OTLP_ENDPOINT), which calls the upstream stdio test server; the test server
 * records the `traceparent` it received. Both protocol eras downstream.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
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
