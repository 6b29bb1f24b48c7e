import { errorToJson, formatError, type McpxError } from '../errors/index.js';
import { forTerminal } from '../tools/sanitize.js';
import { ExitCode, exitCodeFor } from './exit-codes.js';
import type { ServerOutcome } from './fan-out.js';
import { toJson } from './output/json.js';
import type { CliSession } from './session.js';

/** Print each failed server's error on stderr; the exit code of the first failure, or 0. */
export function reportFailures(session: CliSession, outcomes: readonly ServerOutcome<unknown>[]): number {
  let code: number = ExitCode.Ok;
  for (const outcome of outcomes) {
    if (outcome.ok) continue;
    writeError(session, outcome.error);
    if (code === ExitCode.Ok) code = exitCodeFor(outcome.error.code);
  }
  return code;
}

/**
 * An error as text for a terminal. Errors carry what servers said (stderr
 * lines, error messages, OAuth error descriptions), so terminal controls go
 * and hidden characters show.
 */
export function renderError(error: McpxError, verbose: boolean): string {
  return forTerminal(formatError(error, { verbose }));
}

/** The one place the CLI renders an error: JSON with --json, full with --verbose, else one line. */
export function writeError(session: Pick<CliSession, 'io' | 'options'>, error: McpxError): void {
  const { io, options } = session;
  // JSON keeps what the server said, with every control character escaped.
  const text = options.json
    ? toJson(errorToJson(error), 0)
    : `${renderError(error, options.verbose === true)}\n`;
  io.stderr.write(text);
}
