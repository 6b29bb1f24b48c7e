/**
 * `test_sampling_tool_loop`: a tool that runs its own agent loop on the
 * client's model (SEP-1577). It samples with a photo and a `get_weather` tool,
 * runs each tool the model calls, and samples again with the results until
 * the model answers in words (`audio: <MIME type>` adds a sound clip to the
 * first question). The conversation rides in the sealed
 * `requestState`, so the loop works in both eras: as `input_required` rounds
 * on 2026-07-28, through the SDK's legacy shim as real requests on 2025.
 */
import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type CreateMessageRequestParams,
  type InputRequest,
  inputRequired,
  inputResponse,
  type McpServer,
  type SamplingMessage,
  type ServerContext,
  type ToolResultContent,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type ConformanceState, text } from './conformance-kit.js';
import { MEDIA_PNG, MEDIA_WAV } from './media-tool.js';

/** Model calls before the tool gives up on a model that never stops calling tools. */
const MAX_ROUNDS = 4;

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The current weather in a city',
  inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

const weatherIn = (city: unknown) => `Sunny, 22 °C in ${typeof city === 'string' ? city : 'nowhere'}`;

function ask(messages: SamplingMessage[]): InputRequest {
  const params: CreateMessageRequestParams = {
    messages,
    systemPrompt: 'Answer with the weather where the photo was taken.',
    tools: [WEATHER_TOOL],
    toolChoice: { mode: 'auto' },
    maxTokens: 200,
  };
  return inputRequired.createMessage(params);
}

interface LoopState {
  readonly kind: 'sampling-tool-loop';
  readonly round: number;
  readonly messages: SamplingMessage[];
}

export function registerSamplingLoopTool(server: McpServer, state: ConformanceState): void {
  const seal = (payload: LoopState) => state.codec.mint({ ...payload, nonce: randomUUID() });
  const next = async (round: number, messages: SamplingMessage[]) =>
    inputRequired({
      inputRequests: { [`sample_${round}`]: ask(messages) },
      requestState: await seal({ kind: 'sampling-tool-loop', round, messages }),
    });
  server.registerTool(
    'test_sampling_tool_loop',
    {
      description:
        'Samples with a photo and a get_weather tool, runs the tools the model calls, and samples again until it answers (SEP-1577)',
      inputSchema: z.object({
        audio: z.string().optional().describe('Also send a sound clip declared as this MIME type'),
      }),
    },
    (async ({ audio }: { audio?: string }, ctx: ServerContext): Promise<unknown> => {
      const previous = ctx.mcpReq.requestState<Record<string, unknown>>() as LoopState | undefined;
      if (previous?.kind !== 'sampling-tool-loop') {
        return next(1, [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is the weather where this photo was taken?' },
              { type: 'image', data: MEDIA_PNG.toString('base64'), mimeType: 'image/png' },
              ...(audio
                ? [{ type: 'audio' as const, data: MEDIA_WAV.toString('base64'), mimeType: audio }]
                : []),
            ],
          },
        ]);
      }
      const view = inputResponse(ctx.mcpReq.inputResponses, `sample_${previous.round}`);
      if (view.kind !== 'sampling') return failed(`round ${previous.round}: no sampling result came back`);
      const { result } = view;
      const blocks = Array.isArray(result.content) ? result.content : [result.content];
      if (result.stopReason !== 'toolUse') {
        const words = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ');
        return text(`Final answer after ${previous.round - 1} tool round(s): ${words}`);
      }
      if (previous.round >= MAX_ROUNDS)
        return failed(`the model still called tools after ${MAX_ROUNDS} rounds`);
      const results: ToolResultContent[] = blocks.flatMap((b) =>
        b.type === 'tool_use'
          ? [
              {
                type: 'tool_result' as const,
                toolUseId: b.id,
                content: [
                  {
                    type: 'text' as const,
                    text: b.name === WEATHER_TOOL.name ? weatherIn(b.input.city) : `unknown tool ${b.name}`,
                  },
                ],
                ...(b.name === WEATHER_TOOL.name ? {} : { isError: true }),
              },
            ]
          : [],
      );
      return next(previous.round + 1, [
        ...previous.messages,
        { role: 'assistant', content: blocks },
        { role: 'user', content: results },
      ]);
    }) as never,
  );
}

const failed = (message: string): CallToolResult => ({
  content: [{ type: 'text', text: message }],
  isError: true,
});
