/**
 * Issue 38, item 3: chat and agents at any number of tools. Above 40 tools chat offers the model
 * `search_tools` and `call_tool`; OpenAI-style models send their arguments as a JSON string, which
 * both meta-tools must read (they read nothing before: "no tool matches ''"). Chat says it
 * switched, and a profile hides tools from the search as it does from the list.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../../src/testing/fake-model-server.js';
import { runChatWithModel } from '../helpers/chat.js';
import { tempDir, testServerPath } from '../helpers/cli.js';

const slow = { timeout: 60_000 };
/** The test server with 60 more echoing tools (`tool_0001`…): past the threshold of 40. */
const big = { command: process.execPath, args: [testServerPath], env: { MCP_TOOL_COUNT: '60' } };
const config = {
  permission: 'yolo',
  mcpServers: { big },
  profiles: { narrow: { tools: ['big.tool_*', 'big.add'] } },
};

let dir: { path: string; remove: () => Promise<void> };
let count = 0;
const models: FakeModelServer[] = [];
beforeAll(async () => {
  dir = await tempDir('mcpx-chat-search-');
});
afterAll(() => dir.remove());
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

async function workspace() {
  count += 1;
  const home = join(dir.path, `w${count}`);
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await writeFile(join(home, '.mcpx', 'mcp.json'), JSON.stringify(config));
  return home;
}

interface ModelRequest {
  readonly tools: { function: { name: string } }[];
  readonly messages: { role: string; content: string }[];
}

/** The text of every tool message the model was sent in `request`. */
const toolMessages = (request: unknown) =>
  (request as ModelRequest).messages.filter((m) => m.role === 'tool').map((m) => m.content);

describe('mcpx chat with more tools than fit in a prompt', () => {
  it(
    'search_tools finds and call_tool calls with the JSON-string arguments an OpenAI model sends',
    slow,
    async () => {
      const home = await workspace();
      const run = await runChatWithModel(
        [
          { toolCalls: [{ name: 'search_tools', arguments: '{"query": "add two numbers"}' }] },
          {
            toolCalls: [
              { name: 'call_tool', arguments: '{"name": "mcp_big_add", "arguments": {"a": 2, "b": 40}}' },
            ],
          },
          { text: 'It is 42.' },
        ],
        { cwd: home, home, args: ['--once', 'what is 2 + 40?'] },
        models,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('It is 42.\n');
      const offered = (run.model.requests[0] as unknown as ModelRequest).tools.map((t) => t.function.name);
      expect(offered).toEqual(['search_tools', 'call_tool']);
      expect(run.stderr).toMatch(
        /\b7\d tools, more than 40: the model finds them with search_tools and calls them with call_tool/,
      );
      const [found] = toolMessages(run.model.requests[1]);
      expect(JSON.parse(found ?? '[]')[0]).toMatchObject({ name: 'mcp_big_add', server: 'big' });
      expect(toolMessages(run.model.requests[2])).toContain('42');
    },
  );

  it('a profile hides tools from search_tools and call_tool refuses them by name', slow, async () => {
    const home = await workspace();
    const run = await runChatWithModel(
      [
        { toolCalls: [{ name: 'search_tools', arguments: '{"query": "echo a message back", "limit": 25}' }] },
        {
          toolCalls: [
            { name: 'call_tool', arguments: '{"name": "mcp_big_echo", "arguments": {"message": "x"}}' },
          ],
        },
        { text: 'Not in this profile.' },
      ],
      { cwd: home, home, args: ['--once', 'echo x', '--profile', 'narrow'] },
      models,
    );
    expect(run.code, run.stderr).toBe(0);
    const [found] = toolMessages(run.model.requests[1]);
    const names = (JSON.parse(found ?? '[]') as { name: string }[]).map((t) => t.name);
    // The profile's tools are found (tool_0001… echo too), never the hidden echo itself.
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => n.startsWith('mcp_big_tool_') || n === 'mcp_big_add')).toBe(true);
    expect(toolMessages(run.model.requests[2]).join('\n')).toMatch(
      /PERMISSION_DENIED.*'echo' of 'big' is not in profile 'narrow'/,
    );
  });

  it('a call_tool without a name is told what to send, not "no tool named \'\'"', slow, async () => {
    const home = await workspace();
    const run = await runChatWithModel(
      [{ toolCalls: [{ name: 'call_tool', arguments: '{"arguments": {}}' }] }, { text: 'Sorry.' }],
      { cwd: home, home, args: ['--once', 'do it'] },
      models,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(toolMessages(run.model.requests[1]).join('\n')).toMatch(
      /INVALID_ARGUMENTS.*call_tool needs the name of a tool/,
    );
  });
});
