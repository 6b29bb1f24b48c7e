import { ErrorCode, McpxError } from '../errors/index.js';
import { forModel } from '../text/index.js';
import { argumentsObject } from './arguments-object.js';
import type { AgentToolResult } from './result.js';
import type { RoutedTool } from './router.js';
import { searchTools } from './tool-search.js';

// Search mode: instead of every schema, two tools — find tools by what they do, then call one by
// its exact name — for tool sets too large for a prompt.

/** Above this many tools, `auto` mode offers the search pair instead of every schema. */
export const SEARCH_THRESHOLD = 40;

/** The agent tool that searches every server's tools, in search mode. */
export const SEARCH_TOOL = 'search_tools';
/** The agent tool that calls a tool found by `search_tools`, in search mode. */
export const CALL_TOOL = 'call_tool';

/** The two tools offered in search mode, as agent tools (no server behind them). */
export const SEARCH_PAIR: readonly {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}[] = [
  {
    name: SEARCH_TOOL,
    description:
      'Find tools by what they do. Returns the best matches with their names, descriptions and parameters; call one with call_tool.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'words describing the task, e.g. "read a file"' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 25,
          description: 'how many tools to return (default 8)',
        },
      },
      required: ['query'],
    },
  },
  {
    name: CALL_TOOL,
    description:
      'Call a tool found with search_tools, by its exact name, with arguments matching its parameters.',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'the tool name search_tools returned' },
        arguments: { type: 'object', description: "the tool's arguments" },
      },
      required: ['name'],
    },
  },
];

/** `search_tools`' answer: the best matches in `tools` for its query, as JSON for the model. */
export function answerSearch(tools: readonly RoutedTool[], args: unknown): AgentToolResult {
  // Providers hand arguments over as they came: a JSON string (OpenAI) or an object.
  const { query, limit } = argumentsObject(args, SEARCH_TOOL);
  if (typeof query !== 'string' || query.trim() === '') {
    throw new McpxError(ErrorCode.InvalidArguments, `${SEARCH_TOOL} needs a query`, {
      fixes: ['give words describing the task as "query", e.g. {"query": "read a file"}'],
    });
  }
  const count = typeof limit === 'number' && Number.isFinite(limit) ? Math.floor(limit) : 8;
  const hits = searchTools(tools, query, Math.min(25, Math.max(1, count)));
  const listing = hits.map((h) => ({
    name: h.tool.name,
    server: h.tool.source.id,
    description: h.tool.description,
    parameters: h.tool.parameters,
  }));
  const text = hits.length ? JSON.stringify(listing, null, 2) : `no tool matches '${forModel(query)}'`;
  return { parts: [{ type: 'text', text }], text, truncated: false, isError: false };
}

/** `call_tool`'s arguments: the tool it names, and that tool's arguments. */
export function callTarget(args: unknown): { readonly target: string; readonly targetArgs: unknown } {
  const { name: target, arguments: targetArgs } = argumentsObject(args, CALL_TOOL);
  if (typeof target !== 'string' || target === '') {
    throw new McpxError(ErrorCode.InvalidArguments, `${CALL_TOOL} needs the name of a tool`, {
      fixes: [`give "name", a tool name ${SEARCH_TOOL} returned, and its "arguments"`],
    });
  }
  return { target, targetArgs: targetArgs ?? {} };
}
