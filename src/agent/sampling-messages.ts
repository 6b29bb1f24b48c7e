/**
 * A server's `sampling/createMessage` request in the chat model's terms (the
 * OpenAI Chat Completions format `chat-model.ts` speaks), and the model's
 * reply back as an MCP result. SEP-1577 (2025-11-25) lets a request carry
 * tools, a tool choice, images, audio and the tool_use / tool_result turns of
 * a loop the server runs; all of it is passed on, and what the model API
 * cannot take is refused with a message that names it, never dropped.
 */
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  CreateMessageResultWithTools,
  SamplingMessage,
  SamplingMessageContentBlock,
  ToolResultContent,
  ToolUseContent,
} from '@modelcontextprotocol/client';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { RequestRefused } from '../client/index.js';

/** JSON-RPC's "Invalid params": the request asks for something this model API cannot take. */
const INVALID_PARAMS = -32602;
/** JSON-RPC's "Internal error": the model answered something that is not a valid MCP result. */
const INTERNAL_ERROR = -32603;

/** How the model is told which tools it may or must call. */
export type ModelToolChoice = 'auto' | 'required' | 'none';

/** A sampling request ready for `ChatModel.complete`, with what a person is shown before consenting. */
export interface ModelSamplingRequest {
  readonly messages: ChatCompletionMessageParam[];
  readonly tools: ChatCompletionFunctionTool[];
  readonly toolChoice?: ModelToolChoice;
  readonly maxTokens: number;
  readonly temperature?: number;
  readonly stop?: string[];
  /** The text of the last message (a prompt, or the tool results fed back), unsanitized. */
  readonly preview: string;
  /** The names of the tools offered, as the server gave them. */
  readonly toolNames: readonly string[];
  readonly images: number;
  readonly audio: number;
}

/** A request the model cannot take: answered to the server as Invalid params, naming what and why. */
export function samplingUnsupported(what: string, why: string): RequestRefused {
  return new RequestRefused(INVALID_PARAMS, `mcpx cannot pass ${what} to the model: ${why}`);
}

// Chat Completions function names: https://platform.openai.com/docs/api-reference/chat/create
const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A server's tool name as the model API accepts it (MCP also allows dots). */
function modelToolName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

const blocksOf = (message: SamplingMessage): SamplingMessageContentBlock[] =>
  Array.isArray(message.content) ? message.content : [message.content];

// Chat Completions' `input_audio` takes these two formats only.
const AUDIO_FORMATS: Readonly<Record<string, 'wav' | 'mp3'>> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
};

interface Counts {
  images: number;
  audio: number;
}

/** An image or audio block as a user content part; anything else the API cannot express is refused. */
function mediaPart(
  block: { type: 'image' | 'audio'; data: string; mimeType: string },
  counts: Counts,
): ChatCompletionContentPart {
  if (block.type === 'image') {
    counts.images += 1;
    return { type: 'image_url', image_url: { url: `data:${block.mimeType};base64,${block.data}` } };
  }
  const format = AUDIO_FORMATS[block.mimeType.toLowerCase()];
  if (!format) {
    throw samplingUnsupported(
      `audio of type ${block.mimeType}`,
      'the Chat Completions API takes audio input as WAV or MP3 only',
    );
  }
  counts.audio += 1;
  return { type: 'input_audio', input_audio: { data: block.data, format } };
}

/** One tool result as the `tool` message's text, and its images and audio for a user message after it. */
function toolResultParts(
  result: ToolResultContent,
  counts: Counts,
): { text: string; media: ChatCompletionContentPart[] } {
  const texts: string[] = [];
  const media: ChatCompletionContentPart[] = [];
  for (const part of result.content) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'image' || part.type === 'audio') media.push(mediaPart(part, counts));
    else if (part.type === 'resource_link') texts.push(`[resource ${part.name}: ${part.uri}]`);
    else if (part.type === 'resource' && 'text' in part.resource) texts.push(part.resource.text);
    else
      throw samplingUnsupported(
        `a binary resource in the result of tool call ${result.toolUseId}`,
        'the model API takes text, images and audio only',
      );
  }
  if (!texts.length && result.structuredContent !== undefined)
    texts.push(JSON.stringify(result.structuredContent));
  const text = texts.join('\n') || '(no output)';
  return { text: result.isError ? `error: ${text}` : text, media };
}

