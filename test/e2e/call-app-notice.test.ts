/**
 * `mcpx call` of a tool with an MCP App tells the person it has one, after the result, on stderr:
 * at a terminal with a link to a console started for it (`cli/apps/app-link.ts`) that holds the
 * call's input and the result the terminal showed; to a script, the line naming
 * `mcpx console --open-app`, and nothing started. With `k=v` arguments the definition is at hand;
 * with JSON ones it is fetched for a person only. A tool without one says nothing more. A call in
 * the shell and a chat model's call at a terminal get the same link.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from '../../src/testing/fake-model-server.js';
import { runChatWithModel } from '../helpers/chat.js';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { linkConsolePids, waitForExit } from '../helpers/processes.js';
import { type PtyRun, runInPty } from '../helpers/pty.js';

let dir: { path: string; remove: () => Promise<void> };
let config: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-call-app-');
  config = join(dir.path, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        test: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_APPS: '1' } },
      },
    }),
  );
});
afterAll(() => dir.remove());

const models: FakeModelServer[] = [];
const terms: PtyRun[] = [];
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
  for (const term of terms.splice(0)) term.kill();
});

const call = (...words: string[]) =>
  runCli(['--config', config, 'call', ...words], { cwd: dir.path, home: join(dir.path, 'home') });

const NOTICE =
  'test.show_dashboard has an MCP App (ui://dashboard/view.html): see it with mcpx console --open-app test.show_dashboard';

it('says a tool has an MCP App when called with k=v arguments', async () => {
  const typed = await call('test.show_dashboard', 'title=Fleet');
  expect(typed.code).toBe(0);
  expect(typed.stdout).toContain('Fleet: 3 servers up');
  expect(typed.stderr).toContain(NOTICE);
});

/** `<target> has an MCP App (<uri>): open <link>`, the link to a console holding the call. */
const LINK_LINE =
  /test\.show_dashboard has an MCP App \(ui:\/\/dashboard\/view\.html\): open (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}&call=1)/;

/** End the consoles a link started (they outlive the command on purpose, for the page). */
async function endLinkConsoles(): Promise<number> {
  const pids = linkConsolePids(join(dir.path, 'home', '.mcpx'));
  for (const pid of pids) process.kill(pid, 'SIGTERM');
  for (const pid of pids) await waitForExit(pid, 10_000);
  return pids.length;
}

it('gives a person at a terminal a link to the App with the call, and a script the line', async () => {
  const term = runInPty(['--config', config, 'call', 'test.show_dashboard', '{"title":"Fleet"}'], {
    cwd: dir.path,
    home: join(dir.path, 'home'),
  });
  expect(await term.exited).toBe(0);
  const output = term.text().replace(/\r?\n/g, '');
  const link = LINK_LINE.exec(output)?.[1];
  expect(link, output).toBeDefined();
  // Through the terminal funnel: the line carries no escape sequence of any kind.
  const line =
    term
      .text()
      .split(/\r?\n/)
      .find((l) => l.includes('has an MCP App')) ?? '';
  expect(line).not.toMatch(/[\u001b\u009b\u0007]/);
  // The link is served by a console holding the call the terminal made: the page answers, and
  // lists that call with the result the terminal showed.
  const url = new URL(link as string);
  const state = (await (
    await fetch(`${url.origin}/api/state`, {
      headers: { 'X-Mcpx-Token': url.searchParams.get('token') ?? '' },
    })
  ).json()) as {
    calls: { id: number; tool: string; args: unknown; result: { content: { text?: string }[] } }[];
  };
  expect(state.calls).toHaveLength(1);
  expect(state.calls[0]).toMatchObject({ id: 1, tool: 'show_dashboard', args: { title: 'Fleet' } });
  expect(state.calls[0]?.result.content[0]?.text).toBe(
    'Fleet: 3 servers up, 0 errors; client shows apps: no',
  );
  expect(await endLinkConsoles()).toBe(1);

  const script = await call('test.show_dashboard', '{"title":"Fleet"}');
  expect(script.code).toBe(0);
  expect(script.stderr).not.toContain('MCP App');
  expect(await endLinkConsoles()).toBe(0);
});

