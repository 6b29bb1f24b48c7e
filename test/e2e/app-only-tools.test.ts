/**
 * A tool for its MCP App alone (`_meta.ui.visibility: ["app"]`, the test server's
 * `refresh_dashboard`) is never offered to a model: a library program's `agentTools()` (what
 * chat gives its model too) lists the App's other tools but not that one, and cannot call it.
 * `mcpx tools` lists it to a person marked `[app only]`, not as an ordinary tool.
 */

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createHost } from '../../src/host/index.js';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

it("agentTools() hides a tool whose visibility is the app's alone", async () => {
  const dir = await tempDir('mcpx-app-only-');
  const configFile = join(dir.path, 'mcp.json');
  await writeFile(
    configFile,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: {
        test: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_APPS: '1' } },
      },
    }),
  );
  const host = createHost({
    cwd: dir.path,
    homedir: dir.path,
    env: { PATH: process.env.PATH, MCPX_HOME: join(dir.path, '.mcpx') },
    configFile,
    omitBuiltinWhenConfigured: true,
  });
  cleanup = async () => {
    await host.close();
    await dir.remove();
  };
  const agent = await host.agentTools({ naming: 'namespaced', mode: 'all' });
  try {
    const names = agent.tools.map((t) => t.name);
    expect(names).toContain('test__show_dashboard');
    expect(names).toContain('test__model_only_fact');
    expect(names).not.toContain('test__refresh_dashboard');
    await expect(agent.call('test__refresh_dashboard', {})).rejects.toThrow(/refresh_dashboard/);
  } finally {
    agent.close();
  }
});

it('mcpx tools marks a tool for its App alone, and only that one', async () => {
  const dir = await tempDir('mcpx-app-only-');
  cleanup = () => dir.remove();
  const configFile = join(dir.path, 'mcp.json');
  await writeFile(
    configFile,
    JSON.stringify({
      mcpServers: {
        test: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_APPS: '1' } },
      },
    }),
  );
  const run = await runCli(['--config', configFile, 'tools', 'test'], {
    cwd: dir.path,
    home: join(dir.path, 'home'),
  });
  expect(run.code, run.stderr).toBe(0);
  const line = (name: string) => run.stdout.split('\n').find((l) => l.startsWith(`  ${name}(`));
  expect(line('refresh_dashboard')).toBe(
    "  refresh_dashboard()  [app only] The dashboard's refresh button: for the app alone, hidden from models.",
  );
  expect(line('show_dashboard')).not.toContain('[app only]');
  expect(line('model_only_fact')).not.toContain('[app only]');

  const help = await runCli(['--config', configFile, 'tools', 'test.refresh_dashboard'], {
    cwd: dir.path,
    home: join(dir.path, 'home'),
  });
  expect(help.code, help.stderr).toBe(0);
  expect(help.stdout).toContain(
    '[app only] For its MCP App (ui://dashboard/view.html) to call: no model is offered it.',
  );
});
