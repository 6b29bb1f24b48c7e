import type { Tool } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/index.js';
import type { ToolCallGuard, ToolCallRequest } from '../../../src/permissions/types.js';
import { type RegistryEvent, ServerRegistry } from '../../../src/registry/index.js';
import { createAgentTools, inProcessToolSource } from '../../../src/tools/index.js';
import { toAiSdkTools } from '../../../src/tools/providers/ai-sdk.js';
import { runAnthropicToolUse, toAnthropicTools } from '../../../src/tools/providers/anthropic.js';
import {
  runOpenAIChatToolCall,
  runOpenAIResponsesCall,
  toOpenAIChatTools,
  toOpenAIResponsesTools,
} from '../../../src/tools/providers/openai.js';
import { everythingPath, nodeServer, realConnector, testServer } from '../../helpers/servers.js';

const registries: ServerRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()));
});

async function registryWith(...servers: Parameters<typeof testServer>[]): Promise<ServerRegistry> {
  const registry = new ServerRegistry(
    servers.map((s) => testServer(...s)),
    { connector: realConnector() },
  );
  registries.push(registry);
  await registry.connectAll();
  return registry;
}

/** Allows everything and remembers what it was asked. */
function recordingGuard(): ToolCallGuard & { requests: ToolCallRequest[] } {
  const requests: ToolCallRequest[] = [];
  return { requests, check: async (request) => void requests.push(request) };
}

