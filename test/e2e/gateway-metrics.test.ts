/**
 * `mcpx serve`'s metrics: `GET /metrics` on --http in Prometheus's text format, behind the
 * same bearer token as `/mcp`, with the calls, latencies, connections and sessions a client's
 * requests made; and on stdio, pushed over OTLP/HTTP when the environment names an endpoint.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import { startOtlpMetricsReceiver } from '../helpers/otlp-receiver.js';

const hostileServerPath = join(repoRoot, 'dist/testing/hostile-server.js');
const TOKEN = 'metrics-test-token-0123456789abcdef';
/** One sample line of the text format: a name, `{label="value",…}` with escaped values, a number. */
const SAMPLE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*",?)*\})? [-+0-9.eEInfNa]+$/;

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: {
      t: { command: process.execPath, args: [testServerPath] },
      h: { command: process.execPath, args: [hostileServerPath] },
      // Dies in the middle of every call: failures by kind, and a start again on the next use.
      c: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_FAULT: 'crash-mid-call' } },
    },
  });
});
afterEach(() => world.stopAll());
afterAll(() => world.close());

const metricsUrl = (url: string) => url.replace(/\/mcp$/, '/metrics');
const scrape = (url: string, headers: Record<string, string> = {}) =>
  fetch(metricsUrl(url), { headers: { authorization: `Bearer ${TOKEN}`, ...headers } });

function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('GET /metrics on mcpx serve --http', () => {
  it('is refused without the bearer token, as /mcp is', async () => {
    const gateway = await world.serve(['--token', TOKEN]);
    const bare = await fetch(metricsUrl(gateway.url));
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe('Bearer');
    expect(
      (await fetch(metricsUrl(gateway.url), { headers: { authorization: 'Bearer wrong' } })).status,
    ).toBe(401);
    expect((await fetch(`${metricsUrl(gateway.url)}?token=${TOKEN}`)).status).toBe(400);
    const ok = await scrape(gateway.url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await ok.text()).toContain('# TYPE mcpx_upstream_connections gauge');
  });

  it('counts calls by server, tool and outcome, with latency histograms, connections and sessions', async () => {
    const gateway = await world.serve(['--token', TOKEN]);
    const headers = { authorization: `Bearer ${TOKEN}` };
    const legacy = await world.client(gateway.url, 'legacy', { headers });
    const modern = await world.client(gateway.url, 'modern', { headers });
    for (let i = 0; i < 3; i++) await legacy.callTool({ name: 't__echo', arguments: { message: 'hi' } });
    for (let i = 0; i < 2; i++) await modern.callTool({ name: 't__echo', arguments: { message: 'hi' } });
    expect((await legacy.callTool({ name: 't__fail', arguments: {} })).isError).toBe(true);
    await expect(legacy.callTool({ name: 't__no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);

    const text = await (await scrape(gateway.url)).text();
    const echo = 'mcpx_server="t",gen_ai_tool_name="echo"';
    expect(sample(text, `mcpx_tool_calls_total{${echo},mcpx_outcome="ok"}`)).toBe(5);
    expect(
      sample(
        text,
        'mcpx_tool_calls_total{mcpx_server="t",gen_ai_tool_name="fail",mcpx_outcome="tool_error"}',
      ),
    ).toBe(1);
    // A name no server has is the client's word: counted, not a label.
    expect(sample(text, 'mcpx_tool_calls_total{mcpx_outcome="error"}')).toBe(1);
    expect(text).not.toContain('no_such_tool');
    const served = `mcp_method_name="tools/call",${echo}`;
    expect(sample(text, `mcp_server_operation_duration_seconds_count{${served}}`)).toBe(5);
    expect(sample(text, `mcp_server_operation_duration_seconds_bucket{${served},le="+Inf"}`)).toBe(5);
    expect(sample(text, `mcp_client_operation_duration_seconds_count{${served}}`)).toBe(5);
    expect(
      sample(
        text,
        'mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",error_type="-32602"}',
      ),
    ).toBe(1);
    expect(sample(text, 'mcpx_upstream_connections{mcpx_server="t",mcpx_state="ready"}')).toBe(1);
    // The 2025-11-25 client holds a session; the 2026-07-28 one is stateless.
    expect(sample(text, 'mcpx_sessions')).toBe(1);
    expect(gateway.stderr()).toBe(`mcpx serve: listening on ${gateway.url} (3 servers)\n`);
  });

  it('counts upstream failures by kind, and a crashed server started again', async () => {
    const gateway = await world.serve(['--token', TOKEN]);
    const client = await world.client(gateway.url, 'legacy', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    for (let i = 0; i < 2; i++)
      await expect(client.callTool({ name: 'c__echo', arguments: { message: 'x' } })).rejects.toThrow();
    const text = await (await scrape(gateway.url)).text();
    const errors = text.split('\n').filter((l) => l.startsWith('mcpx_errors_total{'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^mcpx_errors_total\{mcp_method_name="tools\/call",mcpx_server="c",gen_ai_tool_name="echo",error_type="[A-Z_]+"\} 2$/,
    );
    expect(sample(text, 'mcpx_upstream_restarts_total{mcpx_server="c"}')).toBe(1);
    expect(
      sample(text, 'mcpx_tool_calls_total{mcpx_server="c",gen_ai_tool_name="echo",mcpx_outcome="error"}'),
    ).toBe(2);
  });

  it('keeps a hostile server’s tool names from breaking the format', async () => {
    const gateway = await world.serve(['--token', TOKEN]);
    const client = await world.client(gateway.url, 'legacy', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const { tools } = await client.listTools();
    const named = tools.find((t) => t.name.startsWith('h__named'));
    expect(named).toBeDefined();
    await client.callTool({ name: named?.name as string, arguments: {} });
    const text = await (await scrape(gateway.url)).text();
    for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#')))
      expect(line, 'a sample line of the exposition format').toMatch(SAMPLE);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b\u202e]/u);
    expect(
      sample(
        text,
        'mcpx_tool_calls_total{mcpx_server="h",gen_ai_tool_name="namedevilzwtagredc1",mcpx_outcome="ok"}',
      ),
    ).toBe(1);
  });
});

describe('mcpx serve on stdio with an OTLP endpoint', () => {
  it('pushes its metrics over OTLP/HTTP, the last of them as it stops', async () => {
    const receiver = await startOtlpMetricsReceiver();
    const { bodies } = receiver;
    try {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, '--config', world.configFile, 'serve'],
        cwd: world.dir,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: world.home,
          MCPX_HOME: join(world.home, '.mcpx'),
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const client = new Client({ name: 'otlp-test', version: '0.0.0' });
      await client.connect(transport);
      await client.callTool({ name: 't__echo', arguments: { message: 'pushed' } });
      const pid = transport.pid;
      await client.close();
      // The gateway ends once its stdin does, flushing its metrics on the way out.
      await waitFor(() => pid === null || !alive(pid));
      await waitFor(() => bodies.some((b) => b.includes('mcpx.tool.calls')));
      const pushed = bodies.join('\n');
      expect(pushed).toContain('"mcp.server.operation.duration"');
      expect(pushed).toContain('"stringValue":"echo"');
      expect(stderr).toBe('');
    } finally {
      await receiver.close();
    }
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(done: () => boolean, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
