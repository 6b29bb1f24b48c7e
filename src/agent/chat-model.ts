/**
 * A chat model behind the OpenAI Chat Completions wire format, which most
 * providers and local servers speak (OpenAI, Azure, Ollama, vLLM, LM Studio,
 * OpenRouter...). Plain `fetch`, typed with the official `openai` package's
 * types; nothing of the SDK is loaded.
 */
import type {
  ChatCompletion,
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { ErrorCode, McpxError } from '../errors/index.js';

export interface ChatModel {
  readonly model: string;
  complete(request: {
    readonly messages: readonly ChatCompletionMessageParam[];
    readonly tools: readonly ChatCompletionFunctionTool[];
    readonly maxTokens?: number;
    readonly signal?: AbortSignal;
  }): Promise<ChatCompletionAssistantMessageParam>;
}

export interface OpenAICompatibleOptions {
  /** e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly model: string;
  readonly fetch?: typeof fetch;
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** A ChatModel over `POST {baseUrl}/chat/completions`. */
export function openAICompatibleModel(options: OpenAICompatibleOptions): ChatModel {
  const doFetch = options.fetch ?? fetch;
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    model: options.model,
    async complete({ messages, tools, maxTokens, signal }) {
      const body: ChatCompletionCreateParamsNonStreaming = {
        model: options.model,
        messages: [...messages],
        ...(tools.length ? { tools: [...tools], tool_choice: 'auto' } : {}),
        ...(maxTokens ? { max_completion_tokens: maxTokens } : {}),
      };
      let response: Response;
      try {
        response = await doFetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify(body),
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        if (signal?.aborted)
          throw new McpxError(ErrorCode.Cancelled, 'the model request was cancelled', { cause: error });
        throw new McpxError(ErrorCode.HttpUnreachable, `cannot reach the model at ${endpoint}`, {
          url: endpoint,
          cause: error,
          fixes: ['check --base-url (or OPENAI_BASE_URL) and that the model server is running'],
        });
      }
      if (!response.ok) throw await modelHttpError(response, endpoint, options.model);
      const completion = (await response.json()) as ChatCompletion;
      const message = completion.choices?.[0]?.message;
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
    },
  };
}

async function modelHttpError(response: Response, endpoint: string, model: string): Promise<McpxError> {
  // The provider's own words help (unknown model, quota), but never more than a line of them.
  const detail = (await response.text().catch(() => '')).replace(/\s+/g, ' ').slice(0, 300);
  const status = response.status;
  const fixes =
    status === 401 || status === 403
      ? ['set OPENAI_API_KEY (or --api-key-env NAME) to a valid key for this endpoint']
      : status === 404
        ? [`check the model name ('${model}', --model) and the base URL`]
        : status === 429
          ? [
              `wait and try again${response.headers.get('retry-after') ? ` (the server asks for ${response.headers.get('retry-after')} s)` : ''}, or check your quota`,
            ]
          : ['try again; if it persists, check the model server'];
  return new McpxError(
    status === 401 || status === 403 ? ErrorCode.AuthRequired : ErrorCode.HttpStatus,
    `the model at ${endpoint} answered HTTP ${status}${detail ? `: ${detail}` : ''}`,
    { url: endpoint, httpStatus: status, fixes },
  );
}
