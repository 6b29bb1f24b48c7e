/**
 * `mcpx chat` answering a server's sampling with tools (SEP-1577), as a person
 * runs it: the built CLI in a real terminal, a scripted model, and the
 * conformance backend's `test_sampling_tool_loop`, which samples with a photo
 * and a tool and loops on tool use until the model answers in words.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../../src/testing/fake-model-server.js';
import { MEDIA_PNG } from '../../src/testing/media-tool.js';
import { runChat } from '../helpers/chat.js';
import { repoRoot, tempDir } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';

const backendPath = join(repoRoot, 'dist/testing/conformance-backend.js');
const KEY = { enter: '\r', ctrlD: '\x04' };

let dir: { path: string; remove: () => Promise<void> };
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(async () => {
  dir = await tempDir('mcpx-chat-sampling-');
});
afterAll(() => dir.remove());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface ModelRequest {
  messages: {
    role: string;
    content: unknown;
    tool_calls?: { function: { name: string; arguments: string } }[];
  }[];
  tools?: { function: { name: string } }[];
  tool_choice?: unknown;
}

describe('mcpx chat: a server samples with tools and an image', () => {
  // 2025-11-25: real sampling requests; 2026-07-28: input_required rounds of the one tool call.
  it.each(['legacy', 'modern'])(
    'passes the tools and the image to the model, returns its tool use, and loops to a final answer (protocol %s)',
    {
      timeout: 60_000,
    },
    async (protocol) => {
      const home = join(dir.path, protocol);
      await mkdir(join(home, '.mcpx'), { recursive: true });
      await writeFile(
        join(home, '.mcpx', 'mcp.json'),
        JSON.stringify({
          mcpServers: { weather: { command: process.execPath, args: [backendPath], protocol } },
        }),
      );
      const model = await startFakeModelServer([
        // The chat's turn: the model calls the server's tool...
        { toolCalls: [{ name: 'mcp_weather_test_sampling_tool_loop', arguments: {} }] },
        // ...which samples: first the model calls the server's own tool,
        { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
        // then, given its result, answers in words;
        { text: 'It is sunny in Paris.' },
        // and the chat's model reads the tool's result.
        { text: 'The weather tool says it is sunny in Paris.' },
      ]);
      cleanups.push(() => model.close());
      const term = runInPty(
        ['chat', '--base-url', model.baseUrl, '--model', 'fake', '--permission', 'yolo'],
        {
          cwd: dir.path,
          home,
          env: { OPENAI_API_KEY: 'sk-test' },
        },
      );
      cleanups.push(() => term.kill());
      await term.waitFor('> ');
      await term.type('what is the weather in my photo?', KEY.enter);
      await term.waitFor("Server 'weather' asks the model (up to 200 tokens, 1 image, 1 tool (get_weather))");
      await term.waitFor('What is the weather where this photo was taken?');
      await term.waitFor('Allow?');
      await term.type('y', KEY.enter);
      // The loop's second request (the whole conversation, photo included, with the tool's result)
      // goes to the model only once the person allows it too.
      await term.waitFor("Server 'weather' asks the model (up to 200 tokens, 1 image, 1 tool (get_weather))");
      await term.waitFor('(tool result) Sunny, 22 °C in Paris');
      await term.waitFor('Allow?');
      await term.type('y', KEY.enter);
      await term.waitFor('The weather tool says it is sunny in Paris.');
      // Back at the prompt, as a person would be, before leaving.
      await term.waitFor('> ');
      await term.type(KEY.ctrlD);
      expect(await term.exited).toBe(0);

      const requests = model.requests as unknown as ModelRequest[];
      expect(requests).toHaveLength(4);
      const [, first, second, last] = requests;
      // The first sampling request: the server's tool and its photo reached the model.
      expect(first?.tools?.map((t) => t.function.name)).toEqual(['get_weather']);
      expect(first?.tool_choice).toBe('auto');
      expect(first?.messages.at(-1)?.content).toEqual([
        { type: 'text', text: 'What is the weather where this photo was taken?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${MEDIA_PNG.toString('base64')}` } },
      ]);
      // The second: the server got the model's tool use, ran the tool and sent back its result.
      expect(second?.messages.at(-2)?.tool_calls?.[0]?.function).toEqual({
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      });
      expect(second?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Sunny, 22 °C in Paris' });
      // The server's tool ended with the model's final words.
      const toolResult = last?.messages.find((m) => m.role === 'tool');
      expect(toolResult?.content).toBe('Final answer after 1 tool round(s): It is sunny in Paris.');
    },
  );

  // On 2025-11-25, so that the refusal is a JSON-RPC error the server itself receives.
  it('refuses a sound clip the model API cannot take: the server and the person are told why', async () => {
    const config = join(dir.path, 'weather.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: { weather: { command: process.execPath, args: [backendPath], protocol: 'legacy' } },
      }),
    );
    const model = await startFakeModelServer([
      { toolCalls: [{ name: 'mcp_weather_test_sampling_tool_loop', arguments: { audio: 'audio/ogg' } }] },
      { text: 'The server could not sample.' },
    ]);
    cleanups.push(() => model.close());
    const run = await runChat({
      baseUrl: model.baseUrl,
      cwd: dir.path,
      home: dir.path,
      args: ['--permission', 'yolo'],
      globalArgs: ['--config', config],
      input: 'what is the weather in my recording?\n',
    });
    expect(run.stdout, run.stderr).toBe('The server could not sample.\n');
    const why =
      'mcpx cannot pass audio of type audio/ogg to the model: the Chat Completions API takes audio input as WAV or MP3 only';
    expect(run.stderr).toContain(`Server 'weather' asked the model: refused, ${why}`);
    // The server got the refusal and its tool failed with it; the sampling never reached the model.
    const toolResult = (model.requests[1] as unknown as ModelRequest).messages.find((m) => m.role === 'tool');
    expect(toolResult?.content).toContain(`Fulfilling input required by 'tools/call' failed: ${why}`);
    expect(model.requests).toHaveLength(2);
  });
});