/** A user turn: its own content parts, or (a tool-result turn) one `tool` message per result. */
function userMessages(blocks: SamplingMessageContentBlock[], counts: Counts): ChatCompletionMessageParam[] {
  const results = blocks.filter((b): b is ToolResultContent => b.type === 'tool_result');
  if (results.length) {
    if (results.length !== blocks.length)
      throw samplingUnsupported(
        'a message mixing tool results with other content',
        'the spec requires a tool-result message to hold tool results only',
      );
    const messages: ChatCompletionMessageParam[] = [];
    const media: ChatCompletionContentPart[] = [];
    for (const result of results) {
      const parts = toolResultParts(result, counts);
      messages.push({ role: 'tool', tool_call_id: result.toolUseId, content: parts.text });
      media.push(...parts.media);
    }
    // A `tool` message holds text only: the images and audio the tools returned follow as the user's.
    if (media.length)
      messages.push({
        role: 'user',
        content: [{ type: 'text', text: 'The tool results above came with these attachments:' }, ...media],
      });
    return messages;
  }
  const parts = blocks.map((block): ChatCompletionContentPart => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'image' || block.type === 'audio') return mediaPart(block, counts);
    throw samplingUnsupported(`a ${block.type} block in a user message`, 'only the assistant calls tools');
  });
  const [only] = parts;
  return [{ role: 'user', content: parts.length === 1 && only?.type === 'text' ? only.text : parts }];
}

/** An assistant turn: its words and the tool calls it made. */
function assistantMessage(blocks: SamplingMessageContentBlock[]): ChatCompletionAssistantMessageParam {
  const texts: string[] = [];
  const calls: ChatCompletionMessageFunctionToolCall[] = [];
  for (const block of blocks) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'tool_use')
      calls.push({
        id: block.id,
        type: 'function',
        function: { name: modelToolName(block.name), arguments: JSON.stringify(block.input) },
      });
    else
      throw samplingUnsupported(
        `a${block.type === 'image' || block.type === 'audio' ? 'n' : ''} ${block.type} block in an assistant message`,
        'the Chat Completions API takes images, audio and tool results from the user only',
      );
  }
  return {
    role: 'assistant',
    content: texts.length ? texts.join('\n') : null,
    ...(calls.length ? { tool_calls: calls } : {}),
  };
}

/** The text a person reads before consenting: the last message's words, or the tool results fed back. */
function previewOf(message: SamplingMessage | undefined): string {
  if (!message) return '';
  const texts = blocksOf(message).flatMap((block) => {
    if (block.type === 'text') return [block.text];
    if (block.type === 'tool_result')
      return [`(tool result) ${block.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ')}`];
    if (block.type === 'tool_use') return [`(calls ${block.name})`];
    return [];
  });
  return texts.join('\n');
}

function modelToolChoice(params: CreateMessageRequestParams, hasTools: boolean): ModelToolChoice | undefined {
  const mode = params.toolChoice?.mode;
  if (mode === undefined) return undefined;
  if (mode !== 'auto' && mode !== 'required' && mode !== 'none')
    throw samplingUnsupported(
      `toolChoice mode '${String(mode)}'`,
      'the model API knows auto, required and none',
    );
  if (mode === 'required' && !hasTools)
    throw samplingUnsupported("toolChoice 'required'", 'the request offers no tools to call');
  return hasTools ? mode : undefined;
}

