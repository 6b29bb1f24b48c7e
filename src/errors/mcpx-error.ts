import type { ErrorCode } from './codes.js';

/** Where a configured server came from, for messages that must say "which file". */
export interface ErrorOrigin {
  /** Layer name: global, ancestor, project, explicit (--config), builtin, adhoc. */
  readonly layer?: string;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
}

/**
 * Structured context every mcpx error may carry. Fields are optional; the
 * formatter prints the ones present.
 */
export interface ErrorContext {
  readonly server?: string;
  readonly origin?: ErrorOrigin;
  /** The config field at fault, as a dotted path (`mcpServers.fs.args[1]`). */
  readonly field?: string;
  readonly expected?: string;
  readonly received?: string;
  readonly command?: string;
  readonly url?: string;
  /** A folder on disk the error is about (a damaged npx cache folder). */
  readonly folder?: string;
  readonly tool?: string;
  /** The skill (SEP-2640) the error is about, by its name on the server. */
  readonly skill?: string;
  /** The skill file the error is about (its `skill://` URI). */
  readonly skillFile?: string;
  /** The client capabilities a server's request needed and the host did not declare (`elicitation`, `sampling`, `roots`). */
  readonly capabilities?: readonly string[];
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  /** The last lines the server wrote to stderr, oldest first. */
  readonly stderrTail?: readonly string[];
  readonly timeoutMs?: number;
  readonly attempts?: number;
  /** The HTTP status a remote server answered with (the last one, after retries). */
  readonly httpStatus?: number;
  /** The server exited before mcpx had sent it anything (so no request of mcpx's made it exit). */
  readonly exitedBeforeInput?: boolean;
  /** Free-form extra lines for the verbose rendering (e.g. a source excerpt with a pointer). */
  readonly excerpt?: readonly string[];
  /**
   * A sign-in at the person's terminal would cure this (a server held by the
   * daemon refused its token): the scope to ask for, when one is known.
   */
  readonly signIn?: { readonly scope?: string };
}

/** What an `McpxError` is made with: its context (server, file, …), likely causes and fixes, and the error under it. */
export interface McpxErrorOptions extends ErrorContext {
  /** Likely causes, most likely first. */
  readonly causes?: readonly string[];
  /** What the user can do about it, one action per entry. */
  readonly fixes?: readonly string[];
  readonly cause?: unknown;
}

/**
 * The one base class of every error mcpx raises on purpose. `code` is stable;
 * `message` is the one-line summary; the formatter (`formatError`) renders the
 * full story from `context`, `causes` and `fixes`.
 *
 * Classify where the error is raised: callers switch on `code`, never on text.
 */
export class McpxError extends Error {
  override readonly name: string = 'McpxError';
  readonly code: ErrorCode;
  readonly context: ErrorContext;
  readonly causes: readonly string[];
  readonly fixes: readonly string[];

  constructor(code: ErrorCode, message: string, options: McpxErrorOptions = {}) {
    const { causes = [], fixes = [], cause, ...context } = options;
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.context = context;
    this.causes = causes;
    this.fixes = fixes;
  }

  /** A copy with more context (e.g. the server name added by an outer layer). */
  withContext(extra: ErrorContext): McpxError {
    const copy = new McpxError(this.code, this.message, {
      ...this.context,
      ...extra,
      causes: this.causes,
      fixes: this.fixes,
      cause: this.cause,
    });
    copy.stack = this.stack;
    return copy;
  }
}

/** Narrowing helper that also works across duplicated module instances. */
export function isMcpxError(value: unknown): value is McpxError {
  return value instanceof McpxError;
}
