/**
 * The metrics' Prometheus text: the semantic conventions' names with their unit, counts and
 * histograms that add up, and label values from servers that can neither break the exposition
 * format nor grow without bound.
 */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/metrics/index.js';
import { startOtlpMetricsReceiver } from '../../helpers/otlp-receiver.js';

/** One sample line of the text format: a name, `{label="value",…}` with escaped values, a number. */
const SAMPLE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*",?)*\})? [-+0-9.eEInfNa]+$/;

function samples(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('createMetrics', () => {
  it('counts tool calls by server, tool and outcome, with latency histograms in seconds', async () => {
    const metrics = await createMetrics();
    for (const seconds of [0.0015, 0.03, 0.4])
      metrics.served({ method: 'tools/call', server: 'github', tool: 'search', seconds });
    metrics.served({
      method: 'tools/call',
      server: 'github',
      tool: 'search',
      seconds: 0.01,
      errorType: 'tool_error',
    });
    metrics.served({ method: 'tools/list', seconds: 0.002 });
    metrics.sent({ method: 'tools/call', server: 'github', tool: 'search', seconds: 0.02 });
    metrics.sent({
      method: 'tools/call',
      server: 'github',
      tool: 'search',
      seconds: 5,
      errorType: 'REQUEST_TIMEOUT',
    });
    const text = await metrics.prometheus();
    await metrics.shutdown();

    expect(samples(text, 'mcpx_tool_calls_total').sort()).toEqual([
      'mcpx_tool_calls_total{mcpx_server="github",gen_ai_tool_name="search",mcpx_outcome="ok"} 3',
      'mcpx_tool_calls_total{mcpx_server="github",gen_ai_tool_name="search",mcpx_outcome="tool_error"} 1',
    ]);
    expect(text).toContain('# TYPE mcp_server_operation_duration_seconds histogram');
    const ok = 'mcp_method_name="tools/call",mcpx_server="github",gen_ai_tool_name="search"';
    expect(text).toContain(`mcp_server_operation_duration_seconds_count{${ok}} 3`);
    expect(text).toContain(`mcp_server_operation_duration_seconds_bucket{${ok},le="0.002"} 1`);
    expect(text).toContain(`mcp_server_operation_duration_seconds_bucket{${ok},le="0.05"} 2`);
    expect(text).toContain(`mcp_server_operation_duration_seconds_bucket{${ok},le="+Inf"} 3`);
    expect(text).toContain('mcp_server_operation_duration_seconds_count{mcp_method_name="tools/list"} 1');
    expect(text).toContain(`mcp_client_operation_duration_seconds_count{${ok}} 1`);
    // Upstream failures by kind; a tool's own error result is not one of mcpx's errors.
    expect(samples(text, 'mcpx_errors_total')).toEqual([
      `mcpx_errors_total{${ok},error_type="REQUEST_TIMEOUT"} 1`,
    ]);
  });

  it('reports connections by state and sessions, as read at each collection', async () => {
    const metrics = await createMetrics();
    let state = 'starting';
    const stop = metrics.observe({
      connections: () => [
        { server: 'a', state },
        { server: 'b', state: 'ready' },
      ],
      sessions: () => [{ count: 2 }],
    });
    expect(await metrics.prometheus()).toContain(
      'mcpx_upstream_connections{mcpx_server="a",mcpx_state="starting"} 1',
    );
    state = 'ready';
    const later = await metrics.prometheus();
    expect(later).toContain('mcpx_upstream_connections{mcpx_server="a",mcpx_state="ready"} 1');
    expect(later).toContain('mcpx_sessions 2');
    stop();
    await metrics.shutdown();
  });

  it('counts a server starting again, not its first start', async () => {
    const metrics = await createMetrics();
    const listeners: ((event: {
      type: string;
      server: string;
      state?: string;
      previous?: string;
    }) => void)[] = [];
    metrics.watchRestarts({
      on: (listener) => {
        listeners.push(listener);
        return () => {};
      },
    });
    const emit = (state: string, previous: string) => {
      for (const listener of listeners) listener({ type: 'state', server: 'a', state, previous });
    };
    emit('starting', 'created');
    emit('ready', 'starting');
    emit('error', 'ready');
    emit('starting', 'error');
    emit('ready', 'starting');
    expect(await metrics.prometheus()).toContain('mcpx_upstream_restarts_total{mcpx_server="a"} 1');
    await metrics.shutdown();
  });

  it('keeps hostile tool names from breaking the format or a terminal', async () => {
    const metrics = await createMetrics();
    const hostile = 'q"uote\\back\nslash\u001b[2J\u001b]0;title\u0007\u202Eevil\u200Bzw';
    metrics.served({ method: 'tools/call', server: 's"\n', tool: hostile, seconds: 0.01 });
    metrics.served({ method: 'tools/call', server: 's', tool: 'x'.repeat(10_000), seconds: 0.01 });
    const text = await metrics.prometheus();
    await metrics.shutdown();
    for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#')))
      expect(line, 'a sample line of the exposition format').toMatch(SAMPLE);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b\u202e]/);
    expect(text).toContain('gen_ai_tool_name="q\\"uote\\\\back slashevilzw"');
    expect(text).toContain('mcpx_server="s\\""');
    expect(text).toContain(`gen_ai_tool_name="${'x'.repeat(128)}"`);
    expect(text).not.toContain('x'.repeat(129));
  });

  it('counts tool names past the cap as _other, and leaves a name without its server out', async () => {
    const metrics = await createMetrics({ labelLimits: { tool: 3 } });
    for (let i = 0; i < 50; i++)
      metrics.served({ method: 'tools/call', server: 's', tool: `tool_${i}`, seconds: 0.01 });
    // A client's name for a tool no server has: the client's words, not a label.
    metrics.served({ method: 'tools/call', tool: 'made_up', seconds: 0.01, errorType: '-32602' });
    const text = await metrics.prometheus();
    await metrics.shutdown();
    expect(samples(text, 'mcpx_tool_calls_total').sort()).toEqual([
      'mcpx_tool_calls_total{mcpx_outcome="error"} 1',
      'mcpx_tool_calls_total{mcpx_server="s",gen_ai_tool_name="_other",mcpx_outcome="ok"} 47',
      'mcpx_tool_calls_total{mcpx_server="s",gen_ai_tool_name="tool_0",mcpx_outcome="ok"} 1',
      'mcpx_tool_calls_total{mcpx_server="s",gen_ai_tool_name="tool_1",mcpx_outcome="ok"} 1',
      'mcpx_tool_calls_total{mcpx_server="s",gen_ai_tool_name="tool_2",mcpx_outcome="ok"} 1',
    ]);
    expect(text).not.toContain('made_up');
  });

  // Each kind of operation's attributes are worked out once and remembered, up to 10,000 kinds,
  // then forgotten all at once; a turn's counts under the same attributes are one `add`.
  it('counts exactly across turns, within a turn, and past the remembered kinds', async () => {
    const metrics = await createMetrics({ labelLimits: { tool: 2 } });
    const call = (tool: string, errorType?: string) =>
      metrics.served({
        method: 'tools/call',
        server: 's',
        tool,
        seconds: 0.001,
        ...(errorType === undefined ? {} : { errorType }),
      });
    for (let i = 0; i < 300; i++) call('a', i % 3 === 0 ? 'tool_error' : undefined);
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 10_050; i++) call(`fresh_${i}`);
    call('a');
    call('fresh_0');
    const text = await metrics.prometheus();
    await metrics.shutdown();
    const calls = 'mcpx_tool_calls_total{mcpx_server="s",gen_ai_tool_name=';
    expect(samples(text, 'mcpx_tool_calls_total').sort()).toEqual([
      `${calls}"_other",mcpx_outcome="ok"} 10049`,
      `${calls}"a",mcpx_outcome="ok"} 201`,
      `${calls}"a",mcpx_outcome="tool_error"} 100`,
      `${calls}"fresh_0",mcpx_outcome="ok"} 2`,
    ]);
    expect(samples(text, 'mcp_server_operation_duration_seconds_count').sort()).toEqual([
      'mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",mcpx_server="s",gen_ai_tool_name="_other"} 10049',
      'mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",mcpx_server="s",gen_ai_tool_name="a",error_type="tool_error"} 100',
      'mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",mcpx_server="s",gen_ai_tool_name="a"} 201',
      'mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",mcpx_server="s",gen_ai_tool_name="fresh_0"} 2',
    ]);
  });

  it("counts error types and methods past their caps as _other, but never mcpx's own error codes", async () => {
    const metrics = await createMetrics({ labelLimits: { errorType: 2, method: 2 } });
    for (let code = 1; code <= 20; code++)
      metrics.sent({ method: 'tools/call', server: 's', tool: 't', seconds: 0.01, errorType: String(code) });
    metrics.sent({
      method: 'tools/call',
      server: 's',
      tool: 't',
      seconds: 0.01,
      errorType: 'SERVER_CRASHED',
    });
    metrics.sent({ method: 'tools/call', server: 's', tool: 't', seconds: 0.01, errorType: '-32603' });
    for (let i = 0; i < 20; i++) metrics.served({ method: `made/up-${i}`, seconds: 0.01 });
    // An MCP method, however many made-up ones came first.
    metrics.served({ method: 'resources/read', seconds: 0.01 });
    const text = await metrics.prometheus();
    await metrics.shutdown();
    const errors = 'mcpx_errors_total{mcp_method_name="tools/call",mcpx_server="s",gen_ai_tool_name="t"';
    expect(samples(text, 'mcpx_errors_total').sort()).toEqual([
      `${errors},error_type="-32603"} 1`,
      `${errors},error_type="1"} 1`,
      `${errors},error_type="2"} 1`,
      `${errors},error_type="SERVER_CRASHED"} 1`,
      `${errors},error_type="_other"} 18`,
    ]);
    expect(samples(text, 'mcp_server_operation_duration_seconds_count').sort()).toEqual([
      'mcp_server_operation_duration_seconds_count{mcp_method_name="_other"} 18',
      'mcp_server_operation_duration_seconds_count{mcp_method_name="made/up-0"} 1',
      'mcp_server_operation_duration_seconds_count{mcp_method_name="made/up-1"} 1',
      'mcp_server_operation_duration_seconds_count{mcp_method_name="resources/read"} 1',
    ]);
  });

  // Records are made after the turn that asks for them (the answer goes out first): a scrape or
  // the last push in that same turn must still see them.
  it('loses no record held for the end of the turn: a scrape and the last OTLP push see it', async () => {
    const receiver = await startOtlpMetricsReceiver();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint };
    // The OTLP exporter reads its endpoint from the process's environment, as `mcpx serve`'s is.
    const before = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = env.OTEL_EXPORTER_OTLP_ENDPOINT;
    try {
      const metrics = await createMetrics({ env });
      metrics.served({ method: 'tools/call', server: 'github', tool: 'search', seconds: 0.001 });
      expect(samples(await metrics.prometheus(), 'mcpx_tool_calls_total')).toHaveLength(1);
      metrics.served({ method: 'tools/call', server: 'github', tool: 'fetch', seconds: 0.001 });
      await metrics.shutdown();
      const pushed = receiver.bodies.join('\n');
      expect(pushed).toContain('"stringValue":"search"');
      expect(pushed).toContain('"stringValue":"fetch"');
    } finally {
      if (before === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = before;
      await receiver.close();
    }
  });

  it('pushes over OTLP only when the environment asks', async () => {
    const off = await createMetrics({ env: {} });
    const none = await createMetrics({
      env: { OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' },
    });
    const named = await createMetrics({ env: { OTEL_METRICS_EXPORTER: 'otlp' } });
    const endpoint = await createMetrics({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' } });
    expect([off.otlp, none.otlp, named.otlp, endpoint.otlp]).toEqual([false, false, true, true]);
    for (const m of [off, none, named, endpoint]) await m.shutdown();
  });
});
