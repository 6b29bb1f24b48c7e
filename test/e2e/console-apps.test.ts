/**
 * The console's MCP Apps host over plain HTTP (the built `mcpx console --no-open`): an App's page
 * is served once from the Apps' own origin with the CSP its resource declares, the console's page
 * may frame that origin alone; an App's call is checked for the tool's visibility, decided by the
 * policy (its question answered on the page) and audited as the console's, naming the App.
 */

import { readFile } from 'node:fs/promises';
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

  const caller = { uri: 'ui://dashboard/view.html', tool: 'show_dashboard' };
  const modelOnly = await post('/api/app-call', {
    server: 'test',
    tool: 'model_only_fact',
    args: {},
    app: caller,
  });
  expect(modelOnly.status).toBe(403);
  expect(modelOnly.body.error).toMatchObject({ code: 'PERMISSION_DENIED' });
  // Not the person's call: the policy (trusted) asks, on the page, before the App's first call runs.
  const appOnly = post('/api/app-call', { server: 'test', tool: 'refresh_dashboard', args: {}, app: caller });
  const question = await waitForQuestion();
  expect(question).toMatchObject({ kind: 'connect', server: 'test' });
  expect((await post('/api/answer', { id: question.id, choice: 'allow-all' })).status).toBe(200);
  expect((await appOnly).status).toBe(200);
  expect((await appOnly).body).toMatchObject({ state: 'done', result: { content: [{ type: 'text' }] } });
  // A call from the page's form is the person's own: nothing asked, recorded as the console's.
  const own = await post('/api/call', { server: 'test', tool: 'echo', args: { message: 'hi' } });
  expect(own.body).toMatchObject({ state: 'done' });

  // The audit file tells the console's calls from the CLI's, and an App's from the person's.
  const records = await auditRecords(3);
  expect(records.find((r) => r.tool === 'model_only_fact')).toMatchObject({
    client: 'console',
    app: caller,
    outcome: 'refused',
  });
  expect(records.find((r) => r.tool === 'refresh_dashboard')).toMatchObject({
    client: 'console',
    app: caller,
    decision: { result: 'confirmed', by: 'terminal', question: 'connect' },
    outcome: 'ok',
  });
  const echo = records.find((r) => r.tool === 'echo');
  expect(echo).toMatchObject({ client: 'console', decision: { result: 'allowed', by: 'person' } });
  expect(echo).not.toHaveProperty('app');
});

async function waitForQuestion(): Promise<{ id: number; kind: string; server: string }> {
  const console = running as RunningConsolePage;
  for (let i = 0; i < 150; i++) {
    const state = (await (
      await fetch(`${console.origin}/api/state`, { headers: { 'X-Mcpx-Token': console.token } })
    ).json()) as { questions: { id: number; kind: string; server: string }[] };
    const [first] = state.questions;
    if (first) return first;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no question came to the page');
}

/** The audit file's records once it holds `count` of them (written behind the calls, every 100 ms). */
async function auditRecords(count: number): Promise<Record<string, unknown>[]> {
  const file = (running as RunningConsolePage).auditFile;
  let records: Record<string, unknown>[] = [];
  for (let i = 0; i < 100 && records.length < count; i++) {
    const text = await readFile(file, 'utf8').catch(() => '');
    records = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    if (records.length < count) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return records;
}
