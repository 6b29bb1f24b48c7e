/**
 * A server's questions (elicitation) asked of the person at this terminal:
 * a form field by field with the prompt that fits each field's type, or a URL
 * shown (sanitized, never opened) with the question whether they will visit
 * it. Used by every command that has a person to ask: chat, call, the shell.
 * Everything of the server's shown here — the message, each field's title,
 * description or name, its choices and its default — is drawn through the
 * prompts of `text/`, which take safe text only; a default is answered as shown.
 */

import type { ServerConfig } from '../../config/index.js';
import type { ElicitationHandlers } from '../../host/index.js';
import { promptFailure } from '../../permissions/index.js';
import {
  type Choice,
  checkbox,
  confirm,
  forTerminal,
  input,
  number,
  type SafeText,
  say,
  select,
  type Terminal,
} from '../../text/index.js';

export interface TerminalElicitationOptions {
  /** The person's terminal; without one every question is declined. */
  readonly terminal?: Terminal;
  /** Ctrl-C at one of these prompts: cancel the whole command, as Ctrl-C anywhere else does. */
  readonly onInterrupt?: () => void;
  /**
   * Runs each question with the terminal to itself: what else draws there
   * (a progress bar) is cleared first and held back until it is answered.
   * The signal `ask` gets aborts when the question is cancelled (its own
   * `signal`, or the command's); see `createTerminalTurns`.
   */
  readonly hold?: <T>(ask: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal) => Promise<T>;
}

const show = forTerminal;
/** A signal that never aborts, for a question asked without one. */
const NEVER = new AbortController().signal;

/** One property of an elicitation form (the spec's restricted JSON Schema subset). */
interface FormField {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  /** Titled single-select: `[{ const, title }]`. */
  readonly oneOf?: readonly { const?: unknown; title?: string }[];
  /** Multi-select: `{ type: "array", items: { enum } }` or titled `items.anyOf`. */
  readonly items?: { enum?: readonly unknown[]; anyOf?: readonly { const?: unknown; title?: string }[] };
  readonly minimum?: number;
  readonly maximum?: number;
}

/** The choices of a select, from plain `enum` values or titled `{ const, title }` options. */
function choicesOf(values: readonly unknown[] | undefined, titled: FormField['oneOf']): Choice<string>[] {
  if (titled?.length)
    return titled.map((o) => ({ name: show(String(o.title ?? o.const)), value: String(o.const) }));
  return (values ?? []).map((v) => ({ name: show(String(v)), value: String(v) }));
}

/**
 * Ask for one field with the prompt that fits its type; the prompt itself
 * refuses what the schema would (an empty required field, a number out of
 * range). An optional field left empty is left out.
 */
async function askField(
  terminal: Terminal,
  field: FormField,
  name: string,
  required: boolean,
  signal: AbortSignal,
): Promise<string | number | boolean | string[] | undefined> {
  const message = say`${field.title ?? field.description ?? name}${required ? '' : ' (optional)'}`;
  if (field.type === 'boolean') {
    return confirm(terminal, { message, default: field.default === true }, signal);
  }
  if (field.type === 'array') {
    const choices = choicesOf(field.items?.enum, field.items?.anyOf);
    const defaults = new Set(Array.isArray(field.default) ? field.default.map(String) : []);
    return checkbox(
      terminal,
      { message, choices: choices.map((c) => ({ ...c, checked: defaults.has(c.value) })), required },
      signal,
    );
  }
  if (Array.isArray(field.enum) || field.oneOf?.length) {
    const choices = choicesOf(field.enum, field.oneOf);
    const preset = field.default === undefined ? undefined : String(field.default);
    return select(
      terminal,
      {
        message,
        choices,
        ...(preset !== undefined && choices.some((c) => c.value === preset) ? { default: preset } : {}),
      },
      signal,
    );
  }
  if (field.type === 'number' || field.type === 'integer') {
    return number(
      terminal,
      {
        message,
        required,
        integer: field.type === 'integer',
        ...(typeof field.default === 'number' ? { default: field.default } : {}),
        ...(field.minimum === undefined ? {} : { min: field.minimum }),
        ...(field.maximum === undefined ? {} : { max: field.maximum }),
      },
      signal,
    );
  }
  // A default is shown as text, so it is answered as shown: never characters nobody saw.
  const preset: SafeText | undefined = field.default === undefined ? undefined : show(String(field.default));
  const text = await input(
    terminal,
    { message, required, ...(preset === undefined ? {} : { default: preset }) },
    signal,
  );
  return text === '' && !required ? undefined : text;
}

/**
 * A question a server asked, put to the person: Ctrl-C there ends the command (or the console's
 * line), not just this request, so `onInterrupt` is told.
 */
export function askedAt(onInterrupt: (() => void) | undefined) {
  return async <T>(question: Promise<T>): Promise<T> => {
    try {
      return await question;
    } catch (error) {
      // The person's Ctrl-C, not a question withdrawn by its signal (AbortPromptError).
      if (error instanceof Error && error.name === 'ExitPromptError') onInterrupt?.();
      throw promptFailure(error);
    }
  };
}

/** Form and URL elicitation for `server`, asked at the terminal of `options`. */
export function terminalElicitation(
  server: Pick<ServerConfig, 'name'>,
  options: TerminalElicitationOptions,
): ElicitationHandlers {
  const { terminal } = options;
  // A prompt ends when its question is cancelled: the server withdrew it, or the command ended.
  const hold =
    options.hold ??
    (<T>(ask: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal) => ask(signal ?? NEVER));
  const asked = askedAt(options.onInterrupt);
  return {
    async form(params, { signal }) {
      if (!terminal) return { action: 'decline' };
      return hold(async (stop) => {
        const answer = await asked(
          select(
            terminal,
            {
              message: say`Server '${server.name}' asks: ${params.message}`,
              choices: [
                { name: say`Answer`, value: 'accept' as const },
                { name: say`Decline`, value: 'decline' as const },
                { name: say`Cancel`, value: 'cancel' as const },
              ],
            },
            stop,
          ),
        );
        if (answer !== 'accept') return { action: answer };
        const required = new Set(params.requestedSchema.required ?? []);
        const content: Record<string, string | number | boolean | string[]> = {};
        for (const [name, raw] of Object.entries(params.requestedSchema.properties ?? {})) {
          const value = await asked(askField(terminal, raw as FormField, name, required.has(name), stop));
          if (value !== undefined) content[name] = value;
        }
        return { action: 'accept' as const, content };
      }, signal);
    },
    async url(params, { signal }) {
      if (!terminal) return { action: 'decline' };
      const go = await hold(
        (stop) =>
          asked(
            confirm(
              terminal,
              {
                message: say`Server '${server.name}' asks you to visit ${params.url}\n  (${params.message})\nmcpx will not open it. Will you visit it?`,
                default: false,
              },
              stop,
            ),
          ),
        signal,
      );
      return { action: go ? 'accept' : 'decline' };
    },
  };
}
