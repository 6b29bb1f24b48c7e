/**
 * The console's MCP Apps host over plain HTTP (the built `mcpx console --no-open`): an App's page
 * is served once from the Apps' own origin with the CSP its resource declares, the console's page
 * may frame that origin alone, and an App's call is checked for the tool's visibility.
 */

import { afterEach, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { type RunningConsolePage, startConsole } from '../helpers/console.js';

let running: RunningConsolePage | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const console = running as RunningConsolePage;
  const response = await fetch(`${console.origin}${path}`, {
    method: 'POST',
    headers: { 'X-Mcpx-Token': console.token, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

it("serves an App's page once, from another origin, under its declared CSP; checks an App's calls", async () => {
  running = await startConsole({
    test: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_APPS: '1' } },
  });
  const opened = await post('/api/app', { server: 'test', uri: 'ui://hostile/forbidden-script.html' });
  expect(opened.status).toBe(200);
  const frame = new URL(String(opened.body.frame));
  expect(frame.origin).not.toBe(running.origin);
  expect(frame.hostname).toBe('127.0.0.1');

  const page = await fetch(running.url);
  expect(page.headers.get('content-security-policy')).toMatch(new RegExp(`; frame-src ${frame.origin}$`));

  const app = await fetch(frame);
  expect(app.status).toBe(200);
  expect(await app.text()).toContain('hostile app: forbidden-script');
  const csp = app.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'unsafe-inline' https://allowed.example.invalid;");
  expect(csp).toContain("connect-src 'none';");
  expect(csp).toContain(`frame-ancestors ${running.origin}`);
  expect(app.headers.get('x-frame-options')).toBeNull();
  // Once only: the same URL again, or any other path of that origin, is nothing.
  expect((await fetch(frame)).status).toBe(404);
  expect((await fetch(`${frame.origin}/api/state?token=${running.token}`)).status).toBe(404);

  // Not an App's page: refused.
  const notApp = await post('/api/app', { server: 'test', uri: 'test://config.json' });
  expect(notApp.status).toBe(400);

  const modelOnly = await post('/api/app-call', { server: 'test', tool: 'model_only_fact', args: {} });
  expect(modelOnly.status).toBe(403);
  expect(modelOnly.body.error).toMatchObject({ code: 'PERMISSION_DENIED' });
  const appOnly = await post('/api/app-call', { server: 'test', tool: 'refresh_dashboard', args: {} });
  expect(appOnly.status).toBe(200);
  expect(appOnly.body).toMatchObject({ state: 'done', result: { content: [{ type: 'text' }] } });
});
