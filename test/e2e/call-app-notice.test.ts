/**
 * `mcpx call` of a tool with an MCP App tells the person it has one, and how to see it
 * (`mcpx console --open-app`): on stderr, after the result. With `k=v` arguments the definition is
 * at hand; with JSON ones it is fetched for a person at a terminal only (a script's call pays no
 * extra round trip). A tool without one says nothing more.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';

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

it('says it to a person at a terminal with JSON arguments, and not to a script', async () => {
  const term = runInPty(['--config', config, 'call', 'test.show_dashboard', '{"title":"Fleet"}'], {
    cwd: dir.path,
    home: join(dir.path, 'home'),
  });
  expect(await term.exited).toBe(0);
  expect(term.text().replace(/\r?\n/g, '')).toContain(NOTICE);

  const script = await call('test.show_dashboard', '{"title":"Fleet"}');
  expect(script.code).toBe(0);
  expect(script.stderr).not.toContain('MCP App');
});

it('says nothing of an App for a tool without one', async () => {
  const run = await call('test.echo', 'message=hi');
  expect(run.code).toBe(0);
  expect(run.stderr).not.toContain('MCP App');
});
