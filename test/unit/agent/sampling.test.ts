/** A server's sampling request in the chat model's terms, and the model's reply back (SEP-1577). */
import type { CreateMessageRequestParams } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatModel, openAICompatibleModel } from '../../../src/agent/chat-model.js';
import { modelSampling, type SamplingQuestion, samplingExtras } from '../../../src/agent/sampling.js';
import { fromModelReply, toModelRequest } from '../../../src/agent/sampling-messages.js';
import { capabilitiesFor, RequestRefused } from '../../../src/client/features.js';
import { type FakeModelServer, startFakeModelServer } from '../../../src/testing/fake-model-server.js';

const PNG = 'iVBORw0KGgo=';
const WAV = 'UklGRg==';
const weather = {
  name: 'weather.get',
  description: 'The weather in a city',
  inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

const request = (extra: Partial<CreateMessageRequestParams>): CreateMessageRequestParams => ({
  messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
  maxTokens: 100,
  ...extra,
});

/** The refusal a request gets: its JSON-RPC code and message. */
function refusal(run: () => unknown): { code: number; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof RequestRefused) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('not refused');
}

describe('sampling request → model request', () => {
  it('passes text, images as data URLs and WAV audio as input_audio, with the system prompt', () => {
    const translated = toModelRequest(
      request({
        systemPrompt: 'Be brief.',
        temperature: 0.2,
        stopSequences: ['END'],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this picture and this sound?' },
              { type: 'image', data: PNG, mimeType: 'image/png' },
              { type: 'audio', data: WAV, mimeType: 'audio/wav' },
            ],
          },
        ],
      }),
    );
    expect(translated.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture and this sound?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } },
        ],
      },
    ]);
    expect(translated).toMatchObject({
      tools: [],
      maxTokens: 100,
      temperature: 0.2,
      stop: ['END'],
      preview: 'What is in this picture and this sound?',
      images: 1,
      audio: 1,
    });
    expect(translated.toolChoice).toBeUndefined();
  });

  it('offers the tools as functions (names made valid for the API) with the tool choice', () => {
    const translated = toModelRequest(request({ tools: [weather], toolChoice: { mode: 'required' } }));
    expect(translated.tools).toEqual([
      {
        type: 'function',
        function: { name: 'weather_get', description: weather.description, parameters: weather.inputSchema },
      },
    ]);
    expect(translated.toolChoice).toBe('required');
    expect(translated.toolNames).toEqual(['weather.get']);
    expect(toModelRequest(request({ tools: [weather], toolChoice: { mode: 'none' } })).toolChoice).toBe(
      'none',
    );
  });

  it('turns the loop’s tool_use into assistant tool_calls and tool_result into tool messages', () => {
    const translated = toModelRequest(
      request({
        tools: [weather],
        messages: [
          { role: 'user', content: { type: 'text', text: 'Weather in Paris?' } },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 'call_1', name: 'weather.get', input: { city: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                toolUseId: 'call_1',
                content: [
                  { type: 'text', text: 'Sunny, 22 °C' },
                  { type: 'image', data: PNG, mimeType: 'image/png' },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(translated.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'weather_get', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 22 °C' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The tool results above came with these attachments:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
    expect(translated.preview).toBe('(tool result) Sunny, 22 °C');
    expect(translated.images).toBe(1);
  });

  it('marks a failed tool result and says when a tool returned nothing', () => {
    const translated = toModelRequest(
      request({
        messages: [
          { role: 'assistant', content: { type: 'tool_use', id: 'a', name: 'x', input: {} } },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                toolUseId: 'a',
                content: [{ type: 'text', text: 'boom' }],
                isError: true,
              },
            ],
          },
        ],
      }),
    );
    expect(translated.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'a', content: 'error: boom' });
  });

  it.each<[string, Partial<CreateMessageRequestParams>, RegExp]>([
    [
      'audio the API has no format for',
      { messages: [{ role: 'user', content: { type: 'audio', data: WAV, mimeType: 'audio/ogg' } }] },
      /audio of type audio\/ogg.*WAV or MP3/,
    ],
    [
      'an image said by the assistant',
      { messages: [{ role: 'assistant', content: { type: 'image', data: PNG, mimeType: 'image/png' } }] },
      /an image block in an assistant message.*from the user only/,
    ],
    [
      'a tool call made by the user',
      { messages: [{ role: 'user', content: { type: 'tool_use', id: 'a', name: 'x', input: {} } }] },
      /a tool_use block in a user message/,
    ],
    [
      "toolChoice 'required' with no tools",
      { toolChoice: { mode: 'required' } },
      /toolChoice 'required'.*offers no tools/,
    ],
    [
      'two tools whose names collide once valid for the API',
      { tools: [weather, { ...weather, name: 'weather/get' }] },
      /tools 'weather.get' and 'weather\/get'.*both become 'weather_get'/,
    ],
    [
      'a tool name longer than the API allows',
      { tools: [{ ...weather, name: 'x'.repeat(65) }] },
      /64 characters/,
    ],
    [
      'a binary resource in a tool result',
      {
        messages: [
          { role: 'assistant', content: { type: 'tool_use', id: 'a', name: 'x', input: {} } },
          {
            role: 'user',
            content: {
              type: 'tool_result',
              toolUseId: 'a',
              content: [{ type: 'resource', resource: { uri: 'file:///b', blob: 'AA==' } }],
            },
          },
        ],
      },
      /a binary resource in the result of tool call a/,
    ],
  ])('refuses %s as Invalid params, naming it', (_what, extra, message) => {
    const refused = refusal(() => toModelRequest(request(extra)));
    expect(refused.code).toBe(-32602);
    expect(refused.message).toMatch(/^mcpx cannot pass /);
    expect(refused.message).toMatch(message);
  });
});

describe('model reply → sampling result', () => {
  const params = request({ tools: [weather] });

  it('words end the turn', () => {
    expect(fromModelReply(params, { role: 'assistant', content: 'Sunny.' }, 'm')).toEqual({
      model: 'm',
      role: 'assistant',
      content: { type: 'text', text: 'Sunny.' },
      stopReason: 'endTurn',
    });
  });

  it('tool calls stop for tool use, under the server’s own tool names', () => {
    const result = fromModelReply(
      params,
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_9', type: 'function', function: { name: 'weather_get', arguments: '{"city":"Oslo"}' } },
        ],
      },
      'm',
    );
    expect(result).toEqual({
      model: 'm',
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_9', name: 'weather.get', input: { city: 'Oslo' } },
      ],
      stopReason: 'toolUse',
    });
  });

  it('refuses a call whose arguments are not a JSON object', () => {
    const refused = refusal(() =>
      fromModelReply(
        params,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'weather_get', arguments: '[1' } }],
        },
        'm',
      ),
    );
    expect(refused).toEqual({
      code: -32603,
      message: "the model called tool 'weather.get' with arguments that are not a JSON object",
    });
  });
});

