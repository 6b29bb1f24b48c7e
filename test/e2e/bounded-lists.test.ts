/**
 * Lists are bounded (issue 28, item 7): a server whose `tools/list` cursor never ends, comes
 * back, or whose list is far bigger than any real one is stopped, with the server's error, through
 * the built CLI against the test server's broken-pagination modes.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let config: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-lists-');
  config = join(dir.path, 'mcp.json');
  const server = (env: Record<string, string>) => ({
    command: process.execPath,
    args: [testServerPath],
    env,
  });
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        endless: server({ MCPX_TEST_FAULT: 'endless-cursor' }),
        looping: server({ MCPX_TEST_FAULT: 'repeated-cursor' }),
        // 24 pages of 1 MB: past the 16 MB cap, every page under the stdio line cap.
        huge: server({ MCPX_TEST_FAULT: 'huge-list', MCPX_TEST_HUGE_LIST_BYTES: String(24 * 1024 * 1024) }),
        paged: server({ MCP_TOOL_COUNT: '250', MCP_PAGE_SIZE: '1' }),
      },
    }),
  );
});
afterAll(() => dir.remove());

function mcpx(args: readonly string[]) {
  return runCli(['--config', config, ...args], {
    cwd: dir.path,
    home: join(dir.path, 'home'),
    timeoutMs: 60_000,
  });
}

const slow = { timeout: 90_000 };

// A failed listing is told by default: the reason on stderr and a non-zero exit.
describe('list walks are bounded', () => {
  it('stops a cursor that never ends, naming the server and the cap', slow, async () => {
    const run = await mcpx(['tools', 'endless']);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("server 'endless' returned more than 500 pages in tools/list");
    expect(run.stdout).not.toContain('endless_');
  });

  it('stops a cursor handed out twice', slow, async () => {
    const run = await mcpx(['tools', 'looping']);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("server 'looping' returned the same cursor twice in tools/list");
    expect(run.stdout).not.toContain('again');
  });

  it('stops a list past the size cap', slow, async () => {
    const run = await mcpx(['tools', 'huge']);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("server 'huge' returned more than 16 MB in tools/list");
    expect(run.stdout).not.toContain('huge_');
  });

  it('still reads a long list served one item a page', slow, async () => {
    const run = await mcpx(['--json', 'tools', 'paged']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [listed] = JSON.parse(run.stdout) as { tools: { name: string }[] }[];
    expect(listed?.tools.map((t) => t.name)).toContain('tool_0250');
  });
});
