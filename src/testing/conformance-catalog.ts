/**
 * What the official MCP conformance suite's server scenarios call, served from one SDK
 * `McpServer`: the `test_*` tools, the `test://` resources, the `test_*` prompts, completions,
 * logging and subscriptions (`conformance/run.mjs` runs the suite against it). The tools that
 * talk back while they run are in `conformance-interactive.ts`, the multi-round-trip ones in
 * `conformance-mrtr.ts`. Transport-free: `conformance-backend.ts` serves it over stdio and HTTP.
 */
import {
  type CallToolResult,
  completable,
  fromJsonSchema,
  type GetPromptResult,
  inputRequired,
  inputResponse,
  type JsonSchemaType,
  McpServer,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { VERSION } from '../version.js';
import { registerInteractiveTools } from './conformance-interactive.js';
import {
  CONFORMANCE_BACKEND_NAME,
  type ConformanceState,
  elicitationRequest,
  text,
} from './conformance-kit.js';
import { registerInputRequiredTools } from './conformance-mrtr.js';
import { registerSamplingLoopTool } from './conformance-sampling-loop.js';

/** A 1×1 PNG: the image every image scenario expects some valid base64 of. */
export const TEST_IMAGE_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
/** A short silent 8 kHz mono WAV. */
export const TEST_AUDIO_BASE64 = silentWav(80).toString('base64');

function silentWav(samples: number): Buffer {
  const data = samples * 2;
  const wav = Buffer.alloc(44 + data);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + data, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(data, 40);
  return wav;
}

/**
 * A JSON Schema 2020-12 input schema using the vocabulary `json-schema-2020-12` expects to come
 * through `tools/list` unchanged: `$schema`, `$defs` with an `$anchor`, `$ref`,
 * `additionalProperties`, composition (`allOf`/`anyOf`) and conditionals (`if`/`then`/`else`).
 */
const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'postalAddress',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  // A contact needs a phone number or an e-mail address, and the one its method names.
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's conditional keyword, never awaited
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
} as const;

/** One server instance with the whole conformance surface. */
export function createConformanceServer(state: ConformanceState): McpServer {
  const server = new McpServer(
    { name: CONFORMANCE_BACKEND_NAME, title: 'mcpx conformance backend', version: VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
      cacheHints: {
        'tools/list': { ttlMs: 300_000, cacheScope: 'public' },
        'prompts/list': { ttlMs: 300_000, cacheScope: 'public' },
        'resources/list': { ttlMs: 300_000, cacheScope: 'public' },
        'resources/templates/list': { ttlMs: 300_000, cacheScope: 'public' },
        'resources/read': { ttlMs: 300_000, cacheScope: 'private' },
        'server/discover': { ttlMs: 300_000, cacheScope: 'public' },
      },
      requestState: { verify: (raw, ctx) => state.codec.verify(raw, ctx) },
    },
  );
  registerContentTools(server);
  registerInteractiveTools(server);
  registerInputRequiredTools(server, state);
  registerSamplingLoopTool(server, state);
  registerResources(server, state);
  registerPrompts(server);
  return server;
}

function registerContentTools(server: McpServer): void {
  server.registerTool('test_simple_text', { description: 'Tests simple text content response' }, () =>
    text('This is a simple text response for testing.'),
  );
  server.registerTool('test_image_content', { description: 'Tests image content response' }, () => ({
    content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Tests audio content response' }, () => ({
    content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }],
  }));
  server.registerTool(
    'test_embedded_resource',
    { description: 'Tests embedded resource content response' },
    () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  );
  server.registerTool(
    'test_multiple_content_types',
    { description: 'Tests response with multiple content types (text, image, resource)' },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  );
  server.registerTool(
    'test_error_handling',
    { description: 'Tests error response handling' },
    (): CallToolResult => ({
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    }),
  );
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
      inputSchema: fromJsonSchema(JSON_SCHEMA_2020_12 as unknown as JsonSchemaType),
    },
    (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );
  // SEP-2243: a 2026-07-28 client mirrors `region` into an Mcp-Param-Region header, which the SDK checks against the body.
  server.registerTool(
    'test_custom_headers',
    {
      description: 'Echoes a region that travels in the Mcp-Param-Region header as well as the body',
      inputSchema: fromJsonSchema<{ region: string; query?: string }>({
        type: 'object' as const,
        properties: {
          region: { type: 'string', description: 'Mirrored into Mcp-Param-Region', 'x-mcp-header': 'Region' },
          query: { type: 'string', description: 'Body only' },
        },
        required: ['region'],
      } as JsonSchemaType),
    },
    ({ region }) => text(`region=${region}`),
  );
}

