/** Remote servers from the command line: `--url` without a config, and retries shown with --verbose. */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HttpTestServerOptions } from '../../src/testing/http-test-server.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { Resources } from '../integration/http/helpers.js';

let dir: { path: string; remove: () => Promise<void> };
const resources = new Resources();

beforeAll(async () => {
  dir = await tempDir('mcpx-remote-');
});
afterAll(() => dir.remove());
afterEach(() => resources.closeAll());
const server = (options: HttpTestServerOptions = {}) => resources.server(options);

const mcpx = (args: string[]) => runCli(args, { cwd: dir.path, home: join(dir.path, 'home') });

describe('mcpx --url', () => {
  it('calls a tool of an ad-hoc remote server, named without a prefix', async () => {
    const remote = await server();
    const run = await mcpx(['--url', remote.url, 'call', 'echo', 'message=over http']);
    expect(run).toMatchObject({ code: 0, stdout: 'over http\n', stderr: '' });
  });

  it('lists the ad-hoc server alone', async () => {
    const remote = await server();
    const run = await mcpx(['--url', remote.url, '--json', 'list']);
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as { name: string; state: string }[];
    expect(rows.map((r) => [r.name, r.state])).toEqual([['127-0-0-1', 'ready']]);
  });

  it('speaks legacy HTTP+SSE with --sse', async () => {
    const remote = await server({ era: 'sse' });
    const run = await mcpx(['--url', remote.url, '--sse', 'call', 'echo', 'message=over sse']);
    expect(run).toMatchObject({ code: 0, stdout: 'over sse\n' });
  });

  it('shows each retry with --verbose, and still succeeds', async () => {
    const remote = await server({ faults: { unavailable: 2, retryAfterSeconds: 0 } });
    const run = await mcpx(['--url', remote.url, '--verbose', 'call', 'echo', 'message=eventually']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('eventually\n');
    const retries = run.stderr.split('\n').filter((line) => / retry \d+ of \d+ in \d+ ms$/.test(line));
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatch(/^127-0-0-1: .*HTTP 503.*retry 1 of \d+/);
  });

  it('refuses --url together with --stdio, and a URL that is not http(s)', async () => {
    const both = await mcpx(['--url', 'http://127.0.0.1:1/mcp', '--stdio', 'node x.js', 'list']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('give only one of them');
    const ftp = await mcpx(['--url', 'ftp://example.com/mcp', 'list']);
    expect(ftp.code).toBe(1);
    expect(ftp.stderr).toMatch(/^error: --url: /);
  });
});

describe('mcpx auth / logout', () => {
  it('logout says when there was no sign-in; auth refuses a stdio server', async () => {
    const remote = await server();
    const logout = await mcpx(['--url', remote.url, 'logout', '127-0-0-1']);
    expect(logout).toMatchObject({ code: 0, stdout: "'127-0-0-1' had no stored sign-in.\n" });
    const stdio = await mcpx(['auth', 'demo']);
    expect(stdio.code).toBe(1);
    expect(stdio.stderr).toContain("'demo' is a local (stdio) server: only remote servers sign in");
  });

  it('a server that answers 401 says how to sign in (exit 3)', async () => {
    const { createServer } = await import('node:http');
    const denied = createServer((_req, res) => res.writeHead(401, { 'www-authenticate': 'Bearer' }).end());
    await new Promise<void>((resolve) => denied.listen(0, '127.0.0.1', resolve));
    try {
      const port = (denied.address() as { port: number }).port;
      const run = await mcpx(['--url', `http://127.0.0.1:${port}/mcp`, 'call', 'echo', 'message=x']);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain('sign in with `mcpx auth 127-0-0-1`');
    } finally {
      await new Promise((resolve) => denied.close(resolve));
    }
  });
});
