import { setTimeout as delay } from 'node:timers/promises';
import type { Attributes, Counter } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, type MetricReader } from '@opentelemetry/sdk-metrics';
import { VERSION } from '../version.js';
import {
  boundedLabel,
  DEFAULT_LABEL_LIMITS,
  KNOWN_ERROR_TYPES,
  KNOWN_METHODS,
  TOOL_ERROR,
} from './labels.js';
import { otlpReader, wantsOtlp } from './otlp.js';
import { prometheusReader } from './prometheus.js';
import type { MetricsSource, Operation, ServingMetrics } from './recorder.js';

export interface MetricsOptions {
  /** Where `OTEL_METRICS_EXPORTER`, `OTEL_EXPORTER_OTLP_*` and `OTEL_SERVICE_NAME` are read. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Distinct server names, tool names, methods and error types (beyond the known ones) counted
   * apart before the rest count as `_other` (defaults: `DEFAULT_LABEL_LIMITS`).
   */
  readonly labelLimits?: {
    readonly server?: number;
    readonly tool?: number;
    readonly method?: number;
    readonly errorType?: number;
  };
}

/** One process's metrics: recorded once, read as Prometheus text and pushed over OTLP when asked. */
export interface Metrics extends ServingMetrics {
  /** Whether an OTLP exporter pushes them too. */
  readonly otlp: boolean;
  /** Push what is left over OTLP and stop recording. */
  shutdown(): Promise<void>;
}

/** How long a stopping process waits for its last OTLP push. */
const SHUTDOWN_MS = 5_000;

/**
 * The OTel MCP semantic conventions' advice (0.01 s … 300 s) with three buckets below it: a
 * call through the gateway to a warm local server takes a millisecond or two.
 */
