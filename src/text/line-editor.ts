/**
 * The shell's line editor (`mcpx shell`, `mcpx chat` on a terminal): Node's
 * readline with history and Tab completion, drawn only from safe text — its
 * prompt, the completions it lists (tool names a server chose) and the lines
 * said above it.
 */
import type { SafeText } from './safe-text.js';
import { streamsOf, type Terminal } from './terminal.js';

export interface LineEditorOptions {
  readonly prompt: SafeText;
  /** Earlier lines, newest first (readline's order). */
  readonly history: string[];
  readonly historySize: number;
  /** Candidates for the word before the cursor, and that word; listed when several fit. */
  readonly complete: (line: string) => Promise<[SafeText[], string]>;
}

/** One line being edited; `close()` ends it (a `close` event follows). */
export interface LineEditor {
  on(event: 'line', listener: (line: string) => void): void;
  on(event: 'close' | 'SIGINT', listener: () => void): void;
  /** Draw the prompt (again), with what was typed so far. */
  prompt(): void;
  /** Forget what was typed on this line. */
  clearInput(): void;
  /** Say `line` above the prompt, which is drawn again below it with what was typed so far. */
  above(line: SafeText): void;
  close(): void;
}

/** A line editor on `terminal`, its prompt drawn. */
export async function openLineEditor(terminal: Terminal, options: LineEditorOptions): Promise<LineEditor> {
  const { clearLine, createInterface, cursorTo } = await import('node:readline');
  const { input, output } = streamsOf(terminal);
  const rl = createInterface({
    input,
    output,
    terminal: true,
    history: options.history,
    historySize: options.historySize,
    removeHistoryDuplicates: true,
    completer: (line: string, callback: (error: Error | null, result: [string[], string]) => void) => {
      options.complete(line).then(
        (result) => callback(null, result),
        () => callback(null, [[], line]),
      );
    },
  });
  rl.setPrompt(options.prompt);
  rl.prompt();
  // A Ctrl-D typed while no line was being edited (a call's output still coming, the terminal in
  // its own line mode) is kept by the terminal as an end-of-file mark, which reads as NUL once
  // the editor takes the terminal over: on an empty line, it is the person leaving, as Ctrl-D is.
  const leaving = (chunk: Buffer | string) => {
    if (rl.line === '' && /^\0+$/.test(chunk.toString())) rl.close();
  };
  input.prependListener('data', leaving);
  rl.once('close', () => input.removeListener('data', leaving));
  return {
    on: (event: 'line' | 'close' | 'SIGINT', listener: (line: string) => void) => {
      rl.on(event, listener);
    },
    prompt: () => rl.prompt(),
    clearInput: () => {
      rl.write(null, { ctrl: true, name: 'e' });
      rl.write(null, { ctrl: true, name: 'u' });
    },
    above: (line) => {
      clearLine(output, 0);
      cursorTo(output, 0);
      output.write(`${line}\n`);
      rl.prompt(true);
    },
    close: () => rl.close(),
  };
}
