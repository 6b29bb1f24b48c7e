import type { CallToolResult } from '@modelcontextprotocol/client';
import { SpanKind } from '@opentelemetry/api';
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { type AgentToolSet, callForModel } from '../tools/index.js';
import { toOpenAIChatTools } from '../tools/providers/openai.js';
import { ATTR_ERROR_TYPE, inSpan, mcpxTracer } from '../tracing/index.js';
import type { ChatModel } from './chat-model.js';

export type AgentEvent =
  | { readonly type: 'assistant'; readonly text: string }
  | { readonly type: 'tool-call'; readonly name: string; readonly arguments: string }
  | {
      readonly type: 'tool-result';
      readonly name: string;
      readonly text: string;
      readonly isError: boolean;
      /** The arguments the model gave (JSON text), and the server's result as it came, when a server answered. */
      readonly arguments: string;
      readonly result?: CallToolResult;
    }
  | { readonly type: 'step-limit'; readonly steps: number };

export interface AgentTurnOptions {
  /** Model calls in one turn before giving up (each may request several tools). Default 10. */
  readonly maxSteps?: number;
  readonly maxTokens?: number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: AgentEvent) => void;
  /** The answer's text as it streams in (the final answer is still returned whole). */
  readonly onText?: (delta: string) => void;
}

/**
 * One user turn: ask the model, run the tools it asks for through mcpx (a
 * denial or bad arguments go back to it as an error it can explain), feed the
 * results back, until it answers in words or the step limit is reached.
 * `history` is extended in place. Returns the final answer.
 */
export async function runAgentTurn(
  model: ChatModel,
  tools: AgentToolSet,
  history: ChatCompletionMessageParam[],
  userText: string,
  options: AgentTurnOptions = {},
): Promise<string> {
  history.push({ role: 'user', content: userText });
  return continueAgentTurn(model, tools, history, options);
}

/**
 * The same turn for a conversation whose last message is already the user's
 * (a prompt template put into it): the model answers what `history` holds.
 */
export async function continueAgentTurn(
  model: ChatModel,
  tools: AgentToolSet,
  history: ChatCompletionMessageParam[],
  options: AgentTurnOptions = {},
): Promise<string> {
  // The turn is one span (gen_ai `invoke_agent`); each model call and each tool it asks for are
  // its children, and the tool's MCP request is the tool span's child.
  const tracer = mcpxTracer();
  return inSpan(
    tracer,
    'invoke_agent mcpx',
    { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.request.model': model.model } },
    () => turn(model, tools, history, options),
  );
}

async function turn(
  model: ChatModel,
  tools: AgentToolSet,
  history: ChatCompletionMessageParam[],
  options: AgentTurnOptions,
): Promise<string> {
  const tracer = mcpxTracer();
  const maxSteps = options.maxSteps ?? 10;
  for (let step = 0; step < maxSteps; step++) {
    const reply = await inSpan(
      tracer,
      `chat ${model.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model.model },
      },
      () =>
        model.complete({
          messages: history,
          tools: toOpenAIChatTools(tools.tools),
          ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onText ? { onText: options.onText } : {}),
        }),
    );
    history.push(reply);
    const text = typeof reply.content === 'string' ? reply.content : '';
    const calls = (reply.tool_calls ?? []).filter(
      (c): c is ChatCompletionMessageFunctionToolCall => c.type === 'function',
    );
    if (text) options.onEvent?.({ type: 'assistant', text });
    if (calls.length === 0) return text;
    for (const call of calls) {
      options.onEvent?.({ type: 'tool-call', name: call.function.name, arguments: call.function.arguments });
      const result = await inSpan(
        tracer,
        `execute_tool ${call.function.name}`,
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': call.function.name,
            'gen_ai.tool.call.id': call.id,
          },
        },
        async (span) => {
          const outcome = await callForModel(
            tools,
            call.function.name,
            call.function.arguments,
            options.signal ? { signal: options.signal } : {},
          );
          if (outcome.isError) span.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
          return outcome;
        },
      );
      options.onEvent?.({
        type: 'tool-result',
        name: call.function.name,
        text: result.text,
        isError: result.isError,
        arguments: call.function.arguments,
        ...(result.result ? { result: result.result } : {}),
      });
      const message: ChatCompletionToolMessageParam = {
        role: 'tool',
        tool_call_id: call.id,
        content: result.text,
      };
      history.push(message);
    }
  }
  options.onEvent?.({ type: 'step-limit', steps: maxSteps });
  return `(stopped after ${maxSteps} step${maxSteps === 1 ? '' : 's'} without a final answer; raise --max-steps to let the agent go on)`;
}
