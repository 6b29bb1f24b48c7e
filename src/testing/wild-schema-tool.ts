import type { CallToolResult, Tool } from '@modelcontextprotocol/server';

/**
 * A tool whose input schema is hand-written the way many servers in the wild publish theirs:
 * draft-07 `definitions` reached through `$ref`, OpenAPI's `nullable`, type arrays, an
 * `anyOf` union, an integer enum, a twenty-digit id that must stay a string, and no
 * `additionalProperties`. It answers with the arguments it received, as JSON, so a test sees
 * exactly what the client sent.
 */
export const WILD_SCHEMA_TOOL: Tool = {
  name: 'inspect_args',
  title: 'Inspect arguments',
  description:
    'Answer with the arguments received, as JSON. Its schema uses $ref, nullable, type arrays, anyOf and enums, as hand-written schemas do.',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    definitions: {
      Mode: { type: 'string', enum: ['fast', 'slow'], description: 'How hard to try' },
      Window: {
        type: 'object',
        properties: { from: { type: 'integer' }, to: { type: 'integer' } },
        required: ['from'],
      },
    },
    properties: {
      id: { type: 'string', description: 'An opaque identifier; digits stay digits' },
      count: { type: 'integer', minimum: 0, default: 10 },
      ratio: { type: 'number' },
      verbose: { type: 'boolean' },
      mode: { $ref: '#/definitions/Mode' },
      window: { $ref: '#/definitions/Window' },
      tags: { type: 'array', items: { type: 'string' } },
      ref: { anyOf: [{ type: 'integer' }, { type: 'string' }], description: 'A number or a name' },
      note: { type: ['string', 'null'] },
      limit: { type: 'integer', nullable: true },
      level: { enum: [1, 2, 3] },
    },
    required: ['id'],
  },
  outputSchema: {
    type: 'object',
    properties: { received: { type: 'object', description: 'The arguments as received' } },
    required: ['received'],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

/** The answer: the arguments as received, in text and as structured content. */
export function inspectArgs(args: unknown): CallToolResult {
  const received = (args ?? {}) as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify(received) }], structuredContent: { received } };
}
