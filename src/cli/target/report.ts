import { errorToJson, formatError, type McpxError } from '../../errors/index.js';
import { forTerminal, type SafeText, say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { ExitCode, exitCodeFor } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import type { ServerOutcome } from './fan-out.js';

/** Print each failed server's error on stderr; the exit code of the first failure, or 0. */
export function reportFailures(session: CliContext, outcomes: readonly ServerOutcome<unknown>[]): number {
  const errors = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.error]));
  writeErrors(session, errors);
  const first = errors[0];
  return first ? exitCodeFor(first.code) : ExitCode.Ok;
}

/**
 * Several servers' errors at once. With --json they stay one JSON object, as
 * promised for stderr: `error` is the first (what a one-failure reader expects)
 * and `errors` lists them all when there is more than one (see `json-stderr.ts`).
 */
export function writeErrors(session: Pick<CliContext, 'io' | 'options'>, errors: readonly McpxError[]): void {
  const [first] = errors;
  if (!first) return;
  if (session.io.jsonStderr || !session.options.json || errors.length === 1) {
    for (const error of errors) writeError(session, error);
    return;
  }
  const all = errors.map((error) => errorToJson(error).error);
  session.io.stderr.write(toJson({ error: all[0], errors: all }, 0));
}

/**
 * An error as text for a terminal. Errors carry what servers said (stderr
 * lines, error messages, OAuth error descriptions), so terminal controls go
 * and hidden characters show; paths under `home` read `~/…`.
 */
export function renderError(error: McpxError, verbose: boolean, home: string): SafeText {
  return forTerminal(formatError(error, { verbose, home }));
}

/** The one place the CLI renders an error: JSON with --json, full with --verbose, else one line. */
export function writeError(session: Pick<CliContext, 'io' | 'options'>, error: McpxError): void {
  const { io, options } = session;
  if (io.jsonStderr) {
    io.jsonStderr.error(error);
    return;
  }
  // JSON keeps what the server said, with every control character escaped.
  const text = options.json
    ? toJson(errorToJson(error), 0)
    : say`${renderError(error, options.verbose === true, io.homedir)}\n`;
  io.stderr.write(text);
}