const DURATION_BUCKETS = [
  0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

/**
 * The metrics of a long-running process (`mcpx serve`, the keep-alive daemon), over one set of
 * OpenTelemetry instruments with two sinks: a Prometheus pull reader (`prometheus()`) and,
 * when the environment asks for it (`OTEL_METRICS_EXPORTER=otlp`, an OTLP endpoint), an OTLP
 * push reader. Names follow the MCP semantic conventions where they have one
 * (`mcp.server.operation.duration`, `mcp.client.operation.duration`); the rest are `mcpx.*`.
 *
 * Long because it declares every instrument and its recording method on the one meter: a table in code.
 *
 * @example
 * const metrics = await createMetrics({ env: process.env });
 * metrics.served({ method: 'tools/call', server: 'github', tool: 'search', seconds: 0.2 });
 * await metrics.prometheus(); // '# TYPE mcpx_tool_calls_total counter …'
 */
export async function createMetrics(options: MetricsOptions = {}): Promise<Metrics> {
  const env = options.env ?? {};
  const pull = prometheusReader();
  const readers: MetricReader[] = [pull.reader];
  const otlp = wantsOtlp(env);
  if (otlp) readers.push(await otlpReader(env));
  const provider = new MeterProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME || 'mcpx',
      'service.version': VERSION,
    }),
    readers,
  });
  const meter = provider.getMeter('mcpx', VERSION);
  const server = boundedLabel(options.labelLimits?.server ?? DEFAULT_LABEL_LIMITS.server);
  const tool = boundedLabel(options.labelLimits?.tool ?? DEFAULT_LABEL_LIMITS.tool);
  const method = boundedLabel(options.labelLimits?.method ?? DEFAULT_LABEL_LIMITS.method, KNOWN_METHODS);
  const errorType = boundedLabel(
    options.labelLimits?.errorType ?? DEFAULT_LABEL_LIMITS.errorType,
    KNOWN_ERROR_TYPES,
  );

  const duration = (name: string, description: string) =>
    meter.createHistogram(name, {
      unit: 's',
      description,
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  const servedDuration = duration(
    'mcp.server.operation.duration',
    'MCP requests answered for clients, from receipt to result',
  );
  const sentDuration = duration(
    'mcp.client.operation.duration',
    "MCP requests sent to upstream servers on a client's behalf, until their result",
  );
  const toolCalls = meter.createCounter('mcpx.tool.calls', {
    unit: '{call}',
    description: 'tools/call requests answered, by server, tool and outcome (ok, tool_error, error)',
  });
  const errors = meter.createCounter('mcpx.errors', {
    unit: '{error}',
    description: 'Upstream requests that failed, by server, method and kind (error.type)',
  });
  const restarts = meter.createCounter('mcpx.upstream.restarts', {
    unit: '{restart}',
    description: 'Upstream servers started again after they ran, stopped or failed',
  });
  const connections = meter.createObservableGauge('mcpx.upstream.connections', {
    unit: '{connection}',
    description: 'Upstream servers by lifecycle state',
  });
  const sessions = meter.createObservableGauge('mcpx.sessions', {
    unit: '{session}',
    description: 'Downstream sessions open: gateway clients, or callers of a daemon instance',
  });

  const sources = new Set<MetricsSource>();
  connections.addCallback((result) => {
    const counts = new Map<string, { attributes: Attributes; count: number }>();
    for (const source of sources)
      for (const c of source.connections?.() ?? []) {
        const attributes = {
          'mcpx.server': server(c.server),
          'mcpx.state': c.state,
          ...(c.instance === undefined ? {} : { 'mcpx.instance': c.instance }),
        };
        const key = JSON.stringify(attributes);
        const seen = counts.get(key) ?? { attributes, count: 0 };
        seen.count += 1;
        counts.set(key, seen);
      }
    for (const { attributes, count } of counts.values()) result.observe(count, attributes);
  });
  sessions.addCallback((result) => {
    for (const source of sources)
      for (const s of source.sessions?.() ?? [])
        result.observe(s.count, {
          ...(s.server === undefined ? {} : { 'mcpx.server': server(s.server) }),
          ...(s.instance === undefined ? {} : { 'mcpx.instance': s.instance }),
        });
  });

  const attributesOf = operationAttributes({ server, tool, method, errorType });
  const recordServed = (op: Operation, tally: Tally) => {
    const { attributes, toolCall } = attributesOf(op);
    servedDuration.record(op.seconds, attributes);
    if (toolCall) tally.add(toolCalls, toolCall);
  };
  const recordSent = (op: Operation, tally: Tally) => {
    const { attributes } = attributesOf(op);
    sentDuration.record(op.seconds, attributes);
    if (op.errorType !== undefined && op.errorType !== TOOL_ERROR) tally.add(errors, attributes);
  };
  const later = afterTheTurn();

  return {
    otlp,
    served: (op) => later(recordServed, op),
    sent: (op) => later(recordSent, op),
    watchRestarts(registry, instance) {
      return registry.on((event) => {
        if (event.type !== 'state' || event.state !== 'starting' || event.previous === 'created') return;
        restarts.add(1, {
          'mcpx.server': server(event.server),
          ...(instance === undefined ? {} : { 'mcpx.instance': instance }),
        });
      });
    },
    observe(source) {
      sources.add(source);
      return () => sources.delete(source);
    },
    prometheus: () => {
      later.flush();
      return pull.text();
    },
    // The last push, bounded: a collector that does not answer must not hold the process's exit.
    shutdown: () => {
      later.flush();
      return Promise.race([
        provider.shutdown().catch(() => {}),
        delay(SHUTDOWN_MS, undefined, { ref: false }),
      ]);
    },
  };
}

/** The label caps, one per attribute an operation carries. */
interface Labels {
  readonly server: (value: string) => string;
  readonly tool: (value: string) => string;
  readonly method: (value: string) => string;
  readonly errorType: (value: string) => string;
}

/** What one kind of operation is recorded under. */
interface OperationAttributes {
  /** Its durations' (and, when it failed, `mcpx.errors`'). */
  readonly attributes: Attributes;
  /** `mcpx.tool.calls`', for a `tools/call` whose server is known. */
  readonly toolCall: Attributes | undefined;
}

/** Kinds of operation remembered before the memo starts over (their inputs come from outside). */
const REMEMBERED_KINDS = 10_000;

/**
 * The attributes of each kind of operation (its method, server, tool and error type), every value
 * capped, worked out the first time and then the same object. With the turn's one `add` per
 * counter (`afterTheTurn`), it took the daemon's recording from 140 to 78 ms of CPU per 23,400
 * calls with 200 in flight (profiled). A tool is named only with its server (a client's unknown
 * name is not).
 */
function operationAttributes(labels: Labels): (op: Operation) => OperationAttributes {
  // Nested by field rather than one joined key: any string may hold any separator.
  let memo = new Map<
    string,
    Map<string | undefined, Map<string | undefined, Map<string | undefined, OperationAttributes>>>
  >();
  let kinds = 0;
  const build = (op: Operation): OperationAttributes => {
    const named = {
      ...(op.server === undefined ? {} : { 'mcpx.server': labels.server(op.server) }),
      ...(op.server !== undefined && op.tool !== undefined
        ? { 'gen_ai.tool.name': labels.tool(op.tool) }
        : {}),
    };
    return {
      attributes: {
        'mcp.method.name': labels.method(op.method),
        ...named,
        ...(op.errorType === undefined ? {} : { 'error.type': labels.errorType(op.errorType) }),
      },
      toolCall:
        op.method === 'tools/call' ? { ...named, 'mcpx.outcome': outcomeOf(op.errorType) } : undefined,
    };
  };
  return (op) => {
    if (kinds >= REMEMBERED_KINDS) {
      memo = new Map();
      kinds = 0;
    }
    const byServer = memo.get(op.method) ?? setAndGet(memo, op.method, new Map());
    const byTool = byServer.get(op.server) ?? setAndGet(byServer, op.server, new Map());
    const byError = byTool.get(op.tool) ?? setAndGet(byTool, op.tool, new Map());
    let found = byError.get(op.errorType);
    if (!found) {
      found = build(op);
      byError.set(op.errorType, found);
      kinds += 1;
    }
    return found;
  };
}

function setAndGet<K, V>(map: Map<K, V>, key: K, value: V): V {
  map.set(key, value);
  return value;
}

/** Counter increments of one turn, added once per counter and attributes when it ends. */
interface Tally {
  add(counter: Counter, attributes: Attributes): void;
}

/** Records held until the event loop's turn ends, and `flush()` to make them now. */
interface AfterTheTurn {
  (record: (op: Operation, tally: Tally) => void, op: Operation): void;
  flush(): void;
}

/**
 * Records made after the turn that asked for them (a `setImmediate`), so that the
 * OpenTelemetry instruments' work (attribute hashing, histogram buckets: ≈10 µs per relayed
 * call, three records) comes after the answer is written, while its client reads it, instead of
 * before. A turn's counter increments under the same attributes are one `add`: with calls in
 * flight, a turn answers many calls of the same tool. Nothing is lost or read stale: a scrape and
 * the shutdown flush first.
 */
function afterTheTurn(): AfterTheTurn {
  const held: [(op: Operation, tally: Tally) => void, Operation][] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const counts = new Map<Counter, Map<Attributes, number>>();
    const tally: Tally = {
      add(counter, attributes) {
        const byAttributes = counts.get(counter) ?? setAndGet(counts, counter, new Map());
        byAttributes.set(attributes, (byAttributes.get(attributes) ?? 0) + 1);
      },
    };
    for (const [record, op] of held.splice(0)) {
      try {
        record(op, tally);
      } catch {
        // Out of any request now: a figure that cannot be recorded must not end the process.
      }
    }
    for (const [counter, byAttributes] of counts)
      for (const [attributes, n] of byAttributes) {
        try {
          counter.add(n, attributes);
        } catch {
          // As above.
        }
      }
  };
  const later = (record: (op: Operation, tally: Tally) => void, op: Operation) => {
    held.push([record, op]);
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
  return Object.assign(later, { flush });
}

function outcomeOf(errorType: string | undefined): string {
  if (errorType === undefined) return 'ok';
  return errorType === TOOL_ERROR ? TOOL_ERROR : 'error';
}