describe('createAgentTools against the stdio test server', () => {
  it('lists every tool with a prefixed name, a tagged description and its schema', async () => {
    const registry = await registryWith(['demo']);
    const set = await createAgentTools(registry, { guard: recordingGuard() });
    const echo = set.tools.find((t) => t.name === 'mcp_demo_echo');
    expect(echo).toMatchObject({
      description: expect.stringMatching(/^\[demo\] Echo/),
      parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    });
    expect(set.tools.length).toBe(8);
    expect(set.mode).toBe('all');
  });

  it('validates, asks the guard, calls and converts', async () => {
    const registry = await registryWith(['demo']);
    const guard = recordingGuard();
    const set = await createAgentTools(registry, { guard, agentId: 'a1' });
    const result = await set.call('mcp_demo_add', { a: 2, b: 3 });
    expect(result).toMatchObject({ text: '5', isError: false, structuredContent: { sum: 5 } });
    expect(guard.requests).toEqual([
      expect.objectContaining({
        agentId: 'a1',
        server: 'demo',
        args: { a: 2, b: 3 },
        tool: expect.objectContaining({ name: 'add' }),
      }),
    ]);
  });

  it('rejects bad arguments before the guard or the server sees them, listing each problem', async () => {
    const registry = await registryWith(['demo']);
    const events: RegistryEvent[] = [];
    registry.on((e) => events.push(e));
    const guard = recordingGuard();
    const set = await createAgentTools(registry, { guard });
    const error = await set.call('mcp_demo_add', { a: 'two' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.InvalidArguments });
    expect((error as Error).message).toContain('/a: must be number');
    expect((error as Error).message).toContain("missing required property 'b'");
    expect(guard.requests).toHaveLength(0);
    expect(events.filter((e) => e.type === 'state' && e.state === 'busy')).toHaveLength(0);
  });

  it('denies every MCP call when the host gave no permission policy', async () => {
    const registry = await registryWith(['demo']);
    const set = await createAgentTools(registry);
    await expect(set.call('mcp_demo_echo', { message: 'hi' })).rejects.toMatchObject({
      code: ErrorCode.PermissionDenied,
      message: expect.stringContaining('no permission policy'),
    });
  });

  it('returns a tool error as a result the model can read', async () => {
    const registry = await registryWith(['demo']);
    const set = await createAgentTools(registry, { guard: recordingGuard() });
    const result = await set.call('mcp_demo_fail', {});
    expect(result.isError).toBe(true);
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('mixes the host’s own functions with MCP tools, unguarded', async () => {
    const registry = await registryWith(['demo']);
    const guard = recordingGuard();
    const clock: Tool = { name: 'now', description: 'The host clock', inputSchema: { type: 'object' } };
    const set = await createAgentTools(registry, {
      guard,
      extraSources: [inProcessToolSource('host', [{ definition: clock, handler: async () => 'noon' }])],
    });
    expect(set.tools.map((t) => t.name)).toContain('mcp_host_now');
    expect((await set.call('mcp_host_now', {})).text).toBe('noon');
    expect((await set.call('mcp_demo_echo', { message: 'mixed' })).text).toBe('mixed');
    expect(guard.requests.map((r) => r.server)).toEqual(['demo']);
  });

  it('switches to search mode for large sets: search_tools finds, call_tool calls', async () => {
    const registry = await registryWith(['big', { MCP_TOOL_COUNT: '60' }]);
    const set = await createAgentTools(registry, { guard: recordingGuard() });
    expect(set.mode).toBe('search');
    expect(set.tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
    const found = JSON.parse((await set.call('search_tools', { query: 'echo a message back' })).text);
    expect(found[0].name).toBe('mcp_big_echo');
    const result = await set.call('call_tool', { name: 'mcp_big_echo', arguments: { message: 'found it' } });
    expect(result.text).toBe('found it');
  });

  it('follows the registry: a tool added by the server appears after its list_changed', async () => {
    const registry = await registryWith(['demo']);
    const set = await createAgentTools(registry, { guard: recordingGuard() });
    await set.call('mcp_demo_add_tool', { name: 'late_tool' });
    await expect.poll(() => set.tools.map((t) => t.name), { timeout: 5_000 }).toContain('mcp_demo_late_tool');
  });
});

describe('provider formats round-trip through mcpx', () => {
  it('OpenAI chat completions and responses', async () => {
    const registry = await registryWith(['demo']);
    const set = await createAgentTools(registry, { guard: recordingGuard() });
    const chatTools = toOpenAIChatTools(set.tools);
    expect(chatTools.find((t) => t.function.name === 'mcp_demo_echo')).toMatchObject({ type: 'function' });
    const message = await runOpenAIChatToolCall(set, {
      id: 'call_1',
      type: 'function',
      function: { name: 'mcp_demo_echo', arguments: '{"message":"from openai"}' },
    });
    expect(message).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'from openai' });
    const broken = await runOpenAIChatToolCall(set, {
      id: 'call_2',
      type: 'function',
      function: { name: 'mcp_demo_echo', arguments: '{"message":' },
    });
    expect(broken.content).toMatch(
      /^error \[INVALID_ARGUMENTS\]: the arguments for 'mcp_demo_echo' are not valid JSON/,
    );

    expect(toOpenAIResponsesTools(set.tools)[0]).toMatchObject({ type: 'function', strict: false });
    const output = await runOpenAIResponsesCall(set, {
      type: 'function_call',
      call_id: 'fc_1',
      name: 'mcp_demo_add',
      arguments: '{"a":1,"b":2}',
    });
    expect(output).toEqual({ type: 'function_call_output', call_id: 'fc_1', output: '3' });
  });

  it('Anthropic tool_use → tool_result, a denial becoming an error result', async () => {
    const registry = await registryWith(['demo']);
    const set = await createAgentTools(registry, { guard: recordingGuard() });
    expect(toAnthropicTools(set.tools).find((t) => t.name === 'mcp_demo_add')?.input_schema).toMatchObject({
      type: 'object',
      required: ['a', 'b'],
    });
    const result = await runAnthropicToolUse(set, {
      type: 'tool_use',
      id: 'tu_1',
      name: 'mcp_demo_echo',
      input: { message: 'from claude' },
      caller: { type: 'direct' },
    } as Parameters<typeof runAnthropicToolUse>[1]);
    expect(result).toEqual({
      type: 'tool_result',
      tool_use_id: 'tu_1',
      content: [{ type: 'text', text: 'from claude' }],
    });
    const denied = await createAgentTools(registry);
    const refusal = await runAnthropicToolUse(denied, {
      type: 'tool_use',
      id: 'tu_2',
      name: 'mcp_demo_echo',
      input: { message: 'x' },
    } as Parameters<typeof runAnthropicToolUse>[1]);
    expect(refusal).toMatchObject({ tool_use_id: 'tu_2', is_error: true });
    expect(JSON.stringify(refusal.content)).toContain('PERMISSION_DENIED');
  });

  it('Vercel AI SDK tool() objects execute through mcpx', async () => {
    const registry = await registryWith(['demo']);
    const set = await createAgentTools(registry, { guard: recordingGuard() });
    const tools = toAiSdkTools(set);
    const echo = tools.mcp_demo_echo;
    expect(echo?.description).toMatch(/^\[demo\]/);
    const output = await echo?.execute?.({ message: 'from ai sdk' }, { toolCallId: 't1', messages: [] });
    expect(output).toBe('from ai sdk');
  });
});

describe('against @modelcontextprotocol/server-everything', () => {
  it('validates structuredContent against the outputSchema, and keeps images as image parts', async () => {
    const registry = new ServerRegistry([nodeServer('everything', everythingPath)], {
      connector: realConnector(),
    });
    registries.push(registry);
    await registry.connectAll();
    const set = await createAgentTools(registry, { guard: recordingGuard() });
    const structured = await set.call('mcp_everything_get-structured-content', { location: 'New York' });
    expect(structured.structuredContent).toBeDefined();
    const image = await set.call('mcp_everything_get-tiny-image', {});
    expect(image.parts.some((p) => p.type === 'image' && p.mimeType === 'image/png')).toBe(true);
    const anthropic = await runAnthropicToolUse(set, {
      type: 'tool_use',
      id: 'img',
      name: 'mcp_everything_get-tiny-image',
      input: {},
    } as Parameters<typeof runAnthropicToolUse>[1]);
    expect(JSON.stringify(anthropic.content)).toContain('"type":"image"');
  });
});
