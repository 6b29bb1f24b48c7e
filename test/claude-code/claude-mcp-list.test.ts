/**
 * Claude Code's own CLI connects to the servers mcpx hands it (issue 14). Run by
 * `.ci/run` only (vitest.claude-code.config.ts), after
 * `npm install --prefix claude-code`: the package is ~370 MB, too heavy for `npm test`.
 *
 * `claude mcp list` health-checks the servers of `~/.claude.json` and `.mcp.json` but
 * ignores `--mcp-config`, so `mcpx exec` runs hand-to-claude.mjs, which gives each server
 * of the file mcpx wrote to `claude mcp add-json` and then runs `claude mcp list`. The
 * servers are added with `mcpx config add`: stdio, Streamable HTTP and HTTP+SSE test servers.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpTestServer, startHttpTestServer } from '../../src/testing/http-test-server.js';
import { repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';

const claude = process.env.CLAUDE_BIN ?? join(repoRoot, 'claude-code/node_modules/.bin/claude');
const handOver = join(repoRoot, 'test/claude-code/hand-to-claude.mjs');

let dir: { path: string; remove: () => Promise<void> };
const servers: HttpTestServer[] = [];
beforeAll(async () => {
  dir = await tempDir('mcpx-claude-code-');
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await dir.remove();
});

describe('Claude Code (claude mcp list)', () => {
  it('is installed in claude-code/ (npm install --prefix claude-code)', () => {
    expect(existsSync(claude), `${claude} is missing: run npm install --prefix claude-code`).toBe(true);
  });

  it('shows ✔ Connected for the stdio, HTTP and SSE servers mcpx exec hands it', async () => {
    const home = join(dir.path, 'home');
    const cwd = join(dir.path, 'repo');
    await mkdir(cwd, { recursive: true });
    const http = await startHttpTestServer({ era: 'both' });
    const sse = await startHttpTestServer({ era: 'sse' });
    servers.push(http, sse);
    const env = { CLAUDE_BIN: claude, TEST_TOKEN: 'sekrit' };
    const cli = (args: string[]) => runCli(args, { cwd, home, env, timeoutMs: 60_000 });
    for (const args of [
      ['config', 'add', 'local', '--env', `TOKEN=\${TEST_TOKEN}`, '--', process.execPath, testServerPath],
      ['config', 'add', 'remote', '--url', http.url, '--header', `X-Token: \${TEST_TOKEN}`],
      ['config', 'add', 'legacy', '--url', sse.url, '--type', 'sse'],
    ]) {
      const added = await cli(args);
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
    }

    const run = await cli(['exec', '--', process.execPath, handOver]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('strict: true');
    expect(run.stdout).toMatch(/^local: .* - ✔ Connected$/m);
    expect(run.stdout).toMatch(/^remote: .* - ✔ Connected$/m);
    expect(run.stdout).toMatch(/^legacy: .* - ✔ Connected$/m);
    expect(await readdir(join(home, '.mcpx', 'run'))).toEqual([]);
  });

  it('takes the hand-over where mcpx exec puts it: claude agents runs with it, claude mcp list without it', async () => {
    const home = join(dir.path, 'home-sub');
    const cwd = join(dir.path, 'repo-sub');
    await mkdir(cwd, { recursive: true });
    const cli = (args: string[]) => runCli(args, { cwd, home, timeoutMs: 60_000 });
    expect((await cli(['config', 'add', 'local', '--', process.execPath, testServerPath])).code).toBe(0);

    const agents = await cli(['exec', '--', claude, 'agents', '--json']);
    expect(agents.stderr).toBe('');
    expect(agents.code).toBe(0);
    expect(JSON.parse(agents.stdout)).toEqual([]);

    const list = await cli(['exec', '--', claude, 'mcp', 'list']);
    expect(list.stderr).not.toContain('unknown option');
    expect(list.stderr).toContain("'claude mcp' takes no --mcp-config");
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('No MCP servers configured');
  });
});
