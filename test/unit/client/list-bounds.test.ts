import { describe, expect, it } from 'vitest';
import { ListWalk } from '../../../src/client/list-bounds.js';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';

const limits = { maxPages: 3, maxItems: 5, maxBytes: 1000 };
const tools = (n: number, description = '') =>
  Array.from({ length: n }, (_, i) => ({ name: `t${i}`, description, inputSchema: {} }));

function thrown(action: () => void): McpxError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(McpxError);
    return error as McpxError;
  }
  throw new Error('expected a failure');
}

describe('ListWalk', () => {
  it('lets a list within its caps through, page by page', () => {
    const walk = new ListWalk('s', limits);
    walk.beforePage('tools/list', undefined);
    walk.afterPage('tools/list', { tools: tools(2), nextCursor: 'a' });
    walk.beforePage('tools/list', 'a');
    walk.afterPage('tools/list', { tools: tools(3) });
  });

  it('stops at the page cap, before asking for one more page', () => {
    const walk = new ListWalk('s', limits);
    for (const cursor of [undefined, 'a', 'b']) {
      walk.beforePage('prompts/list', cursor);
      walk.afterPage('prompts/list', { prompts: [], nextCursor: `${cursor ?? ''}x` });
    }
    const error = thrown(() => walk.beforePage('prompts/list', 'c'));
    expect(error.code).toBe(ErrorCode.ListTooLarge);
    expect(error.message).toBe("server 's' returned more than 3 pages in prompts/list");
    expect(error.context.server).toBe('s');
  });

  it('counts the items of the list the method names', () => {
    const walk = new ListWalk('s', limits);
    walk.beforePage('resources/templates/list', undefined);
    const error = thrown(() =>
      walk.afterPage('resources/templates/list', { resourceTemplates: tools(6), nextCursor: 'a' }),
    );
    expect(error.message).toBe("server 's' returned more than 5 items in resources/templates/list");
  });

  it('counts bytes across pages', () => {
    const walk = new ListWalk('s', limits);
    walk.beforePage('tools/list', undefined);
    walk.afterPage('tools/list', { tools: tools(1, 'x'.repeat(600)), nextCursor: 'a' });
    walk.beforePage('tools/list', 'a');
    const error = thrown(() => walk.afterPage('tools/list', { tools: tools(1, 'x'.repeat(600)) }));
    expect(error.code).toBe(ErrorCode.ListTooLarge);
    expect(error.message).toBe("server 's' returned more than 1000 bytes in tools/list");
  });

  it('fails on a cursor handed out a second time, even on a page like the one before', () => {
    const walk = new ListWalk('s', limits);
    walk.beforePage('tools/list', undefined);
    walk.afterPage('tools/list', { tools: tools(1), nextCursor: 'again' });
    walk.beforePage('tools/list', 'again');
    const error = thrown(() => walk.afterPage('tools/list', { tools: tools(1), nextCursor: 'again' }));
    expect(error.code).toBe(ErrorCode.ListPaginationBroken);
    expect(error.message).toBe("server 's' returned the same cursor twice in tools/list");
  });
});
