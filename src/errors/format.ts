import { ErrorCode } from './codes.js';
import { displayPath, displayPaths } from './display-path.js';
import { type ErrorContext, McpxError } from './mcpx-error.js';

/** How `formatError` renders an error: one line or the full block, with or without the stack, paths under the home shown as `~/…`. */
export interface FormatOptions {
  /** Full block (context, causes, fixes, stderr tail) instead of one line. */
  readonly verbose?: boolean;
  /** Include the stack trace (only ever with an explicit debug flag). */
  readonly stack?: boolean;
  /**
   * The person's home folder: paths inside it are shown as `~/…` (see `display-path.ts`).
   * Without it, paths are shown as they are.
   */
  readonly home?: string;
}

/** Any thrown value as an McpxError, so every caller formats one shape. */
export function toMcpxError(error: unknown): McpxError {
  if (error instanceof McpxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new McpxError(ErrorCode.Internal, `Unexpected error: ${message}`, {
    cause: error,
    fixes: ['Run again with --verbose and report the output if the problem persists.'],
  });
}

function where(context: ErrorContext): string {
  return context.origin ? formatOrigin(context.origin) : '';
}

/**
 * Where something is configured, as people read it: `file:line:column (layer config)`, the file
 * as `~/…` when `home` is given and holds it.
 */
export function formatOrigin(origin: NonNullable<ErrorContext['origin']>, home?: string): string {
  if (!origin.file) return origin.layer ? `${origin.layer} config` : '';
  const position =
    origin.line === undefined
      ? ''
      : `:${origin.line}${origin.column === undefined ? '' : `:${origin.column}`}`;
  return `${displayPath(origin.file, home)}${position}${origin.layer ? ` (${origin.layer} config)` : ''}`;
}

/**
 * One line: `[server] message (file:line)`. This is what a person sees by
 * default; it must say what happened and where.
 */
export function formatErrorLine(error: unknown, options: Pick<FormatOptions, 'home'> = {}): string {
  const e = toMcpxError(error);
  // "error: db: server 'db' exited" says the name twice; say it once.
  const named = e.context.server && !e.message.includes(`'${e.context.server}'`);
  const server = named ? `${e.context.server}: ` : '';
  const location = where(e.context);
  const alreadyNamesFile =
    location !== '' && e.context.origin?.file && e.message.includes(e.context.origin.file);
  const layer = e.context.origin?.layer ? ` (${e.context.origin.layer} config)` : '';
  const suffix = !location ? '' : alreadyNamesFile ? layer : ` (${location})`;
  const fix = e.fixes[0] ? ` — ${e.fixes[0]}` : '';
  return displayPaths(`error: ${server}${e.message}${suffix}${fix}`, options.home);
}

/** The full story: what, where, why, how to fix. */
export function formatErrorVerbose(error: unknown, options: FormatOptions = {}): string {
  const e = toMcpxError(error);
  const c = e.context;
  const lines = [`error [${e.code}]: ${e.message}`];
  const add = (label: string, value: unknown) => {
    if (value !== undefined && value !== null && value !== '') lines.push(`  ${label.padEnd(10)} ${value}`);
  };
  add('server', c.server);
  add('config', where(c));
  add('field', c.field);
  add('expected', c.expected);
  add('received', c.received);
  add('command', c.command);
  add('url', c.url);
  add('folder', c.folder);
  add('tool', c.tool);
  add('skill', c.skill);
  add('file', c.skillFile);
  add('exit code', c.exitCode);
  add('signal', c.signal);
  add('timeout', c.timeoutMs === undefined ? undefined : `${c.timeoutMs} ms`);
  add('attempts', c.attempts);
  add('http status', c.httpStatus);
  if (c.excerpt?.length) {
    lines.push('');
    for (const line of c.excerpt) lines.push(`    ${line}`);
  }
  if (c.stderrTail?.length) {
    lines.push('', '  last stderr lines:');
    for (const line of c.stderrTail) lines.push(`    | ${line}`);
  }
  if (e.causes.length) {
    lines.push('', '  likely causes:');
    for (const cause of e.causes) lines.push(`    - ${cause}`);
  }
  if (e.fixes.length) {
    lines.push('', '  to fix:');
    for (const fix of e.fixes) lines.push(`    - ${fix}`);
  }
  const underlying = e.cause instanceof Error ? e.cause.message : undefined;
  if (underlying && underlying !== e.message) lines.push('', `  underlying: ${underlying}`);
  if (options.stack && e.stack) lines.push('', e.stack);
  return displayPaths(lines.join('\n'), options.home);
}

/** The one line, or with `verbose` the full story; paths under `home` as `~/…`. */
export function formatError(error: unknown, options: FormatOptions = {}): string {
  return options.verbose ? formatErrorVerbose(error, options) : formatErrorLine(error, options);
}

/** The `--json` shape: `{"error": {"code", "message", "server", ...}}`, every path as it is. */
export function errorToJson(error: unknown): { error: Record<string, unknown> } {
  const e = toMcpxError(error);
  // `signIn` is the daemon's note to its caller (which scope a sign-in needs), not part of the report.
  const { origin, signIn: _signIn, ...rest } = e.context;
  return {
    error: {
      code: e.code,
      message: e.message,
      ...rest,
      ...(origin
        ? { configFile: origin.file, layer: origin.layer, line: origin.line, column: origin.column }
        : {}),
      ...(e.causes.length ? { causes: e.causes } : {}),
      ...(e.fixes.length ? { fixes: e.fixes } : {}),
    },
  };
}
