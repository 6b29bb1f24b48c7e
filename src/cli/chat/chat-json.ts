import type { AgentEvent } from '../../agent/index.js';
import { errorToJson, type McpxError } from '../../errors/index.js';

/** One tool call the model made during `chat --once --json`, with what came back. */
export interface ChatJsonToolCall {
  /** The tool's name as the model saw it (`mcp_<server>_<tool>`). */
  readonly name: string;
  /** The arguments the model sent: parsed JSON, or the raw text when it was not JSON. */
  readonly arguments: unknown;
  /** The result text the model was given (absent when the turn ended before it came). */
  result?: string;
  isError?: boolean;
}

/**
 * What `mcpx chat --once … --json` prints on stdout, always exactly one object
 * (documented in docs/cli.md, "`mcpx chat --once --json`"):
 * `answer` is the model's final answer, or null when the turn failed;
 * `toolCalls` every tool call in order; `errors` what went wrong outside a tool
 * result — servers that could not be used and the failure that ended the turn —
 * each as the `error` object of mcpx's JSON error output.
 */
export interface ChatJsonResult {
  readonly model: string;
  readonly answer: string | null;
  readonly toolCalls: readonly ChatJsonToolCall[];
  readonly errors: readonly Record<string, unknown>[];
}

/** Records one turn's tool calls from the agent's events, for the JSON result. */
export function createChatJsonRecorder(model: string) {
  const toolCalls: ChatJsonToolCall[] = [];
  const errors: Record<string, unknown>[] = [];
  return {
    onEvent(event: AgentEvent): void {
      if (event.type === 'tool-call') {
        toolCalls.push({ name: event.name, arguments: parseOrRaw(event.arguments) });
      } else if (event.type === 'tool-result') {
        // Results come in call order; the first call of that name still waiting gets it.
        const call = toolCalls.find((c) => c.name === event.name && c.result === undefined);
        if (call) {
          call.result = event.text;
          call.isError = event.isError;
        }
      }
    },
    addError(error: McpxError): void {
      errors.push(errorToJson(error).error);
    },
    result(answer: string | null): ChatJsonResult {
      return { model, answer, toolCalls, errors };
    },
  };
}

function parseOrRaw(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
