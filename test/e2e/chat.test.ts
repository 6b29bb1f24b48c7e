/** `mcpx chat` end to end: the built CLI, a scripted OpenAI-compatible model, the demo server. */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer, ScriptedReply } from '../../src/testing/fake-model-server.js';
import { runChatWithModel } from '../helpers/chat.js';
import { tempDir } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
const models: FakeModelServer[] = [];
beforeAll(async () => {
  dir = await tempDir('mcpx-chat-');
});
afterAll(() => dir.remove());
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

async function chat(
  script: ScriptedReply[],
  input: string,
  flags: string[] = [],
  globalFlags: string[] = [],
  inputDelayMs = 0,
) {
  return runChatWithModel(
    script,
    { cwd: dir.path, home: dir.path, args: flags, globalArgs: globalFlags, input, inputDelayMs },
    models,
  );
}

describe('mcpx chat', () => {
  it('answers each line, calling the tools the model asks for (--permission yolo)', async () => {
    const run = await chat(
      [
        { toolCalls: [{ name: 'mcp_demo_add', arguments: { a: 20, b: 22 } }] },
        { text: 'The answer is 42.' },
        { text: 'Goodbye.' },
      ],
      'what is 20 + 22?\nthanks\n',
      ['--permission', 'yolo'],
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('The answer is 42.\nGoodbye.\n');
    expect(run.stderr).toContain('→ mcp_demo_add {"a":20,"b":22}');
    expect(run.stderr).toContain('← mcp_demo_add: 42');
    expect(run.model.requests).toHaveLength(3);
  });

  it('denies tool calls when nobody can be asked (trusted, no terminal), and the model is told', async () => {
    const run = await chat(
      [
        // Not `echo`: a read-only tool of a believed server runs unasked (issue 25).
        { toolCalls: [{ name: 'mcp_demo_touch_resource', arguments: {} }] },
        { text: 'I was not allowed to use it.' },
      ],
      'touch it\n',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('I was not allowed to use it.\n');
    const toolMessage = (
      run.model.requests[1] as { messages: { role: string; content: string }[] }
    ).messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toMatch(/^error \[PERMISSION_DENIED\].*no terminal to ask on/);
  });

  it('sandboxed: the model gets no MCP tools at all', async () => {
    const run = await chat([{ text: 'No tools here.' }], 'hello\n', ['--permission', 'sandboxed']);
    expect(run.stdout).toBe('No tools here.\n');
    expect((run.model.requests[0] as { tools?: unknown[] }).tools).toBeUndefined();
  });

  it('refuses an unknown permission level', async () => {
    const run = await chat([], '', ['--permission', 'root']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--permission must be one of yolo, trusted, sandboxed/);
  });
});

describe('mcpx chat and what servers ask of the host', () => {
  it('refuses a server’s sampling request when nobody can approve it', async () => {
    const { writeFile } = await import('node:fs/promises');
    const { everythingPath } = await import('../helpers/servers.js');
    const config = join(dir.path, 'everything.json');
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everythingPath] } } }),
    );
    const run = await chat(
      [
        {
          toolCalls: [
            { name: 'mcp_everything_trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 10 } },
          ],
        },
        { text: 'The server could not sample.' },
      ],
      'sample something\n',
      ['--permission', 'yolo'],
      ['--config', config],
      2_000,
    );
    const offered = (run.model.requests[0] as { tools: { function: { name: string } }[] }).tools.map(
      (t) => t.function.name,
    );
    expect(offered, run.stderr).toContain('mcp_everything_trigger-sampling-request');
    expect(run.stdout, run.stderr).toBe('The server could not sample.\n');
    const toolMessage = (
      run.model.requests[1] as { messages: { role: string; content: string }[] }
    ).messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content, run.stderr).toMatch(/nobody could approve the sampling request/);
    // The model server saw only the two chat requests: the server's sampling never reached it.
    expect(run.model.requests).toHaveLength(2);
  });
});

describe('mcpx chat roots', () => {
  it('offers the config’s roots to the servers', async () => {
    const { writeFile } = await import('node:fs/promises');
    const { everythingPath } = await import('../helpers/servers.js');
    const config = join(dir.path, 'roots.json');
    await writeFile(
      config,
      JSON.stringify({
        roots: ['./workspace'],
        mcpServers: { everything: { command: process.execPath, args: [everythingPath] } },
      }),
    );
    const run = await chat(
      [{ toolCalls: [{ name: 'mcp_everything_get-roots-list', arguments: {} }] }, { text: 'Listed.' }],
      'which roots?\n',
      ['--permission', 'yolo'],
      ['--config', config],
      2_000,
    );
    expect(run.stdout, run.stderr).toBe('Listed.\n');
    const toolMessage = (
      run.model.requests[1] as { messages: { role: string; content: string }[] }
    ).messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toContain(`file://${join(dir.path, 'workspace')}`);
  });
});

describe('mcpx chat --once', () => {
  it('asks one question, runs the tool the model calls, prints the final answer and exits', async () => {
    const run = await chat(
      [
        { toolCalls: [{ name: 'mcp_demo_echo', arguments: { message: 'really ran' } }] },
        { text: 'The tool said: really ran' },
      ],
      '',
      ['--permission', 'yolo', '--once', 'use the echo tool'],
    );
    expect(run).toMatchObject({ code: 0, stdout: 'The tool said: really ran\n' });
    const sent = run.model.requests[1] as { messages: { role: string; content: string }[] };
    expect(sent.messages.find((m) => m.role === 'user')?.content).toBe('use the echo tool');
    expect(sent.messages.find((m) => m.role === 'tool')?.content).toBe('really ran');
  });

  it('exits with the model failure when the model cannot be reached', async () => {
    // Three failures: the first try and the client's two retries.
    const run = await chat([{ status: 500 }, { status: 500 }, { status: 500 }], '', ['--once', 'hi']);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/answered HTTP 500/);
  });
});

describe('mcpx chat permission from the config', () => {
  it('uses the config’s permission level when no flag is given', async () => {
    const { writeFile } = await import('node:fs/promises');
    const config = join(dir.path, 'yolo.json');
    await writeFile(config, JSON.stringify({ permission: 'yolo', mcpServers: {} }));
    const run = await chat(
      [
        { toolCalls: [{ name: 'mcp_demo_echo', arguments: { message: 'allowed by config' } }] },
        { text: 'ok' },
      ],
      '',
      ['--once', 'go'],
      ['--config', config],
    );
    expect(run).toMatchObject({ code: 0, stdout: 'ok\n' });
    expect(run.stderr).toContain('← mcp_demo_echo: allowed by config');
  });
});
