/**
 * What `mcpx chat` offers the servers it connects: the working directory as
 * their root, and sampling and elicitation that always go through the person
 * at the terminal first. Without a terminal nobody can consent: sampling is
 * refused and forms are declined.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChatModel } from '../agent/chat-model.js';
import {
  type ClientFeatures,
  createRoots,
  rootsForDirectories,
  samplingRefused,
} from '../client/features.js';
import type { ServerConfig } from '../config/types.js';
import { stripTerminalControls } from '../tools/sanitize.js';
import { revealHidden } from '../tools/unicode.js';

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
}

const show = (text: string) => revealHidden(stripTerminalControls(text));

export function chatFeatures(options: ChatFeatureOptions): (server: ServerConfig) => ClientFeatures {
  const roots = createRoots(rootsForDirectories(options.roots));
  const streams = { input: options.input, output: options.output };
  return (server) => ({
    roots,
    sampling: {
      maxTokens: options.maxSamplingTokens ?? 1024,
      async createMessage(params, { signal }) {
        if (!options.interactive)
          throw samplingRefused('no terminal: nobody could approve the sampling request');
        const { confirm } = await import('@inquirer/prompts');
        const last = params.messages.at(-1)?.content;
        const preview =
          last && 'text' in last && typeof last.text === 'string' ? last.text : '(non-text content)';
        const hints = (params.modelPreferences?.hints ?? []).map((h) => h.name).filter(Boolean);
        const wants = hints.length
          ? `; it prefers ${show(hints.join(', '))}, you use ${show(options.model.model)}`
          : '';
        const allowed = await confirm(
          {
            message: `Server '${show(server.name)}' asks the model (up to ${params.maxTokens} tokens${wants}):\n  ${show(preview).slice(0, 500)}\nAllow?`,
            default: false,
          },
          streams,
        );
        if (!allowed) throw samplingRefused();
        const messages: ChatCompletionMessageParam[] = [
          ...(params.systemPrompt ? [{ role: 'system' as const, content: params.systemPrompt }] : []),
          ...params.messages.map((m) => {
            const content = m.content as { type?: string; text?: string };
            const text =
              content.type === 'text' && typeof content.text === 'string'
                ? content.text
                : '(non-text content)';
            return m.role === 'assistant'
              ? { role: 'assistant' as const, content: text }
              : { role: 'user' as const, content: text };
          }),
        ];
        const reply = await options.model.complete({
          messages,
          tools: [],
          maxTokens: params.maxTokens,
          signal,
        });
        return {
          model: options.model.model,
          role: 'assistant',
          content: { type: 'text', text: typeof reply.content === 'string' ? reply.content : '' },
          stopReason: 'endTurn',
        };
      },
    },
    elicitation: {
      async form(params) {
        if (!options.interactive) return { action: 'decline' };
        const prompts = await import('@inquirer/prompts');
        const answer = await prompts.select(
          {
            message: `Server '${show(server.name)}' asks: ${show(params.message)}`,
            choices: [
              { name: 'Answer', value: 'accept' as const },
              { name: 'Decline', value: 'decline' as const },
              { name: 'Cancel', value: 'cancel' as const },
            ],
          },
          streams,
        );
        if (answer !== 'accept') return { action: answer };
        const content: Record<string, string | number | boolean | string[]> = {};
        for (const [name, raw] of Object.entries(params.requestedSchema.properties ?? {})) {
          const field = raw as {
            type?: string;
            title?: string;
            description?: string;
            default?: unknown;
            enum?: unknown[];
          };
          const message = show(field.title ?? field.description ?? name);
          if (field.type === 'boolean') {
            content[name] = await prompts.confirm({ message, default: field.default === true }, streams);
          } else if (Array.isArray(field.enum)) {
            content[name] = await prompts.select(
              { message, choices: field.enum.map((v) => ({ name: show(String(v)), value: String(v) })) },
              streams,
            );
          } else {
            const text = await prompts.input(
              { message, ...(field.default === undefined ? {} : { default: String(field.default) }) },
              streams,
            );
            content[name] = field.type === 'number' || field.type === 'integer' ? Number(text) : text;
          }
        }
        return { action: 'accept', content };
      },
      async url(params) {
        if (!options.interactive) return { action: 'decline' };
        const { confirm } = await import('@inquirer/prompts');
        const go = await confirm(
          {
            message: `Server '${show(server.name)}' asks you to visit ${show(params.url)}\n  (${show(params.message)})\nmcpx will not open it. Will you visit it?`,
            default: false,
          },
          streams,
        );
        return { action: go ? 'accept' : 'decline' };
      },
    },
  });
}
