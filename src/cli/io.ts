/** Everything the CLI touches of its process, injected so tests can run it in-process. */
export interface CliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  /** Lines for interactive commands (`mcpx chat`). */
  readonly stdin?: NodeJS.ReadableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** The user's home directory (for ~/.mcpx when MCPX_HOME is unset). */
  readonly homedir: string;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** True when a person can answer questions (stdin and stderr are terminals). */
  readonly interactive: boolean;
  /** Asks a yes/no question on the terminal; only called when `interactive`. */
  readonly confirm?: (question: string) => Promise<boolean>;
  /** Fires on Ctrl-C. */
  readonly signal: AbortSignal;
  /**
   * Take Ctrl-C for a while: until the returned function is called, Ctrl-C calls
   * `handler` instead of cancelling the command (a console cancels one call, not itself).
   */
  readonly onInterrupt?: (handler: () => void) => () => void;
  readonly columns?: number;
}
