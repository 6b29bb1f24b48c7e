/**
 * Vercel AI SDK format: a `ToolSet` of `tool()` objects whose `execute`
 * calls through mcpx. Imports `ai` at run time — only load this module
 * (`mcpx/ai-sdk`) in a project that uses the AI SDK.
 */
import { jsonSchema, type Tool, tool } from 'ai';
import type { AgentToolSet } from '../agent-tools.js';
import { callForModel } from '../call-for-model.js';

/** Tools for `generateText({ tools })` / `streamText({ tools })`; each returns the result's text. */
export function toAiSdkTools(set: AgentToolSet): Record<string, Tool> {
  const tools: Record<string, Tool> = {};
  for (const t of set.tools) {
    tools[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema(t.parameters as Parameters<typeof jsonSchema>[0]),
      execute: async (input: unknown, { abortSignal }) => {
        const result = await callForModel(set, t.name, input, abortSignal ? { signal: abortSignal } : {});
        return result.isError ? { error: result.text } : result.text;
      },
    });
  }
  return tools;
}
