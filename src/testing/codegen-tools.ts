import type { CallToolResult, GetPromptResult, Prompt, Resource, Tool } from '@modelcontextprotocol/server';
import type { TestAddOn, TestTool } from './catalog.js';

/**
 * The test server's tools for `mcpx generate` (`MCPX_TEST_CODEGEN=1`): names no identifier can
 * be (a reserved word, a dash, a dot, two that collide once mapped), a schema with `$ref`,
 * `oneOf`, an enum, nullable fields and nested arrays, and a tool whose name, description and
 * parameter try to end a doc comment or a string literal and run code. Each answers with the
 * arguments it received, so a test sees exactly what a generated function sent.
 * A resource and a prompt are named `delete` too, and a tool `resources` (as the generated
 * module's namespace): names that must not clash; for `--layout tree`, a tool `index` and two,
 * `get-URL` and `get-url`, whose identifiers differ only by case. The prompt answers with its arguments, the
 * resource with its URI.
 * `MCPX_TEST_CODEGEN=changed` serves the same catalogue changed as an upstream release would:
 * `delete` gone, `archive` added, `get-item`'s `id` a string, `files.read` described anew, the
 * prompt `delete` with a new required argument, the resource `test://codegen/notes` gone and
 * `test://codegen/delete` described anew.
 */

/** What the injection tool is called: a name that would close a string literal and run code. */
export const INJECTION_NAME = 'x"); process.exit(7); ("';

const object = (properties: Record<string, object>, required: string[] = []): Tool['inputSchema'] => ({
  type: 'object',
  properties: properties as NonNullable<Tool['inputSchema']['properties']>,
  ...(required.length > 0 ? { required } : {}),
});

const ORDER: Tool = {
  name: 'order',
  description: 'Place an order. Its schema uses $ref, oneOf, an enum, nullable fields and nested arrays.',
  inputSchema: {
    type: 'object',
    $defs: {
      Item: {
        type: 'object',
        description: 'One line of the order',
        properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
        required: ['sku', 'qty'],
      },
    },
    properties: {
      lines: {
        type: 'array',
        description: 'Parcels, each a list of items',
        items: { type: 'array', items: { $ref: '#/$defs/Item' } },
      },
      shipping: {
        oneOf: [
          { type: 'object', properties: { method: { const: 'pickup' } }, required: ['method'] },
          {
            type: 'object',
            properties: { method: { const: 'post' }, address: { type: 'string' } },
            required: ['method', 'address'],
          },
        ],
      },
      priority: { type: 'string', enum: ['low', 'normal', 'high'] },
      note: { type: ['string', 'null'] },
      gift: { type: 'boolean', nullable: true },
    },
    required: ['lines', 'shipping'],
  },
  outputSchema: {
    type: 'object',
    properties: { received: { type: 'object', description: 'The arguments as received' } },
    required: ['received'],
  },
};

function tools(changed: boolean): Tool[] {
  return [
    ...(changed
      ? []
      : [
          {
            name: 'delete',
            description: 'Delete by id.',
            inputSchema: object({ id: { type: 'string' } }, ['id']),
          },
        ]),
    ...(changed
      ? [
          {
            name: 'archive',
            description: 'Archive by id.',
            inputSchema: object({ id: { type: 'string' } }, ['id']),
          },
        ]
      : []),
    {
      name: 'get-item',
      description: 'Get an item (a dash in the name).',
      inputSchema: object({ id: { type: changed ? 'string' : 'integer' } }, ['id']),
    },
    {
      name: 'get_item',
      description: 'Get an item by key (the same identifier as get-item once mapped).',
      inputSchema: object({ key: { type: 'string' } }, ['key']),
    },
    {
      name: 'files.read',
      description: changed ? 'Read a file, now in chunks.' : 'Read a file (a dot in the name).',
      inputSchema: object({ path: { type: 'string' }, 'max-bytes': { type: 'integer' } }, ['path']),
    },
    ORDER,
    {
      name: 'resources',
      description: 'A tool named as the namespace of the generated resources.',
      inputSchema: object({}),
    },
    // In a --layout tree folder: a tool whose file would be the index, two whose files differ only by case.
    { name: 'index', description: 'A tool named as the index file.', inputSchema: object({}) },
    {
      name: 'get-URL',
      description: 'Upper case.',
      inputSchema: object({ url: { type: 'string' } }, ['url']),
    },
    {
      name: 'get-url',
      description: 'Lower case.',
      inputSchema: object({ url: { type: 'integer' } }, ['url']),
    },
    {
      name: INJECTION_NAME,
      description: '*/ process.exit(8); /* \u2028 process.exit(9); //',
      inputSchema: object({ 'a"b*/': { type: 'string', description: '*/ process.exit(10); /*' } }),
    },
  ];
}

/** The answer: the arguments as received, in text, and as structured content where declared. */
function received(tool: Tool, args: unknown): CallToolResult {
  const got = (args ?? {}) as Record<string, unknown>;
  return {
    content: [{ type: 'text', text: JSON.stringify(got) }],
    ...(tool.outputSchema ? { structuredContent: { received: got } } : {}),
  };
}

function resources(changed: boolean): Resource[] {
  return [
    {
      uri: 'test://codegen/delete',
      name: 'delete',
      description: changed ? 'Now described otherwise.' : 'A resource named as a tool is.',
      mimeType: 'text/plain',
    },
    ...(changed ? [] : [{ uri: 'test://codegen/notes', name: 'notes', mimeType: 'text/plain' }]),
    // A URI, name and description that try to end a string literal or a doc comment.
    {
      uri: INJECTION_URI,
      name: '*/ process.exit(12); /*',
      description: '*/ process.exit(13); /* \u2028 process.exit(13);',
      mimeType: 'text/plain*/ process.exit(14); /*',
    },
  ];
}

/** A resource URI that would close a string literal and run code. */
export const INJECTION_URI = 'test://inject/"); process.exit(11); ("';

/** A prompt whose name, description and argument try to end a literal or a comment. */
const INJECTION_PROMPT: Prompt = {
  name: INJECTION_NAME,
  description: '*/ process.exit(15); /*',
  arguments: [{ name: 'a"b*/', description: '*/ process.exit(16); /*', required: true }],
};

const DELETE_PROMPT = (changed: boolean): Prompt => ({
  name: 'delete',
  description: 'A prompt named as a tool is.',
  arguments: [
    { name: 'id', description: 'What to delete', required: true },
    { name: 'reason', description: 'Why (optional)' },
    ...(changed ? [{ name: 'confirm', required: true }] : []),
  ],
});

/** The add-on, as served (`changed`: the catalogue after an upstream change). */
export function codegenTools(changed: boolean): TestAddOn {
  const listed = resources(changed);
  return {
    tools: tools(changed).map(
      (definition): TestTool => ({ definition, call: async (args) => received(definition, args) }),
    ),
    resources: listed,
    read: (uri) =>
      listed.some((r) => r.uri === uri)
        ? { contents: [{ uri, mimeType: 'text/plain', text: `read ${uri}` }] }
        : undefined,
    prompts: [DELETE_PROMPT(changed), INJECTION_PROMPT].map((prompt) => ({
      prompt,
      render: (args): GetPromptResult => ({
        messages: [{ role: 'user', content: { type: 'text', text: JSON.stringify(args) } }],
      }),
    })),
  };
}
