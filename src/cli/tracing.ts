/**
 * Tracing for one command: switched on by `--trace` or OpenTelemetry's variables (see
 * `tracing/switch.ts`), the SDK then loaded, the whole command one root span, and what is
 * pending exported before the process ends. `mcpx doctor --trace` keeps its spans in memory
 * to draw them instead.
 */
import { SpanKind } from '@opentelemetry/api';
import { say } from '../text/index.js';
import {
  inSpan,
  mcpxTracer,
  type ReadableSpan,
  recordTraceContent,
  type Tracing,
  tracingWanted,
} from '../tracing/index.js';
import type { CliIo } from './io/io.js';

export interface CliTracing {
  /** Runs the command as its root span (`mcpx <command>`). */
  run<T>(command: string, work: () => Promise<T>): Promise<T>;
  /** The spans kept so far (`memory` only). */
  spans(): readonly ReadableSpan[];
  /** Exports what is pending (bounded: a receiver that does not answer cannot hold the exit). */
  end(): Promise<void>;
}

export interface CliTracingOptions {
  readonly trace: boolean;
  readonly traceContent: boolean;
  /** Spans kept for the command to show (`mcpx doctor --trace`), not exported. */
  readonly memory: boolean;
}

// How long the end of a command waits for its spans to be accepted (one export, retries included).
const EXPORT_GRACE_MS = 2_000;

let active: CliTracing | undefined;

const LONG_RUNNING = new Set(['serve', 'daemon', 'shell', 'console']);

/** The tracing this command runs with (`mcpx doctor --trace` reads its spans). */
export function commandTracing(): CliTracing | undefined {
  return active;
}

/** Spans watched by a command that shows them (`mcpx console`'s connect waterfalls). */
export interface SpanWatch {
  /** Tells `tap` of every span this process ends; returns the undo. */
  watch(tap: (span: ReadableSpan) => void): () => void;
  /** Ends the tracing started for the watch, if it was. */
  end(): Promise<void>;
}

/**
 * Every span this process ends, for a command that shows them. A command run untraced gets
 * tracing of its own, kept in this process: no exporter, no trace context sent to its servers.
 */
export async function watchCommandSpans(): Promise<SpanWatch> {
  const { startTracing, tapSpans } = await import('../tracing/start.js');
  const own = active ? undefined : await startTracing({ exporter: 'none' });
  return { watch: tapSpans, end: async () => own?.shutdown() };
}

/** Starts tracing when asked for, or `undefined` (and nothing loaded) when not. */
export async function startCliTracing(
  options: CliTracingOptions,
  io: CliIo,
): Promise<CliTracing | undefined> {
  // A light caller's command, run inside the daemon: the daemon's own tracing (if any) is the process's.
  if (io.daemonCaller) return undefined;
  const wanted = options.memory ? undefined : tracingWanted(io.env, options.trace);
  if (!options.memory && !wanted) return undefined;
  const { startTracing } = await import('../tracing/start.js');
  const tracing: Tracing = await startTracing({
    exporter: options.memory ? 'memory' : 'otlp',
    ...(wanted ? { serviceName: wanted.serviceName } : {}),
    env: io.env,
    exportTimeoutMs: EXPORT_GRACE_MS,
  });
  recordTraceContent(options.traceContent);
  if (options.trace && wanted?.defaultEndpoint)
    io.stderr.write(
      say`mcpx: --trace sends spans to ${wanted.endpoint} (the OTLP default); set OTEL_EXPORTER_OTLP_ENDPOINT to send them elsewhere\n`,
    );
  const tracer = mcpxTracer(tracing.provider);
  const cli: CliTracing = {
    // A process that serves (the gateway, the daemon) has no root span: each request it serves is a trace.
    run: (command, work) =>
      LONG_RUNNING.has(command.split(' ')[0] as string)
        ? work()
        : inSpan(
            tracer,
            `mcpx ${command}`,
            { kind: SpanKind.INTERNAL, attributes: { 'mcpx.command': command } },
            work,
          ),
    spans: () => tracing.spans(),
    end: async () => {
      if (active === cli) active = undefined;
      recordTraceContent(false);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        tracing.shutdown(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, EXPORT_GRACE_MS);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    },
  };
  active = cli;
  return cli;
}
