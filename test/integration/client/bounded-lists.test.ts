/**
 * A list walk is bounded (issue 28, item 7): the connection fails a `tools/list` whose cursor
 * never ends, comes back, or whose list is past the size cap, as the server's typed error,
 * against the test server's broken-pagination modes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';
import { connect, testServer, trackConnections } from '../../helpers/servers.js';

const { track, closeAll } = trackConnections();
afterEach(closeAll);

async function listFailure(name: string, env: Record<string, string>): Promise<McpxError> {
  const c = await track(connect(testServer(name, env)));
  const error = await c.listTools().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpxError);
  return error as McpxError;
}

describe('bounded list walks', () => {
  it('stop a cursor that never ends at 500 pages', { timeout: 60_000 }, async () => {
    const error = await listFailure('endless', { MCPX_TEST_FAULT: 'endless-cursor' });
    expect(error.code).toBe(ErrorCode.ListTooLarge);
    expect(error.context.server).toBe('endless');
    expect(error.message).toBe("server 'endless' returned more than 500 pages in tools/list");
  });

  it('stop a cursor the server hands out twice', async () => {
    const error = await listFailure('looping', { MCPX_TEST_FAULT: 'repeated-cursor' });
    expect(error.code).toBe(ErrorCode.ListPaginationBroken);
    expect(error.message).toBe("server 'looping' returned the same cursor twice in tools/list");
  });

  it('stop a list past 16 MB', { timeout: 60_000 }, async () => {
    const error = await listFailure('huge', {
      MCPX_TEST_FAULT: 'huge-list',
      MCPX_TEST_HUGE_LIST_BYTES: String(24 * 1024 * 1024),
    });
    expect(error.code).toBe(ErrorCode.ListTooLarge);
    expect(error.message).toBe("server 'huge' returned more than 16 MB in tools/list");
  });

  it('read 250 tools served one a page, and every other list', { timeout: 60_000 }, async () => {
    const c = await track(connect(testServer('paged', { MCP_TOOL_COUNT: '250', MCP_PAGE_SIZE: '1' })));
    expect((await c.listTools()).filter((t) => /^tool_\d{4}$/.test(t.name))).toHaveLength(250);
    expect((await c.listPrompts()).length).toBeGreaterThan(0);
    expect((await c.listResources()).length).toBeGreaterThan(0);
    expect((await c.listResourceTemplates()).length).toBeGreaterThan(0);
  });
});
