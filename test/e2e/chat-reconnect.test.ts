/** `mcpx chat` with a server that crashes: the built CLI reconnects it lazily instead of dropping its tools. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeModelServer } from '../../src/testing/fake-model-server.js';
import { runChat } from '../helpers/chat.js';
import { tempDir, testServerPath } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('mcpx-chat-reconnect-');
});
afterAll(() => dir.remove());

type Request = { tools?: { function: { name: string } }[]; messages: { role: string; content: string }[] };

it('mcpx chat: a server that crashed mid-call keeps its tools and is started again for the next call', async () => {
  const config = join(dir.path, 'flaky.json');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        flaky: {
          command: process.execPath,
          args: [testServerPath],
          env: { MCPX_TEST_FAULT: 'crash-mid-call' },
        },
      },
    }),
  );
  const model = await startFakeModelServer([
    { toolCalls: [{ name: 'mcp_flaky_echo', arguments: { message: 'one' } }] },
    { text: 'It crashed.' },
    { toolCalls: [{ name: 'mcp_flaky_echo', arguments: { message: 'two' } }] },
    { text: 'It crashed again.' },
  ]);
  try {
    const { code, stdout, stderr } = await runChat({
      baseUrl: model.baseUrl,
      cwd: dir.path,
      home: dir.path,
      globalArgs: ['--config', config],
      args: ['--permission', 'yolo'],
      input: 'echo one\necho two\n',
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('It crashed.\nIt crashed again.\n');
    const requests = model.requests as Request[];
    expect(requests).toHaveLength(4);
    // The second turn still offers the crashed server's tool…
    expect(requests[2]?.tools?.map((t) => t.function.name)).toContain('mcp_flaky_echo');
    // …and calling it reaches a freshly started server (which crashes again), not UNKNOWN_TOOL.
    const toolMessages = requests[3]?.messages.filter((m) => m.role === 'tool') ?? [];
    expect(toolMessages).toHaveLength(2);
    for (const m of toolMessages) expect(m.content).toMatch(/SERVER_CRASHED/);
  } finally {
    await model.close();
  }
}, 60_000);
