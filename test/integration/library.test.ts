/** The README's library example, run against the built-in demo server. */
import { afterEach, expect, it } from 'vitest';
import { scriptedApprover } from '../../src/index.js';
import {
  createAgentTools,
  createPermissionGuard,
  defaultConnector,
  loadConfig,
  ServerRegistry,
} from '../../src/low-level.js';
import { runOpenAIChatToolCall, toOpenAIChatTools } from '../../src/tools/providers/openai.js';
import { tempDir } from '../helpers/cli.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

it('loads the config, connects every server, and gives an agent guarded tools in OpenAI format', async () => {
  const dir = await tempDir('mcpx-library-');
  cleanups.push(dir.remove);
  const config = await loadConfig({ cwd: dir.path, env: {}, home: dir.path });
  const registry = new ServerRegistry(config.servers, {
    connector: defaultConnector({ hostEnv: process.env }),
  });
  cleanups.push(() => registry.close());
  await registry.connectAll();
  const approver = scriptedApprover({ connect: ['allow-all'] });
  const tools = await createAgentTools(registry, {
    guard: createPermissionGuard({ level: 'trusted', approver }),
  });
  expect(toOpenAIChatTools(tools.tools).map((t) => t.function.name)).toContain('mcp_demo_echo');
  const message = await runOpenAIChatToolCall(tools, {
    id: 'c1',
    type: 'function',
    function: { name: 'mcp_demo_echo', arguments: '{"message":"from the library"}' },
  });
  expect(message.content).toBe('from the library');
  expect(approver.asked.map((a) => a.kind)).toEqual(['connect']);
});
