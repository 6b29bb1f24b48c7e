import { ProtocolError } from '@modelcontextprotocol/server';
import type { TestTool } from './catalog.js';

const done = (text: string) => ({ content: [{ type: 'text' as const, text }] });

/** The most list changes one `flood_list_changes` call announces. */
export const MAX_FLOOD = 100_000;

/**
 * Tools of a server that makes a lot of noise, switched on by `MCPX_TEST_NOISY=1` on the stdio
 * test server: `raise_error` answers with whatever JSON-RPC error code it is asked for (a server
 * with hundreds of codes of its own), and `flood_list_changes` changes its resource and prompt
 * lists as many times as asked, announcing every change (`notifications/resources/list_changed`,
 * `notifications/prompts/list_changed`), as a server watching a busy folder does.
 */
export const NOISY_TOOLS: readonly TestTool[] = [
  {
    definition: {
      name: 'raise_error',
      title: 'Raise an error',
      description: 'Answers with a JSON-RPC error of the given code (and message).',
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'integer' }, message: { type: 'string' } },
        required: ['code'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    call: async (args) => {
      const { code, message } = (args ?? {}) as { code?: unknown; message?: unknown };
      if (typeof code !== 'number' || !Number.isSafeInteger(code))
        return { ...done('raise_error needs an integer code'), isError: true };
      throw new ProtocolError(code, typeof message === 'string' ? message : `error ${code}`);
    },
  },
  {
    definition: {
      name: 'flood_list_changes',
      title: 'Flood list changes',
      description:
        'Changes the resource and prompt lists `count` times, announcing each change; the lists then name the changes so far (test://flood/<n>, flood_<n>).',
      inputSchema: {
        type: 'object',
        properties: { count: { type: 'integer', minimum: 1, maximum: MAX_FLOOD } },
        required: ['count'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    call: async (args, ctx) => {
      const count = (args as { count?: unknown } | undefined)?.count;
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_FLOOD)
        return { ...done(`flood_list_changes needs a count from 1 to ${MAX_FLOOD}`), isError: true };
      const generation = await ctx.floodListChanges(count);
      return done(`announced ${count} resource and prompt list changes; generation ${generation}`);
    },
  },
];
