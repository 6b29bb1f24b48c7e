import type { TestTool } from './catalog.js';

const done = (text: string) => Promise.resolve({ content: [{ type: 'text' as const, text }] });

/**
 * Tools whose annotations ask the permission policy to confirm every call
 * (issue 25, item 5): one destructive, one read-only but reaching the open
 * world. Switched on by `MCPX_TEST_ANNOTATED=1` on the stdio test server.
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
];