describe('modelSampling', () => {
  function setup(approve = true) {
    const sent: Parameters<ChatModel['complete']>[0][] = [];
    const questions: SamplingQuestion[] = [];
    const refusals: string[] = [];
    const model: ChatModel = {
      model: 'small',
      complete: async (req) => {
        sent.push(req);
        return {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'weather_get', arguments: '{}' } }],
        };
      },
    };
    const handler = modelSampling({
      model,
      maxTokens: 64,
      approve: async (q) => {
        questions.push(q);
        return approve;
      },
      onRefused: (m) => refusals.push(m),
    });
    return { handler, sent, questions, refusals };
  }
  const signal = new AbortController().signal;

  it('is declared with tool support', () => {
    expect(capabilitiesFor({ sampling: setup().handler })).toEqual({ sampling: { tools: {} } });
    expect(capabilitiesFor({ sampling: { createMessage: async () => ({}) as never } })).toEqual({
      sampling: {},
    });
  });

  it('asks first with the preview, tools and images; then sends tools and tool choice to the model', async () => {
    const { handler, sent, questions } = setup();
    const result = await handler.createMessage(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Where is this?' },
              { type: 'image', data: PNG, mimeType: 'image/png' },
            ],
          },
        ],
        tools: [weather],
        toolChoice: { mode: 'auto' },
        modelPreferences: { hints: [{ name: 'claude' }] },
      }),
      { signal },
    );
    expect(questions).toEqual([
      {
        preview: 'Where is this?',
        maxTokens: 100,
        toolNames: ['weather.get'],
        images: 1,
        audio: 0,
        hints: ['claude'],
        model: 'small',
      },
    ]);
    expect(samplingExtras(questions[0] as SamplingQuestion)).toBe(', 1 image, 1 tool (weather.get)');
    expect(sent[0]).toMatchObject({ toolChoice: 'auto', maxTokens: 100, tools: [{ type: 'function' }] });
    expect(result).toMatchObject({
      stopReason: 'toolUse',
      content: [{ type: 'tool_use', name: 'weather.get' }],
    });
    expect(handler.maxTokens).toBe(64);
  });

  it('a declined request never reaches the model (-1)', async () => {
    const { handler, sent } = setup(false);
    await expect(handler.createMessage(request({}), { signal })).rejects.toMatchObject({ code: -1 });
    expect(sent).toHaveLength(0);
  });

  it('what the model cannot take is refused before anyone is asked, and the host is told', async () => {
    const { handler, sent, questions, refusals } = setup();
    const refused = handler
      .createMessage(
        request({
          messages: [{ role: 'user', content: { type: 'audio', data: WAV, mimeType: 'audio/flac' } }],
        }),
        { signal },
      )
      .catch((e: unknown) => e);
    expect(await refused).toMatchObject({ code: -32602, message: expect.stringMatching(/audio\/flac/) });
    expect(refusals).toEqual([((await refused) as Error).message]);
    expect(questions).toHaveLength(0);
    expect(sent).toHaveLength(0);
  });
});

describe('openAICompatibleModel', () => {
  let fake: FakeModelServer | undefined;
  afterEach(() => fake?.close());

  it('sends the tool choice, temperature and stop sequences', async () => {
    fake = await startFakeModelServer([{ text: 'ok' }]);
    const model = openAICompatibleModel({ baseUrl: fake.baseUrl, model: 'fake', maxRetries: 0 });
    const tool = { type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } };
    await model.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [tool],
      toolChoice: 'required',
      temperature: 0,
      stop: ['END'],
    });
    expect(fake.requests[0]).toMatchObject({ tool_choice: 'required', temperature: 0, stop: ['END'] });
  });
});
