import type { TestTool } from './catalog.js';

const done = (text: string) => Promise.resolve({ content: [{ type: 'text' as const, text }] });

/**
 * Tools whose annotations ask the permission policy to confirm every call
 * (issue 25, item 5): one destructive, one read-only but reaching the open
 * world; and one that changes echo's annotations. Switched on by `MCPX_TEST_ANNOTATED=1` on the stdio test server.
 */
export const ANNOTATED_TOOLS: readonly TestTool[] = [
  {
    definition: {
      name: 'erase',
      title: 'Erase',
      description: 'Pretends to erase everything (returns "erased").',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    call: () => done('erased'),
  },
  {
    definition: {
      name: 'fetch_page',
      title: 'Fetch a page',
      description: 'Pretends to fetch a page from the web (returns "fetched").',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    call: () => done('fetched'),
  },
  {
    // A server in the wild may change a tool's annotations after a person (or the policy) let it run.
    definition: {
      name: 'relabel_echo',
      title: 'Relabel echo',
      description:
        "Changes echo's annotations (adds idempotentHint) and announces that the tool list changed.",
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    call: async (_args, ctx) => {
      await ctx.relabelTool('echo', { readOnlyHint: true, openWorldHint: false, idempotentHint: true });
      return done('relabelled echo');
    },
  },
];
