/**
 * OpenAI formats: Chat Completions and Responses API tool definitions, and a
 * model's tool call turned into an mcpx call and back into the message the
 * API expects. Typed with the official `openai` package (types only: nothing
 * of it is loaded at run time).
 *
 * @packageDocumentation
 */
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type {
  FunctionTool,
  ResponseFunctionCallOutputItem,
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

/**
 * Run a Chat Completions tool call; the `tool` message to append to the
 * conversation. A tool message holds text only, so images are described in it.
 * Arguments that are not valid JSON, bad arguments, a denial or a server
 * failure come back as an error text the model can read, never as a throw.
 */
export async function runOpenAIChatToolCall(
  set: AgentToolSet,
  call: ChatCompletionMessageToolCall,
  options: ToolCallOptions = {},
): Promise<ChatCompletionToolMessageParam> {
  if (call.type !== 'function') {
    // mcpx defines function tools only; a custom-tool call cannot be one of them.
    const content = `error [UNKNOWN_TOOL]: '${call.custom.name}' is not a function tool of this agent`;
    return { role: 'tool', tool_call_id: call.id, content };
  }
  const result = await callForModel(set, call.function.name, call.function.arguments, options);
  return { role: 'tool', tool_call_id: call.id, content: result.text };
}

/**
 * Run a Responses API function call; the `function_call_output` item to send
 * back: the text, plus the images as `input_image` parts when there are any.
 */
export async function runOpenAIResponsesCall(
  set: AgentToolSet,
  call: ResponseFunctionToolCall,
  options: ToolCallOptions = {},
): Promise<ResponseInputItem.FunctionCallOutput> {
  const result = await callForModel(set, call.name, call.arguments, options);
  const images: ResponseFunctionCallOutputItem[] = result.parts.flatMap((p) =>
    p.type === 'image'
      ? [{ type: 'input_image' as const, image_url: `data:${p.mimeType};base64,${p.data}` }]
      : [],
  );
  const output = images.length
    ? [{ type: 'input_text' as const, text: result.text || '(no output)' }, ...images]
    : result.text;
  return { type: 'function_call_output', call_id: call.call_id, output };
}
