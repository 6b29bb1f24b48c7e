import { createWriteStream } from 'node:fs';
import type { RequestEvent } from '../gateway/index.js';
import { toJson } from './output/json.js';

/** `mcpx serve --access-log FILE|-`: one JSON line per request a client made. */
export interface AccessLog {
  readonly record: (event: RequestEvent) => void;
  /** Everything recorded so far is written (SIGTERM, stdin closed). */
  close(): Promise<void>;
}

export interface AccessLogOptions {
  /** A file to append to, or `-` for stderr. */
  readonly target: string;
  /** `--log-arguments`: include each call's arguments. */
  readonly logArguments: boolean;
  readonly stderr: { write(text: string): unknown };
  /** Tells the person running the gateway, once, that the file cannot be written. */
  readonly notice: (message: string) => void;
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
  const line = (event: RequestEvent) => {
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
  if (options.target === '-')
    return { record: (event) => void options.stderr.write(line(event)), close: async () => {} };
  const file = createWriteStream(options.target, { flags: 'a', mode: 0o600 });
  let failed = false;
  file.on('error', (error) => {
    if (failed) return;
    failed = true;
    options.notice(
      `mcpx serve: the access log ${options.target} cannot be written, logging stops: ${error.message}`,
    );
  });
  return {
    record: (event) => {
      if (!failed) file.write(line(event));
    },
    close: () =>
      new Promise((resolve) => {
        if (failed || file.destroyed) resolve();
        else file.end(() => resolve());
      }),
  };
}
