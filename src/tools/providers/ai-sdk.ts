/**
 * Vercel AI SDK format: a `ToolSet` of `tool()` objects whose `execute`
 * calls through mcpx.
 *
 * RUN-TIME IMPORT OF `ai`: unlike the OpenAI and Anthropic adapters (types
 * only), this module loads the `ai` package. Only import it (`mcpx/ai-sdk`)
 * in a project that depends on the AI SDK.
 *
 * @packageDocumentation
 */
import { jsonSchema, type Tool, tool } from 'ai';
import type { AgentToolSet } from '../agent-tools.js';
import { callForModel } from '../call-for-model.js';
import type { AgentToolResult } from '../result.js';

/** The AI SDK's tool output for the model (not exported by `ai` itself). */
export type AiSdkToolOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

/**
 * Tools for `generateText({ tools })` / `streamText({ tools })`. Each
 * `execute` returns the converted mcpx result (never throws for what the
 * model can fix: bad arguments, a denial, a tool error); `toModelOutput`
 * gives the model its text, images as image parts, and failures as errors.
 */
export function toAiSdkTools(set: AgentToolSet): Record<string, Tool<unknown, AgentToolResult>> {
  const tools: Record<string, Tool<unknown, AgentToolResult>> = {};
  for (const t of set.tools) {
    tools[t.name] = tool<unknown, AgentToolResult>({
      description: t.description,
      inputSchema: jsonSchema(t.parameters as Parameters<typeof jsonSchema>[0]),
      execute: (input, { abortSignal }) =>
        callForModel(set, t.name, input, abortSignal ? { signal: abortSignal } : {}),
      toModelOutput: ({ output }) => toModelOutput(output),
    });
  }
  return tools;
}

/** What the model sees of a result. */
export function toModelOutput(result: AgentToolResult): AiSdkToolOutput {
  if (result.isError) return { type: 'error-text', value: result.text };
  const images = result.parts.flatMap((p) =>
    p.type === 'image' ? [{ type: 'image-data' as const, data: p.data, mediaType: p.mimeType }] : [],
  );
  if (images.length === 0) return { type: 'text', value: result.text };
  return { type: 'content', value: [{ type: 'text', text: result.text || '(no output)' }, ...images] };
}
