/**
 * Resources and prompts in `mcpx chat`, through the built CLI and a scripted model: `/attach`
 * and `/prompt` put content into the conversation the model is sent, `--resources` offers the
 * resource tool pair, and on a terminal both commands are in /help and complete with Tab.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeModelServer,
  type ScriptedReply,
  startFakeModelServer,
} from '../../src/testing/fake-model-server.js';
import { runChatWithModel } from '../helpers/chat.js';
import { repoRoot, tempDir } from '../helpers/cli.js';
import { type PtyRun, runInPty } from '../helpers/pty.js';

interface SentMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_call_id?: string;
}
type Sent = { readonly messages: SentMessage[]; readonly tools?: { function: { name: string } }[] };

let dir: { path: string; remove: () => Promise<void> };
let mediaConfig: string;
const models: FakeModelServer[] = [];
const terms: PtyRun[] = [];
beforeAll(async () => {
  dir = await tempDir('mcpx-chat-context-');
  mediaConfig = join(dir.path, 'media.json');
  await writeFile(
    mediaConfig,
    JSON.stringify({
      mcpServers: {
        backend: { command: process.execPath, args: [join(repoRoot, 'dist/testing/conformance-backend.js')] },
        hostile: { command: process.execPath, args: [join(repoRoot, 'dist/testing/hostile-server.js')] },
      },
    }),
  );
});
afterAll(() => dir.remove());
afterEach(async () => {
  for (const term of terms.splice(0)) {
    term.kill();
    await term.exited;
  }
  await Promise.all(models.splice(0).map((m) => m.close()));
});

async function chat(
  script: ScriptedReply[],
  input: string,
  flags: string[] = [],
  globalFlags: string[] = [],
) {
  const run = await runChatWithModel(
    script,
    { cwd: dir.path, home: dir.path, args: flags, globalArgs: globalFlags, input },
    models,
  );
  return { ...run, sent: run.model.requests as unknown as Sent[] };
}

const text = (message: SentMessage | undefined) =>
  typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content);

describe('/attach in mcpx chat', () => {
  it("puts a resource into the conversation: the model's next request holds it, before the question", async () => {
    const run = await chat(
      [{ text: 'It says it is a test server.' }],
      '/attach demo test://readme.txt\nwhat does the readme say?\n',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('It says it is a test server.\n');
    expect(run.stderr).toMatch(
      /attached test:\/\/readme\.txt from demo \(\d+ characters\): the model sees it with your next message/,
    );
    expect(run.sent).toHaveLength(1);
    const messages = run.sent[0]?.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'user']);
    expect(text(messages[1])).toContain(
      "Attached by the user: test://readme.txt from the MCP server 'demo'.",
    );
    expect(text(messages[1])).toContain(
      "[resource test://readme.txt (text/plain)]\nmcpx-test-server is mcpx's demo and test server.",
    );
    expect(text(messages[2])).toBe('what does the readme say?');
  });

  it('says clearly what went wrong, and the chat goes on', async () => {
    const run = await chat(
      [{ text: 'Still here.' }],
      '/attach demo test://nope\n/attach dmeo test://readme.txt\n/attach demo\nhello\n',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("error: 'demo' rejected resources/read test://nope: Resource not found");
    expect(run.stderr).toContain("error: no server named 'dmeo' — did you mean 'demo'?");
    expect(run.stderr).toContain(
      'error: /attach takes a server and a resource URI — e.g. /attach demo test://readme.txt',
    );
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(run.stdout).toBe('Still here.\n');
    expect(run.sent[0]?.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('sends an image resource as an image, and a hostile resource cleaned', async () => {
    const run = await chat(
      [{ text: 'A tiny image.' }],
      '/attach backend test://static-binary\n/attach hostile test://poison.txt\nwhat are these?\n',
      [],
      ['--config', mediaConfig],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/attached test:\/\/static-binary from backend \(\d+ characters, 1 image \(/);
    const [, image, hostile] = run.sent[0]?.messages ?? [];
    expect(image?.content).toEqual([
      { type: 'text', text: "Attached by the user: test://static-binary from the MCP server 'backend'." },
      { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) } },
    ]);
    expect(text(hostile)).toContain('resource textevilzwtagredc1');
    expect(text(hostile)).not.toMatch(/[\u001b\u009b\u200b\u202e]|\u{E0041}/u);
    // On screen too, nothing the server sent is run by the terminal.
    expect(run.stderr).not.toMatch(/[\u001b\u009b]/);
  });
});

describe('/prompt in mcpx chat', () => {
  it("puts the prompt's messages into the conversation and the model answers it at once", async () => {
    const run = await chat(
      [{ text: 'Hello, Ada!' }, { text: 'You are welcome.' }],
      '/prompt demo greeting name="Ada Lovelace"\nthanks\n',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Hello, Ada!\nYou are welcome.\n');
    expect(run.stderr).toMatch(
      /prompt greeting from demo: 1 message \(user; \d+ characters\) added; the model answers it now/,
    );
    expect(run.sent[0]?.messages).toEqual([
      expect.objectContaining({ role: 'system' }),
      { role: 'user', content: 'Please write a short, friendly greeting for Ada Lovelace.' },
    ]);
    expect(run.sent[1]?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('names the missing argument or the unknown prompt, and the chat goes on', async () => {
    const run = await chat(
      [{ text: 'Fine.' }],
      '/prompt demo code_review language=go\n/prompt demo greting\n/prompt nosuch greeting\nok\n',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "error: prompt 'code_review' of 'demo' needs code — give code (The code to review)",
    );
    expect(run.stderr).toContain("error: 'demo' has no prompt named 'greting' — did you mean 'greeting'?");
    expect(run.stderr).toMatch(/error: no server named 'nosuch'/);
    expect(run.stdout).toBe('Fine.\n');
    expect(run.sent).toHaveLength(1);
    expect(run.sent[0]?.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('keeps a prompt image as an image part', async () => {
    const run = await chat(
      [{ text: 'I see it.' }],
      '/prompt backend test_prompt_with_image\n',
      [],
      ['--config', mediaConfig],
    );
    expect(run.code, run.stderr).toBe(0);
    const [, image, words] = run.sent[0]?.messages ?? [];
    expect(image?.content).toEqual([
      { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) } },
    ]);
    expect(words).toEqual({ role: 'user', content: 'Please analyze the image above.' });
  });
});

describe('mcpx chat --resources', () => {
  it('offers list_resources and read_resource only with the flag, and a read reaches the model', async () => {
    const without = await chat([{ text: 'ok' }], 'hi\n', ['--permission', 'yolo']);
    const offered = (run: { sent: Sent[] }) => (run.sent[0]?.tools ?? []).map((t) => t.function.name);
    expect(offered(without)).toContain('mcp_demo_echo');
    expect(offered(without)).not.toContain('read_resource');
    expect(offered(without)).not.toContain('list_resources');

    const run = await chat(
      [
        { toolCalls: [{ name: 'list_resources', arguments: {} }] },
        { toolCalls: [{ name: 'read_resource', arguments: { server: 'demo', uri: 'test://users/3' } }] },
        { text: 'User 3 is Grace Hopper.' },
      ],
      'who is user 3?\n',
      ['--permission', 'yolo', '--resources'],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(offered(run)).toEqual(
      expect.arrayContaining(['mcp_demo_echo', 'list_resources', 'read_resource']),
    );
    const tools = (run.sent[2]?.messages ?? []).filter((m) => m.role === 'tool').map(text);
    expect(tools[0]).toContain('demo  template test://users/{id}  User by id (application/json)');
    expect(tools[1]).toBe('{"id":"3","name":"Grace Hopper","email":"grace@example.com"}');
    expect(run.stdout).toBe('User 3 is Grace Hopper.\n');
  });

  it('reads nothing when nobody can allow it (trusted, no terminal), and the model is told', async () => {
    const run = await chat(
      [
        { toolCalls: [{ name: 'read_resource', arguments: { server: 'demo', uri: 'test://readme.txt' } }] },
        { text: 'I was not allowed.' },
      ],
      'read the readme\n',
      ['--resources'],
    );
    expect(run.code, run.stderr).toBe(0);
    const tool = run.sent[1]?.messages.find((m) => m.role === 'tool');
    expect(text(tool)).toMatch(
      /^error \[PERMISSION_DENIED\]: calling 'demo' tool 'resources\/read' was denied/,
    );
    expect(text(tool)).not.toContain('mcpx-test-server is');
  });
});

describe('/attach and /prompt on a terminal', () => {
  it('are in /help, complete with Tab, and put their content into the conversation', {
    timeout: 90_000,
  }, async () => {
    const home = join(dir.path, 'pty-home');
    await mkdir(join(home, '.mcpx'), { recursive: true });
    const model = await startFakeModelServer([{ text: 'Hi Ada!' }, { text: 'Noted the readme.' }]);
    models.push(model);
    const term = runInPty(['chat', '--base-url', model.baseUrl, '--model', 'fake', '--permission', 'yolo'], {
      cwd: dir.path,
      home,
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    terms.push(term);
    await term.waitFor('mcpx> ');
    await term.type('/help\r');
    await term.waitFor(/\/attach <server> <uri>\s+put a resource into the conversation/);
    await term.waitFor(/\/prompt <server> <name> \[key=value …\]\n\s+put a prompt's messages/);
    await term.waitFor('mcpx> ');
    // Tab completes the server, then the prompt name, then the argument key (readline writes
    // only what it adds to the line).
    await term.type('/prompt de', '\t');
    await term.waitFor('mo');
    await term.type(' gree', '\t');
    await term.waitFor('ting');
    // greeting takes name and formal: one letter picks the key.
    await term.type(' n', '\t');
    await term.waitFor('ame=');
    await term.type('Ada\r');
    await term.waitFor('prompt greeting from demo: 1 message');
    await term.waitFor('Hi Ada!');
    await term.waitFor('mcpx> ');
    await term.type('/attach demo test://re', '\t');
    await term.waitFor('adme.txt');
    await term.type('\r');
    await term.waitFor('attached test://readme.txt from demo');
    await term.waitFor('mcpx> ');
    await term.type('noted?\r');
    await term.waitFor('Noted the readme.');
    await term.waitFor('mcpx> ');
    await term.type('/exit\r');
    expect(await term.exited).toBe(0);
    const last = model.requests.at(-1) as unknown as Sent;
    expect(last.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'user']);
    expect(text(last.messages[1])).toBe('Please write a short, friendly greeting for Ada.');
    expect(text(last.messages[3])).toContain('[resource test://readme.txt (text/plain)]');
  });
});
