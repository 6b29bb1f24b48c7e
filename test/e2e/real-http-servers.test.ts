/**
 * Remote servers as users meet them, through the built CLI with default
 * settings (no --timeout): a cold start, a busy server, nothing listening,
 * a proxy that rewrites MCP headers, a legacy event stream that dies.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HttpTestServerOptions } from '../../src/testing/http-test-server.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { Resources } from '../integration/http/helpers.js';

let dir: { path: string; remove: () => Promise<void> };
const resources = new Resources();

beforeAll(async () => {
  dir = await tempDir('mcpx-real-http-');
});
afterAll(() => dir.remove());
afterEach(() => resources.closeAll());
const server = (options: HttpTestServerOptions = {}) => resources.server(options);

const mcpx = (args: string[], timeoutMs = 60_000) =>
  runCli(args, { cwd: dir.path, home: join(dir.path, 'home'), timeoutMs });

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('remote servers that misbehave, through the CLI', () => {
  it('a server whose first answer comes after 5 s connects, and `mcpx tools` lists its tools', async () => {
    const remote = await server({ faults: { firstAnswerDelayMs: 5_000 } });
    const run = await mcpx(['--url', remote.url, 'tools']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('echo');
  }, 90_000);

  it('a server answering 503 with Retry-After: 1 twice connects', async () => {
    const remote = await server({ faults: { unavailable: 2, retryAfterSeconds: 1 } });
    const run = await mcpx(['--url', remote.url, 'call', 'echo', 'message=after the wait']);
    expect(run).toMatchObject({ code: 0, stdout: 'after the wait\n', stderr: '' });
    expect(remote.requests.filter((r) => r.endsWith('(503)'))).toHaveLength(2);
  }, 90_000);

  it('nothing listening: says so with host and port, exit 4, fixes for a URL', async () => {
    const port = await closedPort();
    const run = await mcpx(['--url', `http://127.0.0.1:${port}/mcp`, 'tools']);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(`nothing is listening on 127.0.0.1:${port}`);
    expect(run.stderr).toContain('start the server');
    expect(run.stderr).not.toMatch(/handshake|npx/);
  }, 90_000);

  it('a proxy that rewrites MCP headers is named, not taken for an old HTTP+SSE server', async () => {
    const remote = await server({ era: 'modern', faults: { modernRefusal: 'header-mismatch' } });
    const run = await mcpx(['--url', remote.url, 'tools']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('refused mcpx');
    expect(run.stderr).toContain('-32020');
    expect(run.stderr).not.toMatch(/HTTP\+SSE/);
  }, 90_000);

  it('HTTP+SSE: a tool call fails as soon as the event stream dies, not after the timeout', async () => {
    const remote = await server({ era: 'sse', faults: { sseDropAfter: 2 } });
    const started = Date.now();
    const run = await mcpx([
      '--url',
      remote.url,
      '--sse',
      'call',
      'slow_operation',
      'steps=300',
      'delay_ms=100',
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('event stream');
    expect(run.stderr).toContain('closed');
    // The call would take 30 s; the request timeout is 60 s.
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 90_000);
});
