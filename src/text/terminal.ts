import type { SafeText } from './safe-text.js';

/** The streams behind a {@link Terminal}: keys come in on `input`, drawing goes out on `output`. */
export interface TerminalStreams {
  /** Read when a prompt first needs it (a getter may open stdin only then). */
  readonly input: NodeJS.ReadableStream;
  /** Where prompts draw (the CLI's is stderr: stdout stays for results). */
  readonly output: NodeJS.WritableStream;
}

// A registered symbol, not a module's own: mcpx.cjs (the process's io, which makes the terminal)
// and the CLI's ES module side (whose prompts draw on it) each bundle a copy of this module.
const STREAMS = Symbol.for('mcpx.terminal.streams');

/**
 * A person's terminal, where prompts ask and the shell edits its line. Its
 * streams are out of the type's reach: what is drawn on it goes through
 * {@link Terminal.write} (safe text only) or this folder's prompts (`prompts.ts`,
 * `line-editor.ts`), whose every message, choice and default is {@link SafeText}.
 * The CLI makes one for its own process (stdin and stderr, `cli/io/process-io.ts`);
 * a test or a library program makes one of its streams.
 */
export class Terminal {
  declare private readonly [STREAMS]: TerminalStreams;

  constructor(from: TerminalStreams) {
    Object.defineProperty(this, STREAMS, { value: from });
  }

  /** Draw `text` as it is (mcpx's own text, or server text made safe). */
  write(text: SafeText): void {
    streamsOf(this).output.write(text);
  }
}

/** Whether `value` is a {@link Terminal} (of this copy of the module or another). */
export function isTerminal(value: unknown): value is Terminal {
  return typeof value === 'object' && value !== null && STREAMS in value;
}

/** The streams of `terminal`, for this folder's prompts only (`text/index.ts` does not export it). */
export function streamsOf(terminal: Terminal): TerminalStreams {
  return (terminal as unknown as Record<typeof STREAMS, TerminalStreams>)[STREAMS];
}
