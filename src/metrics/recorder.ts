/**
 * What the long-running processes (the gateway, the daemon) tell their metrics. The
 * interface alone, so that the gateway and the daemon depend on it without loading the
 * OpenTelemetry SDK: `createMetrics()` (imported lazily by the front end) makes one.
 */

/** One MCP request, answered (`served`) or sent upstream on a client's behalf (`sent`). */
export interface Operation {
  /** `tools/call`, `resources/read`, … (`mcp.method.name`). */
  readonly method: string;
  /** The upstream server it concerns, when one is known. */
  readonly server?: string;
  /** The tool, for a `tools/call` whose server is known (`gen_ai.tool.name`). */
  readonly tool?: string;
  readonly seconds: number;
  /**
   * Why it failed (`error.type`): `tool_error` for a tool's own error result, a JSON-RPC error
   * code, or mcpx's error code; absent when it succeeded.
   */
  readonly errorType?: string;
}

/** An upstream connection's lifecycle state now (`created`, `starting`, `ready`, …). */
export interface ConnectionState {
  readonly server: string;
  readonly state: string;
  /** Which instance of the server (the daemon's environment tag); absent for the gateway's. */
  readonly instance?: string;
}

/** Downstream sessions open now: the gateway's clients, or the callers of one daemon instance. */
export interface SessionCount {
  readonly count: number;
  readonly server?: string;
  readonly instance?: string;
}

/** What is read whenever the metrics are collected (a scrape, an OTLP export). */
export interface MetricsSource {
  connections?(): Iterable<ConnectionState>;
  sessions?(): Iterable<SessionCount>;
}

/** A registry's state changes, as far as restarts are concerned (a `ServerRegistry` is one). */
export interface StateEvents {
  on(
    listener: (event: {
      readonly type: string;
      readonly server: string;
      readonly state?: string;
      readonly previous?: string;
    }) => void,
  ): () => void;
}

export interface MetricsRecorder {
  /** A client's request the process answered (`mcp.server.operation.duration`, `mcpx.tool.calls`). */
  served(operation: Operation): void;
  /** A request sent to an upstream server (`mcp.client.operation.duration`, `mcpx.errors`). */
  sent(operation: Operation): void;
  /** Count a registry's servers starting again after they ran or failed (`mcpx.upstream.restarts`). */
  watchRestarts(registry: StateEvents, instance?: string): () => void;
  /** Report this source's connections and sessions at every collection. Returns a function to stop. */
  observe(source: MetricsSource): () => void;
}

/** A recorder whose figures can be read in the Prometheus text format (what `GET /metrics` answers). */
export interface ServingMetrics extends MetricsRecorder {
  prometheus(): Promise<string>;
}
