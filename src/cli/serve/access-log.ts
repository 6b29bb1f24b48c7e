import { createWriteStream } from 'node:fs';
import type { AuditRecord, AuditSink } from '../../audit/index.js';
import type { RequestEvent } from '../../gateway/index.js';
import { toJson } from '../output/json.js';

/**
 * `mcpx serve --access-log FILE|-`: one JSON line per request a client made. A sink of the audit
 * trail for `tools/call` (the gateway's calls, as the audit log records them), and of the
 * gateway's other requests (lists, reads, prompts), in one line format.
 */
export interface AccessLog extends AuditSink {
  /** One request's line (`mcpx serve` hands it the gateway's requests but `tools/call`, which come as audit records). */
  readonly record: (event: RequestEvent) => void;
  /** Everything recorded so far is written (SIGTERM, stdin closed). */
  close(): Promise<void>;
}

export interface AccessLogOptions {
  /** A file to append to, or `-` for stderr. */
  readonly target: string;
  /** `--log-arguments`: include each call's arguments (values of secret-looking keys masked). */
  readonly logArguments: boolean;
  readonly stderr: { write(text: string): unknown };
  /** Tells the person running the gateway, once, that the file cannot be written. */
  readonly notice: (message: string) => void;
}

/** One line's request; `inputRequired`: it ended in an `input_required` round (2026-07-28). */
type LoggedRequest = RequestEvent & { readonly inputRequired?: true };

/** A tool call of the audit trail as the access log has always written one. */
function callEvent(record: AuditRecord): RequestEvent {
  return {
    client: record.session ?? record.client,
    method: 'tools/call',
    ...(record.server === undefined ? {} : { server: record.server }),
    tool: record.tool,
    arguments: record.arguments,
    durationMs: record.durationMs,
    // A refusal is an `isError` result to the client.
    outcome:
      record.outcome === 'ok'
        ? 'ok'
        : record.outcome === 'tool-error' || record.outcome === 'refused'
          ? 'tool-error'
          : 'error',
  };
}

/**
 * The log is written behind the requests, not in their path: lines go to an
 * append stream, which writes whatever piled up while the previous write was
 * in the kernel as one write. A synchronous append per request held every
 * client's reply for a file system call.
 */
export function openAccessLog(options: AccessLogOptions): AccessLog {
  // Tool names come from servers and clients: escaped as --json escapes them (C1 controls,
  // bidi, zero-width and tag characters too), so a terminal tailing the log shows them inert.
  const line = (event: LoggedRequest) => {
    const { arguments: args, ...rest } = event;
    return toJson(
      {
        time: new Date().toISOString(),
        ...rest,
        ...(options.logArguments && args !== undefined ? { arguments: args } : {}),
      },
      0,
    );
  };
  const sink = (write: (event: LoggedRequest) => void, close: () => Promise<void>): AccessLog => ({
    record: write,
    // Only the gateway's calls: nothing else of this process is a client's request.
    write: (record) => {
      if (record.client === 'gateway') write(callEvent(record));
    },
    // Each request is a line, an input round too (marked: the call goes on in the client's next request).
    round: (record) => {
      if (record.client === 'gateway') write({ ...callEvent(record), inputRequired: true });
    },
    close,
  });
  if (options.target === '-')
    return sink(
      (event) => void options.stderr.write(line(event)),
      async () => {},
    );
  const file = createWriteStream(options.target, { flags: 'a', mode: 0o600 });
  let failed = false;
  file.on('error', (error) => {
    if (failed) return;
    failed = true;
    options.notice(
      `mcpx serve: the access log ${options.target} cannot be written, logging stops: ${error.message}`,
    );
  });
  return sink(
    (event) => {
      if (!failed) file.write(line(event));
    },
    () =>
      new Promise((resolve) => {
        if (failed || file.destroyed) resolve();
        else file.end(() => resolve());
      }),
  );
}