it('says nothing of an App for a tool without one', async () => {
  const run = await call('test.echo', 'message=hi');
  expect(run.code).toBe(0);
  expect(run.stderr).not.toContain('MCP App');
});

it('gives the link after a call in the shell', { timeout: 60_000 }, async () => {
  const term = runInPty(['--config', config, 'shell'], { cwd: dir.path, home: join(dir.path, 'home') });
  terms.push(term);
  await term.waitFor('mcpx> ');
  await term.type('@test show_dashboard title=Fleet', '\r');
  await term.waitFor('&call=1');
  expect(term.text().replace(/\r?\n/g, '')).toMatch(LINK_LINE);
  await term.waitFor('mcpx> ');
  await term.type('\x04');
  expect(await term.exited).toBe(0);
  expect(await endLinkConsoles()).toBe(1);
});

it("says it after a chat model's call, and not after one of a tool without an App", async () => {
  const run = await runChatWithModel(
    [
      { toolCalls: [{ name: 'mcp_test_show_dashboard', arguments: { title: 'Fleet' } }] },
      { toolCalls: [{ name: 'mcp_test_echo', arguments: { message: 'hi' } }] },
      { text: 'Done.' },
    ],
    {
      cwd: dir.path,
      home: join(dir.path, 'home'),
      globalArgs: ['--config', config],
      args: ['--permission', 'yolo'],
      input: 'show me the fleet\n',
    },
    models,
  );
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain(NOTICE);
  expect(run.stderr.split(NOTICE)).toHaveLength(2);
  expect(run.stderr).not.toContain('test.echo has an MCP App');
  // The model was offered the App's tool for models, not the one for the App alone.
  const offered = ((run.model.requests[0]?.tools ?? []) as { function: { name: string } }[]).map(
    (t) => t.function.name,
  );
  expect(offered).toContain('mcp_test_show_dashboard');
  expect(offered).not.toContain('mcp_test_refresh_dashboard');
});

it("gives the link after a chat model's call at a terminal", { timeout: 60_000 }, async () => {
  const model = await startFakeModelServer([
    { toolCalls: [{ name: 'mcp_test_show_dashboard', arguments: { title: 'Fleet' } }] },
    { text: 'Done.' },
  ]);
  models.push(model);
  const term = runInPty(
    ['--config', config, 'chat', '--base-url', model.baseUrl, '--model', 'fake', '--permission', 'yolo'],
    { cwd: dir.path, home: join(dir.path, 'home'), env: { OPENAI_API_KEY: 'sk-test' } },
  );
  terms.push(term);
  await term.waitFor('> ');
  await term.type('show me the fleet', '\r');
  await term.waitFor('Done.');
  // Printed once the console for it started, before the next prompt.
  await term.waitFor('&call=1');
  const output = term.text().replace(/\r?\n/g, '');
  const link = LINK_LINE.exec(output)?.[1];
  expect(link, output).toBeDefined();
  // The console holds the model's call: its arguments and the server's result.
  const url = new URL(link as string);
  const state = (await (
    await fetch(`${url.origin}/api/state`, {
      headers: { 'X-Mcpx-Token': url.searchParams.get('token') ?? '' },
    })
  ).json()) as { calls: { args: unknown; result: { content: { text?: string }[] } }[] };
  expect(state.calls[0]?.args).toEqual({ title: 'Fleet' });
  expect(state.calls[0]?.result.content[0]?.text).toBe(
    'Fleet: 3 servers up, 0 errors; client shows apps: no',
  );
  await term.type('\x04');
  expect(await term.exited).toBe(0);
  expect(await endLinkConsoles()).toBe(1);
});
