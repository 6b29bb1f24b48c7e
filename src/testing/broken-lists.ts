/**
 * `tools/list` pagination gone wrong, for the test server's fault modes: a cursor that never
 * ends, a cursor handed out twice, a list far bigger than any real one.
 */
import type { Tool } from '@modelcontextprotocol/server';

export type BrokenListMode = 'endless-cursor' | 'repeated-cursor' | 'huge-list';

type ToolsPage = { tools: Tool[]; nextCursor?: string };

export const DEFAULT_HUGE_LIST_BYTES = 100 * 1024 * 1024;
// One page of a huge list: under the stdio line cap (10 MB), so only the total is at fault.
const HUGE_PAGE_BYTES = 1024 * 1024;

const tool = (name: string, description?: string): Tool => ({
  name,
  ...(description === undefined ? {} : { description }),
  inputSchema: { type: 'object' },
});

/**
 * The pages `mode` serves in place of the catalogue's:
 * - `endless-cursor`: one new tool and a new cursor on every page, forever;
 * - `repeated-cursor`: the second page points to itself (`again` → `again`);
 * - `huge-list`: pages of a 1 MB tool each, `hugeListBytes` in all (100 MB by default).
 */
export function brokenToolsPage(
  mode: BrokenListMode,
  hugeListBytes = DEFAULT_HUGE_LIST_BYTES,
): (cursor: string | undefined) => ToolsPage {
  return (cursor) => {
    const n = cursor === undefined ? 0 : Number(cursor.replace(/^\D+/, '')) || 0;
    switch (mode) {
      case 'endless-cursor':
        return { tools: [tool(`endless_${n}`)], nextCursor: `page-${n + 1}` };
      case 'repeated-cursor':
        return cursor === undefined
          ? { tools: [tool('first')], nextCursor: 'again' }
          : { tools: [tool('again')], nextCursor: 'again' };
      case 'huge-list': {
        const pages = Math.max(1, Math.ceil(hugeListBytes / HUGE_PAGE_BYTES));
        return {
          tools: [tool(`huge_${n}`, 'x'.repeat(HUGE_PAGE_BYTES))],
          ...(n + 1 < pages ? { nextCursor: `page-${n + 1}` } : {}),
        };
      }
    }
  };
}
