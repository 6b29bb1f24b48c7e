import type { CallerElicitation } from '../daemon/light.js';
import type { DaemonCaller } from '../daemon/route.js';

/** Everything the CLI touches of its process, injected so tests can run it in-process. */
export interface CliIo {
  /** Text, or bytes (`read --raw`). */
  readonly stdout: { write(chunk: string | Uint8Array): unknown };
  readonly stderr: { write(chunk: string): unknown };
  /**
   * With --json: the one JSON object stderr carries, written when the command
   * ends (`stderr` then writes into its `warnings`; errors go to it whole).
   */
  readonly jsonStderr?: import('./json-stderr.js').JsonStderr;
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
  /** Asks for a line of text on the terminal, without echo when `secret`; only called when `interactive`. */
  readonly ask?: (question: string, options: { readonly secret: boolean }) => Promise<string>;
  /** Fires on Ctrl-C. */
  readonly signal: AbortSignal;
  /**
   * Cancels as Ctrl-C's signal does. For prompts: a terminal in raw mode hands
   * Ctrl-C over as a key, so the prompt that reads it passes it on here.
   */
  readonly cancel?: () => void;
  /**
   * Take Ctrl-C for a while: until the returned function is called, Ctrl-C calls
   * `handler` instead of cancelling the command (a console cancels one call, not itself).
   */
  readonly onInterrupt?: (handler: () => void) => () => void;
  /**
   * Run `handler` (synchronously) when a second Ctrl-C ends the command at once,
   * before the process exits.
   */
  readonly onForcedExit?: (handler: () => void) => void;
  /**
   * Take SIGHUP for a while: until the returned function is called, a hang-up
   * calls `handler` instead of cancelling the command (`mcpx serve` reloads its config).
   */
  readonly onHangup?: (handler: () => void) => () => void;
  readonly columns?: number;
  /**
   * Show a sign-in URL where the person is and open their browser there.
   * Set for a light caller's command in the daemon: the caller's terminal
   * and desktop, not the daemon's. Absent: this process shows it itself.
   */
  readonly presentSignIn?: (server: string, url: string) => Promise<void>;
  /**
   * Ask a server's question (elicitation) where the person is. Set for a light
   * caller's command in the daemon, when the caller has a terminal: asked there,
   * with the prompts the direct path uses. Absent: this process asks at its own
   * terminal (when it has one). Resolves undefined when nobody answered.
   */
  readonly elicit?: (
    server: string,
    request: CallerElicitation,
  ) => Promise<Readonly<Record<string, unknown>> | undefined>;
  /**
   * Set when this command runs inside the keep-alive daemon for a light caller
   * (src/cli/light-caller.ts): it may use only servers the daemon holds.
   */
  readonly daemonCaller?: DaemonCaller;
}
