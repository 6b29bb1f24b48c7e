import { input, password, type SafeText, type Terminal, yesOrNo } from '../../text/index.js';

/** What a question at the process's own terminal needs of it. */
export interface PromptTerminal {
  readonly terminal: Terminal;
  /** Ctrl-C read as a key by a text prompt (its raw mode): treated as SIGINT is. */
  readonly interrupt: () => void;
  /** Ctrl-C read as a key at a yes/no question: the command is cancelled. */
  readonly abort: () => void;
}

/** A line of text, masked when `secret`. */
export async function askAtTerminal(
  at: PromptTerminal,
  question: SafeText,
  { secret }: { readonly secret: boolean },
): Promise<string> {
  try {
    return secret
      ? await password(at.terminal, { message: question })
      : await input(at.terminal, { message: question });
  } catch (error) {
    at.interrupt();
    throw error;
  }
}

/** A yes/no question; anything but y or yes is no. Ctrl-C there cancels the command (exit 130). */
export function confirmAtTerminal(at: PromptTerminal, question: SafeText): Promise<boolean> {
  return yesOrNo(at.terminal, question, at.abort);
}
