/**
 * The SDK reports some conditions with `console.*` — a tool excluded for an invalid
 * `x-mcp-header` (SEP-2243), OAuth fallbacks, capability mismatches — and that text carries
 * what the server sent (a tool name can hold terminal escape sequences). The library never
 * prints, so while mcpx runs SDK code for a server those calls are captured and handed to the
 * host as {@link SdkDiagnostic}s instead.
 *
 * The capture is scoped by `AsyncLocalStorage`: `console` is wrapped, and a call is
 * diverted only when it happens inside {@link withSdkDiagnostics} (the SDK work of one
 * connection, and the callbacks that work schedules). Everywhere else `console` behaves as
 * before. Host callbacks mcpx invokes from inside a scope (progress, logs, list changes,
 * sampling and elicitation handlers) run through {@link outsideSdkScope}, so a host's own
 * `console.log` there still prints.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { formatWithOptions } from 'node:util';

/** What the SDK said through `console` while working for one server. Untrusted: sanitize before showing. */
export interface SdkDiagnostic {
  readonly server: string;
  readonly level: SdkDiagnosticLevel;
  /** The SDK's message as `console` would have formatted it, without colours. */
  readonly message: string;
}

/** The console level the SDK wrote a diagnostic at. */
export type SdkDiagnosticLevel = 'debug' | 'info' | 'log' | 'warn' | 'error';

const LEVELS: readonly SdkDiagnosticLevel[] = ['debug', 'info', 'log', 'warn', 'error'];

type Sink = (level: SdkDiagnosticLevel, message: string) => void;

const scope = new AsyncLocalStorage<Sink>();
const wrappers = new WeakSet<(...args: unknown[]) => void>();
/** Set by {@link claimConsole}: the process is mcpx's, and console output outside a scope is dropped. */
let claimed = false;

/**
 * Wraps each console method that is not already ours. Checked on every scope entry, not once:
 * a host or test framework that later replaces or restores `console.warn` would otherwise
 * silently undo the capture.
 */
function install(): void {
  for (const level of LEVELS) {
    const original = console[level];
    if (wrappers.has(original)) continue;
    const divert = function (this: Console, ...args: unknown[]) {
      const sink = scope.getStore();
      if (!sink) return claimed ? undefined : original.apply(this, args);
      try {
        sink(level, formatWithOptions({ colors: false }, ...args));
      } catch {
        // A failing host handler must not turn an SDK diagnostic into an SDK failure.
      }
    };
    wrappers.add(divert);
    console[level] = divert;
  }
}

/**
 * Runs `work` (SDK calls for `server`) with every `console.*` call it makes, directly or in
 * callbacks it schedules, handed to `onDiagnostic` instead of printed; without a handler
 * they are dropped.
 */
export function withSdkDiagnostics<T>(
  server: string,
  onDiagnostic: ((diagnostic: SdkDiagnostic) => void) | undefined,
  work: () => T,
): T {
  // Nobody to hand them to, and nothing else in the process that may print: no scope needed.
  if (claimed && !onDiagnostic) return work();
  install();
  const sink: Sink = (level, message) => onDiagnostic?.({ server, level, message });
  return scope.run(sink, work);
}

/**
 * For a long-lived front end whose process is mcpx's alone (`mcpx serve`, the keep-alive daemon):
 * whatever the SDK says through `console` is dropped wherever it is said, so work without a
 * diagnostics handler runs with no capture scope at all. The scope is an `AsyncLocalStorage`,
 * which on Node 20 turns on promise hooks for the whole process: ≈6% of the gateway's CPU per
 * call. Work with a handler (`--verbose`) is still scoped, so each diagnostic names its server.
 */
export function claimConsole(): void {
  claimed = true;
  install();
}

/** Runs a host callback outside any capture scope, so the host's own console output is its own. */
export function outsideSdkScope<A extends unknown[], R>(callback: (...args: A) => R): (...args: A) => R {
  return (...args) => scope.exit(() => callback(...args));
}
