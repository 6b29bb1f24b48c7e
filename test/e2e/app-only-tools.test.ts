/**
 * A tool for its MCP App alone (`_meta.ui.visibility: ["app"]`, the test server's
 * `refresh_dashboard`) is never offered to a model: a library program's `agentTools()` (what
 * chat gives its model too) lists the App's other tools but not that one, and cannot call it.
 */

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createHost } from '../../src/host/index.js';
import { tempDir, testServerPath } from '../helpers/cli.js';

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