/**
 * The request in the model's terms. Throws `RequestRefused` (Invalid params,
 * naming what and why) for what the model API cannot take: audio other than
 * WAV or MP3, images or audio said by the assistant, a binary resource, a tool
 * name that two tools would share once made valid for the API.
 */
export function toModelRequest(params: CreateMessageRequestParams): ModelSamplingRequest {
  const counts: Counts = { images: 0, audio: 0 };
  const tools = (params.tools ?? []).map((tool): ChatCompletionFunctionTool => {
    const name = modelToolName(tool.name);
    if (!MODEL_TOOL_NAME.test(name))
      throw samplingUnsupported(
        `tool '${tool.name}'`,
        'its name is empty or longer than the 64 characters the model API allows',
      );
    return {
      type: 'function',
      function: {
        name,
        ...(tool.description ? { description: tool.description } : {}),
        parameters: tool.inputSchema as Record<string, unknown>,
      },
    };
  });
  const seen = new Map<string, string>();
  for (const [i, tool] of tools.entries()) {
    const original = params.tools?.[i]?.name ?? '';
    const other = seen.get(tool.function.name);
    if (other !== undefined)
      throw samplingUnsupported(
        `tools '${other}' and '${original}'`,
        `both become '${tool.function.name}' in the model API's alphabet (letters, digits, _ and -)`,
      );
    seen.set(tool.function.name, original);
  }
  const messages: ChatCompletionMessageParam[] = [
    ...(params.systemPrompt ? [{ role: 'system' as const, content: params.systemPrompt }] : []),
    ...params.messages.flatMap((m) =>
      m.role === 'assistant' ? [assistantMessage(blocksOf(m))] : userMessages(blocksOf(m), counts),
    ),
  ];
  const toolChoice = modelToolChoice(params, tools.length > 0);
  return {
    messages,
    tools,
    ...(toolChoice ? { toolChoice } : {}),
    maxTokens: params.maxTokens,
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.stopSequences?.length ? { stop: [...params.stopSequences] } : {}),
    preview: previewOf(params.messages.at(-1)),
    toolNames: (params.tools ?? []).map((t) => t.name),
    images: counts.images,
    audio: counts.audio,
  };
}

function replyText(reply: ChatCompletionAssistantMessageParam): string {
  const { content } = reply;
  if (typeof content === 'string') return content;
  return (content ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}

/**
 * The model's reply as the MCP result: its words (`endTurn`), or, when it
 * calls tools, `stopReason: "toolUse"` with one `tool_use` block per call (the
 * server runs them and asks again with the results). A call whose arguments
 * are not a JSON object is refused: the server could not run it.
 */
export function fromModelReply(
  params: CreateMessageRequestParams,
  reply: ChatCompletionAssistantMessageParam,
  model: string,
): CreateMessageResult | CreateMessageResultWithTools {
  const text = replyText(reply);
  const names = new Map((params.tools ?? []).map((t) => [modelToolName(t.name), t.name]));
  const uses = (reply.tool_calls ?? []).map((call): ToolUseContent => {
    if (call.type !== 'function')
      throw new RequestRefused(
        INTERNAL_ERROR,
        `the model made a ${call.type} tool call, not a function call`,
      );
    const name = names.get(call.function.name) ?? call.function.name;
    let input: unknown;
    try {
      input = JSON.parse(call.function.arguments || '{}');
    } catch {
      input = undefined;
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw new RequestRefused(
        INTERNAL_ERROR,
        `the model called tool '${name}' with arguments that are not a JSON object`,
      );
    return { type: 'tool_use', id: call.id, name, input: input as Record<string, unknown> };
  });
  if (!uses.length)
    return { model, role: 'assistant', content: { type: 'text', text }, stopReason: 'endTurn' };
  return {
    model,
    role: 'assistant',
    content: [...(text ? [{ type: 'text' as const, text }] : []), ...uses],
    stopReason: 'toolUse',
  };
}