function registerResources(server: McpServer, state: ConformanceState): void {
  server.registerResource(
    'static-text',
    'test://static-text',
    {
      title: 'Static Text Resource',
      description: 'A static text resource for testing',
      mimeType: 'text/plain',
    },
    () => ({
      contents: [
        {
          uri: 'test://static-text',
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ],
    }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    {
      title: 'Static Binary Resource',
      description: 'A static binary resource (image) for testing',
      mimeType: 'image/png',
    },
    () => ({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: TEST_IMAGE_BASE64 }] }),
  );
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', {
      list: undefined,
      complete: { id: (value) => ['123', '456', '789'].filter((id) => id.startsWith(value)) },
    }),
    {
      title: 'Resource Template',
      description: 'A resource template with parameter substitution',
      mimeType: 'application/json',
    },
    (uri, { id }) => ({
      contents: [
        {
          uri: uri.toString(),
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    {
      title: 'Watched Resource',
      description: 'A resource subscribers are told about when it changes',
      mimeType: 'text/plain',
    },
    () => ({
      contents: [
        { uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' },
      ],
    }),
  );
  server.server.setRequestHandler('resources/subscribe', (request) => {
    state.subscriptions.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', (request) => {
    state.subscriptions.delete(request.params.uri);
    return {};
  });
}

function registerPrompts(server: McpServer): void {
  const user = (content: GetPromptResult['messages'][number]['content']) => ({
    role: 'user' as const,
    content,
  });
  server.registerPrompt(
    'test_simple_prompt',
    { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' },
    () => ({ messages: [user({ type: 'text', text: 'This is a simple prompt for testing.' })] }),
  );
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      title: 'Prompt With Arguments',
      description: 'A prompt with required arguments',
      argsSchema: z.object({
        arg1: completable(z.string().describe('First test argument'), (value) =>
          ['paris', 'park', 'party'].filter((v) => v.startsWith(value)),
        ),
        arg2: z.string().describe('Second test argument'),
      }),
    },
    ({ arg1, arg2 }) => ({
      messages: [user({ type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` })],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      title: 'Prompt With Embedded Resource',
      description: 'A prompt that includes an embedded resource',
      argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
    },
    ({ resourceUri }) => ({
      messages: [
        user({
          type: 'resource',
          resource: {
            uri: resourceUri,
            mimeType: 'text/plain',
            text: 'Embedded resource content for testing.',
          },
        }),
        user({ type: 'text', text: 'Please process the embedded resource above.' }),
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_image',
    { title: 'Prompt With Image', description: 'A prompt that includes image content' },
    () => ({
      messages: [
        user({ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }),
        user({ type: 'text', text: 'Please analyze the image above.' }),
      ],
    }),
  );
  server.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'MRTR: prompt that requires elicitation input' },
    (ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'user_context');
      if (view.kind === 'elicit' && typeof view.content?.context === 'string')
        return { messages: [user({ type: 'text', text: `Prompt with context: ${view.content.context}` })] };
      return inputRequired({
        inputRequests: {
          user_context: elicitationRequest('What context should the prompt use?', {
            type: 'object',
            properties: { context: { type: 'string' } },
            required: ['context'],
          }),
        },
      });
    },
  );
}
