/**
 * The light caller's protocol (`op: 'run'`): the CLI sends its command line and
 * its terminal's facts; the daemon runs the command with the CLI's own code and
 * sends back what the command writes, the questions it asks and its exit code.
 * A protocol of its own rather than MCP, for speed: speaking MCP means loading
 * the SDK client and zod in the caller (~230 ms of CPU), which is most of a warm
 * call. These lines need JSON.parse and a socket, nothing more.
 */

/** The socket protocol's version, in every request's first line (see `wire.ts`). Here, where the light caller loads nothing else. */
export const DAEMON_PROTOCOL = 'mcpx-daemon/2';

/** What the caller sends after the hello: one command, as its process would run it. */
export interface RunRequest {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly homedir: string;
  /** The caller's environment: the command resolves the config and passthrough env with it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly terminal: {
    readonly stdoutIsTTY: boolean;
    readonly stderrIsTTY: boolean;
    /** A person can answer questions (stdin and stderr are terminals). */
    readonly interactive: boolean;
    readonly columns?: number;
  };
}

/** Daemon → caller, one JSON object a line. */
export type RunEvent =
  /** Text for stdout or stderr; `base64` for bytes (`read --raw`). */
  | { readonly t: 'out' | 'err'; readonly text?: string; readonly base64?: string }
  /** A question for the person at the caller's terminal; `secret` masks the answer. */
  | {
      readonly t: 'ask';
      readonly id: number;
      readonly kind: 'confirm' | 'input';
      readonly question: string;
      readonly secret?: boolean;
    }
  /**
   * A server's question (elicitation) during the command, for the person at the
   * caller's terminal: asked there with the direct path's own prompts, its
   * result sent back (`elicited`). Sent only to a caller with a terminal.
   */
  | {
      readonly t: 'elicit';
      readonly id: number;
      readonly server: string;
      readonly request: CallerElicitation;
    }
  /**
   * A sign-in the command needs: the caller shows the URL (http(s) only) and
   * opens the person's browser, as the direct path does. The redirect comes
   * back to the daemon's loopback listener, which finishes the sign-in.
   */
  | { readonly t: 'signin'; readonly server: string; readonly url: string }
  /** The command is done: the caller exits with this code. */
  | { readonly t: 'exit'; readonly code: number }
  /**
   * Not the daemon's to run (a server it does not hold): the caller runs the
   * command itself, with the answers the person already gave here, so the
   * same question (a trust approval, an input variable) is not asked twice.
   */
  | { readonly t: 'direct'; readonly answers?: readonly GivenAnswer[] };

/** A server's elicitation as the SDK hands it to a client (form or URL mode), to be asked at the caller. */
export interface CallerElicitation {
  readonly mode: 'form' | 'url';
  /** The request's params, as the server sent them (text in them is shown through forTerminal). */
  readonly params: Readonly<Record<string, unknown>>;
}

/** A question the daemon asked at the caller's terminal, with the person's answer. */
export interface GivenAnswer {
  readonly kind: 'confirm' | 'input';
  readonly question: string;
  readonly value: string | boolean;
}

/** Caller → daemon. */
export type RunReply =
  | { readonly t: 'answer'; readonly id: number; readonly value: string | boolean | null }
  /** The person's answer to an `elicit` (an elicitation result); absent when the question failed. */
  | { readonly t: 'elicited'; readonly id: number; readonly result?: Readonly<Record<string, unknown>> }
  /** Ctrl-C at the caller: cancel as the direct path's first Ctrl-C does. */
  | { readonly t: 'cancel' };

/** The commands a light caller may hand to the daemon (one named server each). */
export const LIGHT_COMMANDS: ReadonlySet<string> = new Set(['call', 'tools', 'read', 'prompt']);
