/**
 * A chat model behind the OpenAI Chat Completions API, which most providers
 * and local servers speak (OpenAI, Azure, Ollama, vLLM, LM Studio,
 * OpenRouter...), through the official `openai` package, streamed.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { ErrorCode, McpxError } from '../errors/index.js';

export interface ChatModel {
  readonly model: string;
  complete(request: {
    readonly messages: readonly ChatCompletionMessageParam[];
    readonly tools: readonly ChatCompletionFunctionTool[];
    /** Whether the model may (`auto`, the default), must (`required`) or must not (`none`) call a tool. */
    readonly toolChoice?: 'auto' | 'required' | 'none';
    readonly maxTokens?: number;
    readonly temperature?: number;
    /** Sequences that end the answer. */
    readonly stop?: readonly string[];
    readonly signal?: AbortSignal;
    /** Each piece of the answer's text as it streams in. */
    readonly onText?: (delta: string) => void;
  }): Promise<ChatCompletionAssistantMessageParam>;
}

export interface OpenAICompatibleOptions {
  /** e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly model: string;
  /** Retries of 429 / 5xx / connection failures (honouring Retry-After). Default 2. */
  readonly maxRetries?: number;
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** A ChatModel over `{baseUrl}/chat/completions`, streamed. */
export function openAICompatibleModel(options: OpenAICompatibleOptions): ChatModel {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const client = new OpenAI({
    baseURL: options.baseUrl,
    // Local servers need no key; the SDK insists on one, and a wrong one gets a clear 401.
    apiKey: options.apiKey ?? 'no-key-set',
    maxRetries: options.maxRetries ?? 2,
  });
  return {
    model: options.model,
    async complete({ messages, tools, toolChoice, maxTokens, temperature, stop, signal, onText }) {
      try {
        const stream = client.chat.completions.stream(
          {
            model: options.model,
            messages: [...messages],
            ...(tools.length ? { tools: [...tools], tool_choice: toolChoice ?? 'auto' } : {}),
            ...(maxTokens ? { max_completion_tokens: maxTokens } : {}),
            ...(temperature === undefined ? {} : { temperature }),
            ...(stop?.length ? { stop: [...stop] } : {}),
          },
          signal ? { signal } : {},
        );
        if (onText) stream.on('content', (delta) => onText(delta));
        const completion = await stream.finalChatCompletion();
        const message = completion.choices[0]?.message;
        if (!message) {
          throw new McpxError(
            ErrorCode.InvalidServerOutput,
            `the model at ${endpoint} answered without a message`,
            {
              url: endpoint,
            },
          );
        }
        return {
          role: 'assistant',
          content: message.content ?? null,
          ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
        };
      } catch (error) {
        throw modelError(error, endpoint, options.model, signal);
      }
    },
  };
}

function modelError(
  error: unknown,
  endpoint: string,
  model: string,
  signal: AbortSignal | undefined,
): McpxError {
  if (error instanceof McpxError) return error;
  if (signal?.aborted || error instanceof OpenAI.APIUserAbortError) {
    return new McpxError(ErrorCode.Cancelled, 'the model request was cancelled', { cause: error });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new McpxError(ErrorCode.HttpUnreachable, `cannot reach the model at ${endpoint}`, {
      url: endpoint,
      cause: error,
      fixes: ['check --base-url (or OPENAI_BASE_URL) and that the model server is running'],
    });
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    const status = error.status;
    // The provider's own words help (unknown model, quota), but never more than a line of them.
    const detail = String(error.message ?? '')
      .replace(/\s+/g, ' ')
      .slice(0, 300);
    const retryAfter = error.headers?.get?.('retry-after');
    const fixes =
      status === 401 || status === 403
        ? ['set OPENAI_API_KEY to a valid key for this endpoint']
        : status === 404
          ? [`check the model name ('${model}', --model) and the base URL`]
          : status === 429
            ? [
                `wait and try again${retryAfter ? ` (the server asks for ${retryAfter} s)` : ''}, or check your quota`,
              ]
            : ['try again; if it persists, check the model server'];
    return new McpxError(
      status === 401 || status === 403 ? ErrorCode.AuthRequired : ErrorCode.HttpStatus,
      `the model at ${endpoint} answered HTTP ${status}${detail ? `: ${detail}` : ''}`,
      { url: endpoint, httpStatus: status, fixes },
    );
  }
  return new McpxError(
    ErrorCode.InvalidServerOutput,
    `the model at ${endpoint} failed: ${(error as Error).message}`,
    {
      url: endpoint,
      cause: error,
    },
  );
}
