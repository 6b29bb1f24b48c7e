/**
 * `mcpx console --no-open` as a person runs it, seen from plain HTTP: the page and its API only
 * with the URL's token, only under the console's own Host (no DNS rebinding) and from its own
 * Origin; the page's security headers; and the process gone, servers with it, on SIGTERM/SIGINT.
 */
import { request } from 'node:http';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { type RunningConsolePage, startConsole } from '../helpers/console.js';
import { descendantPids, waitForExit } from '../helpers/processes.js';

let running: RunningConsolePage | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const servers = { test: { command: process.execPath, args: [testServerPath] } };

/** One raw HTTP request to the console, with exactly these headers (fetch will not send any Host). */
function raw(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

describe('mcpx console over HTTP', () => {
  it('serves the page with its token only, under its own Host and Origin, with a strict CSP', async () => {
    running = await startConsole(servers);
    const { port, token } = running;
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
    const own = { Host: `127.0.0.1:${port}` };

    const page = await raw(port, `/?token=${token}`, own);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>mcpx console</title>');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    // Everything the page loads is the console's own: no other host named anywhere in it.
    const loads = page.body.match(/(?:src|href)="([^"]*)"/g) ?? [];
    expect(loads).toHaveLength(4);
    expect(
      loads.every((m) =>
        /^(?:src|href)="\/(?:console\.(?:js|css)|console-observe\.js|app-host\.js)\?token=/.test(m),
      ),
    ).toBe(true);
    expect((await raw(port, `/?token=${token}`, { Host: `localhost:${port}` })).status).toBe(200);

    expect((await raw(port, '/', own)).status).toBe(401);
    expect((await raw(port, `/?token=${'0'.repeat(48)}`, own)).status).toBe(401);
    expect((await raw(port, '/api/state', own)).status).toBe(401);
    expect((await raw(port, '/console.js', own)).status).toBe(401);
    // A DNS-rebound name reaches 127.0.0.1 with the attacker's Host: refused, token or not.
    expect((await raw(port, `/?token=${token}`, { Host: `evil.example:${port}` })).status).toBe(403);
    expect((await raw(port, `/?token=${token}`, { Host: '127.0.0.1:1' })).status).toBe(403);
    // Another origin's page, even with the token, gets nothing and can make no call.
    const cross = { ...own, Origin: 'http://evil.example' };
    expect((await raw(port, `/api/state?token=${token}`, cross)).status).toBe(403);
    const call = JSON.stringify({ server: 'test', tool: 'echo', args: { message: 'x' } });
    const json = { 'Content-Type': 'application/json' };
    expect((await raw(port, `/api/call?token=${token}`, { ...cross, ...json }, 'POST', call)).status).toBe(
      403,
    );
    expect(
      (
        await raw(
          port,
          `/api/call?token=${token}`,
          { ...own, Origin: `http://localhost:${port}`, ...json },
          'POST',
          call,
        )
      ).status,
    ).toBe(403);
    // A form another site could post is not JSON: refused before any call.
    const form = { ...own, 'Content-Type': 'text/plain' };
    expect((await raw(port, `/api/call?token=${token}`, form, 'POST', call)).status).toBe(400);

    // The page's own origin with the token: the call is made, through the host.
    const ok = await raw(
      port,
      `/api/call`,
      { ...own, Origin: running.origin, 'X-Mcpx-Token': token, ...json },
      'POST',
      call,
    );
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({
      server: 'test',
      tool: 'echo',
      state: 'done',
      result: { content: [{ type: 'text', text: 'x' }] },
    });
  });

  it('refuses a --port that is not a port, or is taken, saying which and why', async () => {
    const dir = await tempDir();
    const taken = createServer();
    try {
      const port = await new Promise<number>((resolve) =>
        taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)),
      );
      const options = { cwd: dir.path, home: dir.path };
      const bad = await runCli(['console', '--no-open', '--port', 'eighty'], options);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('--port eighty is not a port');
      const busy = await runCli(['console', '--no-open', '--port', String(port)], options);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`the console cannot listen on 127.0.0.1:${port}`);
      expect(busy.stdout).toBe('');
    } finally {
      taken.close();
      await dir.remove();
    }
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('exits 0 on %s, its servers stopped with it', async (signal) => {
    running = await startConsole(servers);
    const state = await fetch(`${running.origin}/api/state?token=${running.token}`);
    expect(state.status).toBe(200);
    // The test server runs under the console once it has connected.
    await expect
      .poll(() => descendantPids(running?.child.pid as number).length, { timeout: 15_000 })
      .toBeGreaterThan(0);
    const children = descendantPids(running.child.pid as number);
    running.child.kill(signal);
    expect(await running.exited).toEqual({ code: 0, signal: null });
    for (const pid of children) expect(await waitForExit(pid, 5000)).toBe(true);
    expect(running.stderr()).toBe('');
  });
});
