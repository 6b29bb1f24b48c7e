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
import { ErrorCode, McpxError } from '../errors/index.js';
import { promptFailure } from '../permissions/approver.js';
import { forTerminal } from '../tools/sanitize.js';
import { terminalElicitation } from './terminal-elicitation.js';

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
        const allowed = await asked(
          confirm(
            {
              message: `Server '${show(server.name)}' asks the model (up to ${params.maxTokens} tokens${wants}):\n  ${show(preview).slice(0, 500)}\nAllow?`,
              default: false,
            },
            streams,
          ),
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
    elicitation: terminalElicitation(server, {
      ...streams,
      interactive: options.interactive,
      ...(options.onInterrupt ? { onInterrupt: options.onInterrupt } : {}),
    }),
  });
}
