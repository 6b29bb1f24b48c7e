// Resources and prompts for agents, against real servers: the opt-in resource tool pair of
// createAgentTools (guarded, sanitized, bounded, in every provider format) and promptMessages.
import { join } from 'node:path';
import type { Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/index.js';
import { createPermissionGuard, denyingApprover } from '../../../src/permissions/index.js';
import type { ToolCallGuard, ToolCallRequest } from '../../../src/permissions/types.js';
import { ServerRegistry } from '../../../src/registry/index.js';
import { poisoned } from '../../../src/testing/hostile-server.js';
import {
  callForModel,
  createAgentTools,
  forModel,
  LIST_RESOURCES_TOOL,
  promptMessages,
  READ_RESOURCE_TOOL,
} from '../../../src/tools/index.js';
import { toAiSdkTools, toModelOutput } from '../../../src/tools/providers/ai-sdk.js';
import { runAnthropicToolUse, toAnthropicTools } from '../../../src/tools/providers/anthropic.js';
import {
  runOpenAIChatToolCall,
  runOpenAIResponsesCall,
  toOpenAIChatTools,
} from '../../../src/tools/providers/openai.js';
import { repoRoot } from '../../helpers/cli.js';
import { connect, nodeServer, realConnector, testServer, trackConnections } from '../../helpers/servers.js';

const hostilePath = join(repoRoot, 'dist/testing/hostile-server.js');
const backendPath = join(repoRoot, 'dist/testing/conformance-backend.js');

const registries: ServerRegistry[] = [];
const { track, closeAll } = trackConnections();
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()));
  await closeAll();
});

async function registryOf(...servers: Parameters<typeof nodeServer>[]): Promise<ServerRegistry> {
  const registry = new ServerRegistry(
    servers.map((s) => nodeServer(...s)),
    { connector: realConnector() },
  );
  registries.push(registry);
  await registry.connectAll();
  return registry;
}

const demo = (): Parameters<typeof nodeServer> => ['demo', testServer().args?.[0] ?? ''];

function recordingGuard(): ToolCallGuard & { requests: ToolCallRequest[] } {
  const requests: ToolCallRequest[] = [];
  return { requests, check: async (request) => void requests.push(request) };
}

