/**
 * Sampling answered by a chat model: a server's `sampling/createMessage`
 * goes to the host's model only after someone approves it, with the request's
 * tools, images and audio passed on (`sampling-messages.ts`). A request the
 * model cannot take is refused, and whoever runs the host is told as well as
 * the server.
 */
import { RequestRefused, type SamplingHandler, samplingRefused } from '../client/index.js';
import type { ChatModel } from './chat-model.js';
import { fromModelReply, toModelRequest } from './sampling-messages.js';

/** What someone approves before a server's request reaches the model. Every string is the server's, unsanitized. */
export interface SamplingQuestion {
  /** The last message's text: the prompt, or the tool results the server feeds back. */
  readonly preview: string;
  readonly maxTokens: number;
  /** The tools the model is offered. */
  readonly toolNames: readonly string[];
  readonly images: number;
  readonly audio: number;
  /** The server's model preferences (`modelPreferences.hints`). */
  readonly hints: readonly string[];
  /** The model that will answer. */
  readonly model: string;
}

/** What comes with the request besides its text, for a question: ", 1 image, 2 tools (a, b)". Unsanitized. */
export function samplingExtras(question: SamplingQuestion): string {
  const count = (n: number, one: string) => (n ? `, ${n} ${one}${n === 1 ? '' : 's'}` : '');
  const names = question.toolNames.join(', ');
  return (
    count(question.images, 'image') +
    count(question.audio, 'audio clip') +
    count(question.toolNames.length, 'tool') +
    (names ? ` (${names.length > 200 ? `${names.slice(0, 200)}…` : names})` : '')
  );
}

export interface ModelSamplingOptions {
  readonly model: ChatModel;
  /** The most tokens a server may ask for, whatever it requests. */
  readonly maxTokens?: number;
  /** Yes sends the request to the model; no refuses it (the spec's code -1). May throw a refusal of its own. */
  readonly approve: (question: SamplingQuestion, signal: AbortSignal) => Promise<boolean>;
  /** A request refused because the model cannot take it: the same words the server gets. */
  readonly onRefused?: (message: string) => void;
}

/**
 * A sampling handler over `model`, declared to servers with tool support.
 *
 * @example
 * const features = { sampling: modelSampling({ model, approve: async (q) => q.toolNames.length === 0 }) };
 */
export function modelSampling(options: ModelSamplingOptions): SamplingHandler {
  const told = (error: unknown): unknown => {
    if (error instanceof RequestRefused) options.onRefused?.(error.message);
    return error;
  };
  return {
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    tools: true,
    async createMessage(params, { signal }) {
      let request: ReturnType<typeof toModelRequest>;
      try {
        request = toModelRequest(params);
      } catch (error) {
        throw told(error);
      }
      const question: SamplingQuestion = {
        preview: request.preview,
        maxTokens: request.maxTokens,
        toolNames: request.toolNames,
        images: request.images,
        audio: request.audio,
        hints: (params.modelPreferences?.hints ?? []).flatMap((h) => (h.name ? [h.name] : [])),
        model: options.model.model,
      };
      if (!(await options.approve(question, signal))) throw samplingRefused();
      const reply = await options.model.complete({
        messages: request.messages,
        tools: request.tools,
        ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
        maxTokens: request.maxTokens,
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(request.stop ? { stop: request.stop } : {}),
        signal,
      });
      try {
        return fromModelReply(params, reply, options.model.model);
      } catch (error) {
        throw told(error);
      }
    },
  };
}
