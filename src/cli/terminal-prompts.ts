/** What a prompt at the process's own terminal needs of it. */
export interface PromptTerminal {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Ctrl-C read as a key by a text prompt (its raw mode): treated as SIGINT is. */
  readonly interrupt: () => void;
  /** Ctrl-C read as a key at a yes/no question: the command is cancelled. */
  readonly abort: () => void;
}

/** A line of text, masked when `secret`. */
export async function askAtTerminal(
  terminal: PromptTerminal,
  question: string,
  { secret }: { readonly secret: boolean },
): Promise<string> {
  const prompts = await import('@inquirer/prompts');
  const context = { input: terminal.input, output: terminal.output, clearPromptOnDone: false };
  try {
    return secret
      ? await prompts.password({ message: question, mask: '*' }, context)
      : await prompts.input({ message: question }, context);
  } catch (error) {
    terminal.interrupt();
    throw error;
  }
}

/** A yes/no question; anything but y or yes is no. */
export async function confirmAtTerminal(terminal: PromptTerminal, question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: terminal.input, output: terminal.output });
  // The line editor puts the terminal in raw mode, so Ctrl-C arrives as a key, not as
  // SIGINT: treat it as the signal would be (cancel, exit 130) instead of a failed question.
  const interrupted = new Promise<never>((_, reject) =>
    rl.once('SIGINT', () => {
      terminal.abort();
      terminal.output.write('\n');
      reject(new Error('interrupted at the prompt'));
    }),
  );
  try {
    const answer = await Promise.race([rl.question(`${question} [y/N] `), interrupted]);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