describe('the resource tool pair of createAgentTools', () => {
  it('is off by default, and offered beside the MCP tools with resources: true', async () => {
    const registry = await registryOf(demo());
    const plain = await createAgentTools(registry, { guard: recordingGuard() });
    const names = (set: typeof plain) => set.tools.map((t) => t.name);
    expect(names(plain)).not.toContain(LIST_RESOURCES_TOOL);
    await expect(
      plain.call(READ_RESOURCE_TOOL, { server: 'demo', uri: 'test://readme.txt' }),
    ).rejects.toMatchObject({ code: ErrorCode.UnknownTool });
    const withResources = await createAgentTools(registry, { guard: recordingGuard(), resources: true });
    expect(names(withResources)).toEqual([...names(plain), LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL]);
    // In search mode too: the pair stays beside search_tools and call_tool.
    const search = await createAgentTools(registry, {
      guard: recordingGuard(),
      resources: true,
      mode: 'search',
    });
    expect(names(search)).toEqual(['search_tools', 'call_tool', LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL]);
  });

  it('lists resources and templates, asking the guard per server, and pages them', async () => {
    const registry = await registryOf(demo(), [
      'many',
      testServer().args?.[0] ?? '',
      { env: { MCP_PAGE_SIZE: '2' } },
    ]);
    const guard = recordingGuard();
    const set = await createAgentTools(registry, { guard, resources: true, agentId: 'a1' });
    const all = await set.call(LIST_RESOURCES_TOOL, {});
    expect(all.isError).toBe(false);
    expect(all.text).toContain('demo  test://readme.txt  README (text/plain) — What this server is for');
    expect(all.text).toContain('many  template test://users/{id}  User by id (application/json)');
    expect(guard.requests.map((r) => [r.agentId, r.server, r.tool.name])).toEqual([
      ['a1', 'demo', 'resources/list'],
      ['a1', 'many', 'resources/list'],
    ]);
    const one = await set.call(LIST_RESOURCES_TOOL, JSON.stringify({ server: 'many', offset: 3 }));
    expect(one.text.split('\n').slice(1)).toEqual([
      'many  test://counter  Counter (text/plain) — Changes on every touch_resource call; subscribe to be told',
      'many  template test://users/{id}  User by id (application/json) — One user as JSON (ids 1, 2, 3)',
    ]);
    await expect(set.call(LIST_RESOURCES_TOOL, { server: 'dmeo' })).rejects.toThrow(
      /no server named 'dmeo' — did you mean 'demo'\?/,
    );
  });

  it('reads a resource through the guard and converts it like a tool result', async () => {
    const registry = await registryOf(demo());
    const guard = recordingGuard();
    const set = await createAgentTools(registry, { guard, resources: true });
    const result = await set.call(READ_RESOURCE_TOOL, { server: 'demo', uri: 'test://users/2' });
    expect(result).toMatchObject({
      isError: false,
      text: '{"id":"2","name":"Alan Turing","email":"alan@example.com"}',
      parts: [{ type: 'resource', uri: 'test://users/2', mimeType: 'application/json' }],
    });
    expect(guard.requests).toEqual([
      expect.objectContaining({
        server: 'demo',
        tool: expect.objectContaining({ name: 'resources/read' }),
        args: { uri: 'test://users/2' },
      }),
    ]);
    // An unknown URI is the server's answer, told to the model as an error it can act on.
    const missing = await callForModel(set, READ_RESOURCE_TOOL, { server: 'demo', uri: 'test://nope' });
    expect(missing).toMatchObject({
      isError: true,
      text: expect.stringMatching(/not found: test:\/\/nope/i),
    });
    const noUri = await callForModel(set, READ_RESOURCE_TOOL, { server: 'demo' });
    expect(noUri.text).toMatch(/^error \[INVALID_ARGUMENTS\]: read_resource needs a uri/);
  });

  it('bounds what it returns', async () => {
    const registry = await registryOf(demo());
    const set = await createAgentTools(registry, {
      guard: recordingGuard(),
      resources: true,
      maxTextLength: 20,
    });
    const result = await set.call(READ_RESOURCE_TOOL, { server: 'demo', uri: 'test://readme.txt' });
    expect(result.truncated).toBe(true);
    expect(result.text).toMatch(/^mcpx-test-server is \n\[… truncated: 73 characters more/);
    const listing = await set.call(LIST_RESOURCES_TOOL, {});
    expect(listing.truncated).toBe(true);
  });

  it('reads nothing from a server the guard denies, and lists nothing of it', async () => {
    const registry = await registryOf(demo());
    const guard = createPermissionGuard({
      level: 'trusted',
      approver: denyingApprover('nobody is at the terminal'),
    });
    const set = await createAgentTools(registry, { guard, resources: true });
    const read = await callForModel(set, READ_RESOURCE_TOOL, { server: 'demo', uri: 'test://readme.txt' });
    expect(read).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^error \[PERMISSION_DENIED\]/),
    });
    expect(read.text).not.toContain('mcpx-test-server is');
    const listing = await set.call(LIST_RESOURCES_TOOL, {});
    expect(listing.text).not.toContain('test://readme.txt');
    expect(listing.text).toMatch(/demo: not listed — calling 'demo' tool 'resources\/list' was denied/);
    // deny_tools names the read like a tool, for a server whose resources agents must not see.
    const sandboxed = await createAgentTools(registry, {
      guard: createPermissionGuard({ level: 'sandboxed', approver: denyingApprover('no') }),
      resources: true,
    });
    expect(
      (await callForModel(sandboxed, READ_RESOURCE_TOOL, { server: 'demo', uri: 'test://readme.txt' }))
        .isError,
    ).toBe(true);
  });

  it('offers no pair while no server declares resources, and none of a server not given to it', async () => {
    const registry = await registryOf(demo());
    const none = await createAgentTools(registry, { guard: recordingGuard(), resources: true, servers: [] });
    expect(none.tools.map((t) => t.name)).toEqual([]);
    await expect(none.call(READ_RESOURCE_TOOL, { server: 'demo', uri: 'test://readme.txt' })).rejects.toThrow(
      /no server named 'demo'/,
    );
  });

  it('turns an image resource into an image part, which every provider format carries', async () => {
    const registry = await registryOf(['backend', backendPath]);
    const set = await createAgentTools(registry, { guard: recordingGuard(), resources: true });
    const args = { server: 'backend', uri: 'test://static-binary' };
    const result = await set.call(READ_RESOURCE_TOOL, args);
    expect(result.parts).toEqual([expect.objectContaining({ type: 'image', mimeType: 'image/png' })]);
    expect(result.text).toMatch(/^\[image image\/png, \d+ bytes\]$/);

    const openai = toOpenAIChatTools(set.tools).map((t) => t.function.name);
    expect(openai).toEqual(expect.arrayContaining([LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL]));
    const chat = await runOpenAIChatToolCall(set, {
      id: 'c1',
      type: 'function',
      function: { name: READ_RESOURCE_TOOL, arguments: JSON.stringify(args) },
    });
    expect(chat.content).toBe(result.text);
    const responses = await runOpenAIResponsesCall(set, {
      type: 'function_call',
      call_id: 'c2',
      name: READ_RESOURCE_TOOL,
      arguments: JSON.stringify(args),
    });
    expect(responses.output).toEqual([
      { type: 'input_text', text: result.text },
      { type: 'input_image', image_url: expect.stringMatching(/^data:image\/png;base64,/) },
    ]);
    const anthropicTools: AnthropicTool[] = toAnthropicTools(set.tools);
    expect(anthropicTools.find((t) => t.name === READ_RESOURCE_TOOL)?.input_schema).toMatchObject({
      required: ['server', 'uri'],
    });
    const anthropic = await runAnthropicToolUse(set, {
      type: 'tool_use',
      id: 't1',
      name: READ_RESOURCE_TOOL,
      input: args,
    });
    expect(anthropic.content).toEqual([
      { type: 'text', text: result.text },
      expect.objectContaining({
        type: 'image',
        source: expect.objectContaining({ media_type: 'image/png' }),
      }),
    ]);
    const aiSdk = toAiSdkTools(set);
    expect(Object.keys(aiSdk)).toEqual(expect.arrayContaining([LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL]));
    const output = await aiSdk[READ_RESOURCE_TOOL]?.execute?.(args, { toolCallId: 'x', messages: [] });
    expect(toModelOutput(output as Awaited<ReturnType<typeof set.call>>)).toMatchObject({
      type: 'content',
      value: [{ type: 'text' }, { type: 'image-data', mediaType: 'image/png' }],
    });
  });

  it('cleans what a hostile server lists and reads', async () => {
    const registry = await registryOf(['hostile', hostilePath]);
    const set = await createAgentTools(registry, { guard: recordingGuard(), resources: true });
    const listing = await set.call(LIST_RESOURCES_TOOL, {});
    expect(listing.text).toContain(`hostile  test://poison.txt  ${forModel(poisoned('resource name'))}`);
    expect(listing.text).not.toMatch(/[\u001b\u009b\u200b\u202e]|\u{E0041}/u);
    const read = await set.call(READ_RESOURCE_TOOL, { server: 'hostile', uri: 'test://poison.txt' });
    expect(read.text).not.toMatch(/[\u001b\u009b]/);
  });
});

