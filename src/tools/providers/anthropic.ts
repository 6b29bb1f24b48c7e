/**
 * Anthropic formats: Messages API tool definitions, and a `tool_use` block
 * turned into an mcpx call and back into a `tool_result` (images kept as
 * image blocks). Typed with the official `@anthropic-ai/sdk` (types only).
 *
 * @packageDocumentation
 */
import type {
  Tool as AnthropicTool,
  ImageBlockParam,
  TextBlockParam,
  ToolResultBlockParam,
  ToolUseBlock,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { AgentTool, AgentToolSet } from '../agent-tools.js';
import { callForModel } from '../call-for-model.js';
import type { ToolCallOptions } from '../tool-source.js';

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** `tools` for `messages.create`. */
export function toAnthropicTools(tools: readonly AgentTool[]): AnthropicTool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: 'object', ...t.parameters } as AnthropicTool.InputSchema,
  }));
}

/**
 * Run a `tool_use` block (from a response, or replayed from history); the
 * `tool_result` block for the next user message. Bad arguments, a denial or
 * a failure come back as an `is_error` result, never as a throw.
 */
export async function runAnthropicToolUse(
  set: AgentToolSet,
  block: ToolUseBlock | ToolUseBlockParam,
  options: ToolCallOptions = {},
): Promise<ToolResultBlockParam> {
  const result = await callForModel(set, block.name, block.input, options);
  const images: ImageBlockParam[] = result.parts.flatMap((p) =>
    p.type === 'image' && IMAGE_TYPES.has(p.mimeType)
      ? [
          {
            type: 'image' as const,
            source: {
              type: 'base64' as const,
              media_type: p.mimeType as 'image/png',
              data: p.data,
            },
          },
        ]
      : [],
  );
  const text: TextBlockParam = { type: 'text', text: result.text || '(no output)' };
  return {
    type: 'tool_result',
    tool_use_id: block.id,
    content: [text, ...images],
    ...(result.isError ? { is_error: true } : {}),
  };
}
