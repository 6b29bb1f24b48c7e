import { ErrorCode, McpxError } from '../../errors/index.js';

/** Flags every command accepts. */
export interface GlobalOptions {
  readonly config?: string;
  readonly json?: boolean;
  readonly verbose?: boolean;
  /** Seconds, applied to connecting and to the request. */
  readonly timeout?: string;
  readonly stdio?: string;
  readonly url?: string;
  readonly sse?: boolean;
  /** With --stdio: `K=V` variables for the server (repeatable). */
  readonly env?: readonly string[];
  /** With --stdio: the server's working directory. */
  readonly cwd?: string;
  /** With --stdio or --url: the server's name. */
  readonly name?: string;
  /** `--audit-log FILE`, or `--no-audit-log` (false). */
  readonly auditLog?: string | false;
  /** OpenTelemetry traces for this run (`mcpx doctor --trace`: a waterfall in the terminal). */
  readonly trace?: boolean;
  /** With tracing on: tool arguments and results on the spans, secrets masked. */
  readonly traceContent?: boolean;
}

/** A usage error: bad command, flag or argument (exit 1). */
export function usageError(message: string, fix?: string): McpxError {
  return new McpxError(ErrorCode.Usage, message, fix ? { fixes: [fix] } : {});
}

/** `--timeout` in ms, or undefined. Throws a usage error for nonsense. */
export function timeoutMs(options: GlobalOptions): number | undefined {
  if (options.timeout === undefined) return undefined;
  const seconds = Number(options.timeout);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw usageError(
      `--timeout takes a positive number of seconds, got '${options.timeout}'`,
      'e.g. --timeout 30',
    );
  }
  return Math.round(seconds * 1000);
}