describe('promptMessages', () => {
  it('fills in a prompt as chat messages, through a registry or a connection', async () => {
    const registry = await registryOf(demo());
    const filled = await promptMessages(registry, 'demo', 'greeting', { name: 'Ada' });
    expect(filled).toEqual({
      server: 'demo',
      prompt: 'greeting',
      description: 'Greet someone by name',
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Please write a short, friendly greeting for Ada.' }] },
      ],
    });
    const connection = await track(connect(testServer('solo')));
    const direct = await promptMessages(connection, 'solo', 'summarize', { text: 'a long story' });
    expect(direct.messages[0]?.parts[0]).toEqual({
      type: 'text',
      text: 'Please summarize the following text:\n\na long story',
    });
  });

  it('names the missing required arguments, and undeclared ones, before asking the server', async () => {
    const registry = await registryOf(demo());
    const missing = promptMessages(registry, 'demo', 'code_review', { language: 'go' });
    await expect(missing).rejects.toMatchObject({
      code: ErrorCode.InvalidArguments,
      message: "prompt 'code_review' of 'demo' needs code",
      causes: ['missing: code — The code to review'],
    });
    await expect(
      promptMessages(registry, 'demo', 'greeting', { name: 'Ada', nmae: 'x' }),
    ).rejects.toMatchObject({
      code: ErrorCode.InvalidArguments,
      message: "prompt 'greeting' of 'demo' takes no nmae",
      causes: ["not an argument of 'greeting': nmae (did you mean 'name'?)"],
    });
    await expect(promptMessages(registry, 'demo', 'greting', {})).rejects.toMatchObject({
      code: ErrorCode.UnknownPrompt,
      message: "'demo' has no prompt named 'greting' — did you mean 'greeting'?",
    });
  });

  it('keeps images as image parts and labels embedded resources with their URI', async () => {
    const registry = await registryOf(['backend', backendPath]);
    const image = await promptMessages(registry, 'backend', 'test_prompt_with_image');
    expect(image.messages).toEqual([
      { role: 'user', parts: [{ type: 'image', mimeType: 'image/png', data: expect.any(String) }] },
      { role: 'user', parts: [{ type: 'text', text: 'Please analyze the image above.' }] },
    ]);
    const embedded = await promptMessages(registry, 'backend', 'test_prompt_with_embedded_resource', {
      resourceUri: 'test://doc',
    });
    expect(embedded.messages[0]?.parts).toEqual([
      { type: 'text', text: '[resource test://doc (text/plain)]\nEmbedded resource content for testing.' },
    ]);
  });

  it('removes hidden characters and terminal controls from what a hostile server says', async () => {
    const registry = await registryOf(['hostile', hostilePath]);
    const filled = await promptMessages(registry, 'hostile', 'poison', {});
    expect(filled.description).toBe('rendered descriptionevilzwtagredc1');
    expect(filled.messages).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'prompt messageevilzwtagredc1' }] },
    ]);
  });
});
