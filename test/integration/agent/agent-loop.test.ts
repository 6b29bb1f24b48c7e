import { afterEach, describe, expect, it } from 'vitest';
import { runAgentTurn } from '../../../src/agent/agent-loop.js';
import { openAICompatibleModel } from '../../../src/agent/chat-model.js';
import { ErrorCode } from '../../../src/errors/index.js';
import { ServerRegistry } from '../../../src/registry/index.js';
import {
  type FakeModelServer,
  type ScriptedReply,
  startFakeModelServer,
} from '../../../src/testing/fake-model-server.js';
import { createAgentTools } from '../../../src/tools/index.js';
import { realConnector, testServer } from '../../helpers/servers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function fakeModel(script: ScriptedReply[]): Promise<FakeModelServer> {
  const fake = await startFakeModelServer(script);
  closers.push(() => fake.close());
  return fake;
}

async function demoTools(allow = true) {
  const registry = new ServerRegistry([testServer('demo')], { connector: realConnector() });
  closers.push(() => registry.close());
  await registry.connectAll();
  return createAgentTools(registry, allow ? { guard: { check: async () => {} } } : {});
}

describe('runAgentTurn with a scripted OpenAI-compatible model and the real test server', () => {
  it('calls the tool the model asks for and answers with its result', async () => {
    const fake = await fakeModel([
      { toolCalls: [{ name: 'mcp_demo_echo', arguments: { message: 'ping from the model' } }] },
      { text: 'The server said: ping from the model' },
    ]);
    const model = openAICompatibleModel({ baseUrl: fake.baseUrl, apiKey: 'sk-test-secret', model: 'fake-1' });
    const history: Parameters<typeof runAgentTurn>[2] = [];
    const events: string[] = [];
    const deltas: string[] = [];
    const answer = await runAgentTurn(model, await demoTools(), history, 'echo something', {
      onEvent: (e) => events.push(e.type),
      onText: (delta) => deltas.push(delta),
    });
    expect(answer).toBe('The server said: ping from the model');
    // Streamed: the answer arrived in pieces, and the request asked for a stream.
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(answer);
    expect((fake.requests[0] as { stream?: boolean }).stream).toBe(true);
    expect(events).toEqual(['tool-call', 'tool-result', 'assistant']);
    // What the model was sent: the tools in OpenAI's shape, then the tool result.
    const first = fake.requests[0] as {
      model: string;
      tools: { type: string; function: { name: string } }[];
    };
    expect(first.model).toBe('fake-1');
    expect(first.tools.map((t) => t.function.name)).toContain('mcp_demo_echo');
    const second = fake.requests[1] as {
      messages: { role: string; content: string; tool_call_id?: string }[];
    };
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', content: 'ping from the model' });
    expect(fake.authorizations[0]).toBe('Bearer sk-test-secret');
  });

  it('sends bad JSON arguments and denials back to the model as errors it can explain', async () => {
    const fake = await fakeModel([
      { toolCalls: [{ name: 'mcp_demo_echo', arguments: '{"message":' }] },
      { toolCalls: [{ name: 'mcp_demo_nope', arguments: {} }] },
      { text: 'I could not do it.' },
    ]);
    const model = openAICompatibleModel({ baseUrl: fake.baseUrl, model: 'fake' });
    const answer = await runAgentTurn(model, await demoTools(false), [], 'try');
    expect(answer).toBe('I could not do it.');
    const toolMessages = (
      fake.requests[2] as { messages: { role: string; content: string }[] }
    ).messages.filter((m) => m.role === 'tool');
    expect(toolMessages[0]?.content).toMatch(/^error \[INVALID_ARGUMENTS\]/);
    expect(toolMessages[1]?.content).toMatch(/^error \[UNKNOWN_TOOL\]: no tool named 'mcp_demo_nope'/);
  });

  it('stops at the step limit and says so', async () => {
    const loop = { toolCalls: [{ name: 'mcp_demo_get_time', arguments: {} }] };
    const fake = await fakeModel([loop, loop, loop]);
    const model = openAICompatibleModel({ baseUrl: fake.baseUrl, model: 'fake' });
    const answer = await runAgentTurn(model, await demoTools(), [], 'loop', { maxSteps: 2 });
    expect(answer).toMatch(/stopped after 2 steps/);
    expect(fake.requests).toHaveLength(2);
  });

  it('explains HTTP failures of the model without leaking the key', async () => {
    const fake = await fakeModel([
      { status: 401, body: '{"error":{"message":"Incorrect API key provided"}}' },
    ]);
    const model = openAICompatibleModel({
      baseUrl: fake.baseUrl,
      apiKey: 'sk-very-secret-key',
      model: 'fake',
    });
    const error = await runAgentTurn(model, await demoTools(), [], 'hi').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired, context: { httpStatus: 401 } });
    expect(JSON.stringify(error)).not.toContain('sk-very-secret-key');
    expect((error as Error).message).not.toContain('sk-very-secret-key');
    const unreachable = openAICompatibleModel({ baseUrl: 'http://127.0.0.1:9/v1', model: 'fake' });
    await expect(runAgentTurn(unreachable, await demoTools(), [], 'hi')).rejects.toMatchObject({
      code: ErrorCode.HttpUnreachable,
    });
  });
});
