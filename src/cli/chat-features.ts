/**
 * What `mcpx chat` offers the servers it connects: the working directory as
 * their root, and sampling and elicitation that always go through the person
 * at the terminal first. Without a terminal nobody can consent: sampling is
 * refused and forms are declined.
 */
import type { ChatModel } from '../agent/chat-model.js';
import { modelSampling, samplingExtras } from '../agent/index.js';
import {
  type ClientFeatures,
  createRoots,
  rootsForDirectories,
  samplingRefused,
} from '../client/features.js';
import type { ServerConfig } from '../config/types.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { promptFailure } from '../permissions/approver.js';
import { forTerminal } from '../text/index.js';

export interface ChatFeatureOptions {
  readonly model: ChatModel;
  /** Directories the servers may work in (the config's `roots`, else the working directory). */
  readonly roots: readonly string[];
  /** A person can be asked (stdin and stderr are terminals). */
  readonly interactive: boolean;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Most tokens a server's sampling request may use. */
  readonly maxSamplingTokens?: number;
  /** Ctrl-C at one of these prompts: cancel the whole command, as Ctrl-C anywhere else does. */
  readonly onInterrupt?: () => void;
}

const show = forTerminal;

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

type Prompts = typeof import('@inquirer/prompts');
type Streams = { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };

/** The choices of a select, from plain `enum` values or titled `{ const, title }` options. */
function choicesOf(values: readonly unknown[] | undefined, titled: FormField['oneOf']) {
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
  prompts: Prompts,
  streams: Streams,
  field: FormField,
  name: string,
  required: boolean,
): Promise<string | number | boolean | string[] | undefined> {
  const message = show(field.title ?? field.description ?? name) + (required ? '' : ' (optional)');
  if (field.type === 'boolean') {
    return prompts.confirm({ message, default: field.default === true }, streams);
  }
  if (field.type === 'array') {
    const choices = choicesOf(field.items?.enum, field.items?.anyOf);
    const defaults = new Set(Array.isArray(field.default) ? field.default.map(String) : []);
    return prompts.checkbox(
      { message, choices: choices.map((c) => ({ ...c, checked: defaults.has(c.value) })), required },
      streams,
    );
  }
  if (Array.isArray(field.enum) || field.oneOf?.length) {
    const choices = choicesOf(field.enum, field.oneOf);
    const preset = field.default === undefined ? undefined : String(field.default);
    return prompts.select(
      { message, choices, ...(choices.some((c) => c.value === preset) ? { default: preset } : {}) },
      streams,
    );
  }
  if (field.type === 'number' || field.type === 'integer') {
    return prompts.number(
      {
        message,
        required,
        step: field.type === 'integer' ? 1 : 'any',
        ...(typeof field.default === 'number' ? { default: field.default } : {}),
        ...(field.minimum === undefined ? {} : { min: field.minimum }),
        ...(field.maximum === undefined ? {} : { max: field.maximum }),
      },
      streams,
    );
  }
  const text = await prompts.input(
    { message, required, ...(field.default === undefined ? {} : { default: String(field.default) }) },
    streams,
  );
  return text === '' && !required ? undefined : text;
}

export function chatFeatures(options: ChatFeatureOptions): (server: ServerConfig) => ClientFeatures {
  const roots = createRoots(rootsForDirectories(options.roots));
  const streams = { input: options.input, output: options.output };
  // The server asked, but the person pressed Ctrl-C: that ends the command, not just this request.
  const asked = async <T>(question: Promise<T>): Promise<T> => {
    try {
      return await question;
    } catch (error) {
      const failure = promptFailure(error);
      if (failure instanceof McpxError && failure.code === ErrorCode.Cancelled) options.onInterrupt?.();
      throw failure;
    }
  };
  return (server) => ({
    roots,
    sampling: modelSampling({
      model: options.model,
      maxTokens: options.maxSamplingTokens ?? 1024,
      onRefused: (message) =>
        options.output.write(`${show(`Server '${server.name}' asked the model: refused, ${message}`)}\n`),
      async approve(question) {
        if (!options.interactive)
          throw samplingRefused('no terminal: nobody could approve the sampling request');
        const { confirm } = await import('@inquirer/prompts');
        const wants = question.hints.length
          ? `; it prefers ${show(question.hints.join(', '))}, you use ${show(question.model)}`
          : '';
        return asked(
          confirm(
            {
              message: `Server '${show(server.name)}' asks the model (up to ${question.maxTokens} tokens${show(samplingExtras(question))}${wants}):\n  ${show(question.preview || '(no text)').slice(0, 500)}\nAllow?`,
              default: false,
            },
            streams,
          ),
        );
      },
    }),
    elicitation: {
      async form(params) {
        if (!options.interactive) return { action: 'decline' };
        const prompts = await import('@inquirer/prompts');
        const answer = await asked(
          prompts.select(
            {
              message: `Server '${show(server.name)}' asks: ${show(params.message)}`,
              choices: [
                { name: 'Answer', value: 'accept' as const },
                { name: 'Decline', value: 'decline' as const },
                { name: 'Cancel', value: 'cancel' as const },
              ],
            },
            streams,
          ),
        );
        if (answer !== 'accept') return { action: answer };
        const required = new Set(params.requestedSchema.required ?? []);
        const content: Record<string, string | number | boolean | string[]> = {};
        for (const [name, raw] of Object.entries(params.requestedSchema.properties ?? {})) {
          const value = await asked(askField(prompts, streams, raw as FormField, name, required.has(name)));
          if (value !== undefined) content[name] = value;
        }
        return { action: 'accept', content };
      },
      async url(params) {
        if (!options.interactive) return { action: 'decline' };
        const { confirm } = await import('@inquirer/prompts');
        const go = await asked(
          confirm(
            {
              message: `Server '${show(server.name)}' asks you to visit ${show(params.url)}\n  (${show(params.message)})\nmcpx will not open it. Will you visit it?`,
              default: false,
            },
            streams,
          ),
        );
        return { action: go ? 'accept' : 'decline' };
      },
    },
  });
}
