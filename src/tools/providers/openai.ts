/**
 * OpenAI formats: Chat Completions and Responses API tool definitions, and a
 * model's tool call turned into an mcpx call and back into the message the
 * API expects. Typed with the official `openai` package (types only: nothing
 * of it is loaded at run time).
 */
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type {
  FunctionTool,
  ResponseFunctionToolCall,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import type { AgentTool, AgentToolSet } from '../agent-tools.js';
import { callForModel } from '../call-for-model.js';
import type { ToolCallOptions } from '../tool-source.js';

/** `tools` for `chat.completions.create`. */
export function toOpenAIChatTools(tools: readonly AgentTool[]): ChatCompletionFunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** `tools` for `responses.create` (not strict: MCP schemas rarely meet strict mode's rules). */
export function toOpenAIResponsesTools(tools: readonly AgentTool[]): FunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: false,
  }));
}

/** Run a Chat Completions tool call; the `tool` message to append to the conversation. */
export async function runOpenAIChatToolCall(
  set: AgentToolSet,
  call: ChatCompletionMessageFunctionToolCall,
  options: ToolCallOptions = {},
): Promise<ChatCompletionToolMessageParam> {
  const result = await callForModel(set, call.function.name, call.function.arguments, options);
  return { role: 'tool', tool_call_id: call.id, content: result.text };
}

/** Run a Responses API function call; the `function_call_output` item to send back. */
export async function runOpenAIResponsesCall(
  set: AgentToolSet,
  call: ResponseFunctionToolCall,
  options: ToolCallOptions = {},
): Promise<ResponseInputItem.FunctionCallOutput> {
  const result = await callForModel(set, call.name, call.arguments, options);
  return { type: 'function_call_output', call_id: call.call_id, output: result.text };
}
