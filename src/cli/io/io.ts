import type { CallerElicitation } from '../../daemon-client/light.js';
import type { DaemonCaller } from '../../daemon-client/route.js';
import type { SafeText, Terminal } from '../../text/index.js';

/**
 * Everything the CLI touches of its process, injected so tests can run it in-process.
 * What it writes for people is {@link SafeText} only (made by `text/`'s sanitiser,
 * `say` or the JSON writer), and its prompts draw on {@link Terminal}: the one funnel
 * to the terminal (`scripts/check-terminal-writes.mjs` keeps every other way out).
 */
export interface CliIo {
  /**
   * Text for people or scripts, or bytes where exact content was asked for: `read --raw`
   * (a resource's bytes), and `config export`'s file text into a pipe. No other way
   * lets raw content out.
   */
  readonly stdout: { write(chunk: SafeText | Uint8Array): unknown };
  readonly stderr: { write(chunk: SafeText): unknown };
  /**
   * The person's terminal (stdin for keys, stderr for drawing), where prompts and the
   * console's line editor go; set when this process has one (`interactive`).
   */
  readonly terminal?: Terminal;
  /**
   * stdout as a byte channel for a protocol, never a person's text: `mcpx serve`'s
   * JSON-RPC over stdio (and the thin serve's bridge to the daemon).
   */
  readonly protocolOut?: NodeJS.WritableStream;
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
  readonly confirm?: (question: SafeText) => Promise<boolean>;
  /** Asks for a line of text on the terminal, without echo when `secret`; only called when `interactive`. */
  readonly ask?: (question: SafeText, options: { readonly secret: boolean }) => Promise<string>;
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
   * (src/cli/daemon-handoff/light-caller.ts): it may use only servers the daemon holds.
   */
  readonly daemonCaller?: DaemonCaller;
}
