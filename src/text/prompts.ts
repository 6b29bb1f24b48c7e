/**
 * The prompts mcpx asks at a person's terminal, the only module that draws
 * them (`@inquirer/prompts`, and readline for a yes/no): every message, choice
 * and default is {@link SafeText}, so a server's words reach the menu only as
 * `forTerminal` made them. The prompt library loads with the first question.
 */
import type { SafeText } from './safe-text.js';
import { streamsOf, type Terminal } from './terminal.js';

/** One choice of a menu: what is shown (`name`), what is answered (`value`, never shown). */
export interface Choice<T> {
  readonly name: SafeText;
  readonly value: T;
  /** Ticked at the start (a multi-select). */
  readonly checked?: boolean;
}

const inquirer = () => import('@inquirer/prompts');

// A prompt given a signal ends (AbortPromptError) when it aborts: the question was withdrawn.
const context = (terminal: Terminal, signal: AbortSignal | undefined) => {
  const { input, output } = streamsOf(terminal);
  return { input, output, clearPromptOnDone: false, ...(signal ? { signal } : {}) };
};

/** One of `choices`, with the arrow keys. */
export async function select<T>(
  terminal: Terminal,
  question: { readonly message: SafeText; readonly choices: readonly Choice<T>[]; readonly default?: T },
  signal?: AbortSignal,
): Promise<T> {
  const { select } = await inquirer();
  const choices = question.choices.map(({ name, value }) => ({ name, value }));
  return select<T>(
    { message: question.message, choices, ...('default' in question ? { default: question.default } : {}) },
    context(terminal, signal),
  );
}

/** Any of `choices`, ticked with the space bar. */
export async function checkbox<T>(
  terminal: Terminal,
  question: {
    readonly message: SafeText;
    readonly choices: readonly Choice<T>[];
    readonly required?: boolean;
  },
  signal?: AbortSignal,
): Promise<T[]> {
  const { checkbox } = await inquirer();
  const choices = question.choices.map(({ name, value, checked }) => ({
    name,
    value,
    ...(checked === undefined ? {} : { checked }),
  }));
  return checkbox<T>(
    { message: question.message, choices, ...(question.required ? { required: true } : {}) },
    context(terminal, signal),
  );
}

/** Yes or no, as a toggle with a default. */
export async function confirm(
  terminal: Terminal,
  question: { readonly message: SafeText; readonly default?: boolean },
  signal?: AbortSignal,
): Promise<boolean> {
  const { confirm } = await inquirer();
  return confirm(
    { message: question.message, ...(question.default === undefined ? {} : { default: question.default }) },
    context(terminal, signal),
  );
}

/**
 * A line of text. The default is shown and, on Enter, answered as shown: a
 * person agrees to what they read, never to characters they could not see.
 */
export async function input(
  terminal: Terminal,
  question: { readonly message: SafeText; readonly required?: boolean; readonly default?: SafeText },
  signal?: AbortSignal,
): Promise<string> {
  const { input } = await inquirer();
  return input(
    {
      message: question.message,
      ...(question.required ? { required: true } : {}),
      ...(question.default === undefined ? {} : { default: question.default }),
    },
    context(terminal, signal),
  );
}

/** A line of text shown as `*`. */
export async function password(
  terminal: Terminal,
  question: { readonly message: SafeText },
  signal?: AbortSignal,
): Promise<string> {
  const { password } = await inquirer();
  return password({ message: question.message, mask: '*' }, context(terminal, signal));
}

/** A number within the bounds given, if any; `undefined` when left empty and not required. */
export async function number(
  terminal: Terminal,
  question: {
    readonly message: SafeText;
    readonly required?: boolean;
    readonly integer?: boolean;
    readonly default?: number;
    readonly min?: number;
    readonly max?: number;
  },
  signal?: AbortSignal,
): Promise<number | undefined> {
  const { number } = await inquirer();
  return number(
    {
      message: question.message,
      required: question.required === true,
      step: question.integer ? 1 : 'any',
      ...(question.default === undefined ? {} : { default: question.default }),
      ...(question.min === undefined ? {} : { min: question.min }),
      ...(question.max === undefined ? {} : { max: question.max }),
    },
    context(terminal, signal),
  );
}

/**
 * A yes/no question answered by typing (`[y/N]`); anything but y or yes is no.
 * The line editor puts the terminal in raw mode, so Ctrl-C arrives as a key,
 * not as SIGINT: `onInterrupt` is told and the question fails.
 */
export async function yesOrNo(
  terminal: Terminal,
  question: SafeText,
  onInterrupt: () => void,
): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const { input, output } = streamsOf(terminal);
  const rl = createInterface({ input, output });
  const interrupted = new Promise<never>((_, reject) =>
    rl.once('SIGINT', () => {
      onInterrupt();
      output.write('\n');
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
