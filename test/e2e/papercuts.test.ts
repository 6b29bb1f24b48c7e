/**
 * Issue 13's day-one papercuts, each as a new user meets it: the built CLI, a real
 * pseudo-terminal where a person would be at one, and servers that take their time.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../../src/testing/fake-model-server.js';
import { MEDIA_BLOB, MEDIA_PNG, MEDIA_WAV } from '../../src/testing/media-tool.js';
import { repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';
import { everythingPath } from '../helpers/servers.js';

const KEY = { ctrlC: '\x03', enter: '\r' };
let dir: { path: string; remove: () => Promise<void> };
let count = 0;
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(async () => {
  dir = await tempDir('mcpx-papercuts-');
});
afterAll(() => dir.remove());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A fresh home (with an optional global config) and working folder (with an optional project `.mcp.json`). */
async function workspace(files: { global?: object; project?: object } = {}) {
  count += 1;
  const cwd = join(dir.path, `w${count}`, 'repo');
  const home = join(dir.path, `w${count}`, 'home');
  await mkdir(cwd, { recursive: true });
  await mkdir(join(home, '.mcpx'), { recursive: true });
  if (files.global) await writeFile(join(home, '.mcpx', 'mcp.json'), JSON.stringify(files.global, null, 2));
  if (files.project) await writeFile(join(cwd, '.mcp.json'), JSON.stringify(files.project, null, 2));
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, { cwd, home, env, timeoutMs: 30_000 });
  return { cwd, home, cli, globalFile: join(home, '.mcpx', 'mcp.json') };
}

const testServer = (...env: [string, string][]) => ({
  command: process.execPath,
  args: [testServerPath],
  ...(env.length ? { env: Object.fromEntries(env) } : {}),
});

interface ListRow {
  name: string;
  state: string;
  layer: string;
  file?: string;
}

describe('the built-in demo can be switched off', () => {
  it('"demo": {"enabled": false} at the top level: listed as disabled, where, and not started', async () => {
    const w = await workspace({ global: { demo: { enabled: false }, mcpServers: {} } });
    const list = await w.cli(['--json', 'list']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout) as ListRow[]).toEqual([
      expect.objectContaining({ name: 'demo', state: 'disabled', layer: 'global', file: w.globalFile }),
    ]);
    const tools = await w.cli(['tools', 'demo']);
    expect(tools.code).toBe(1);
    expect(tools.stderr).toContain("server 'demo' is disabled");
    expect(tools.stderr).toContain('~/.mcpx/mcp.json'); // the global file, under the home
  });

  it('mcpServers.demo.enabled = false turns the built-in off too; a wrong "demo" value is a config error', async () => {
    const w = await workspace({ global: { mcpServers: { demo: { enabled: false } } } });
    const list = await w.cli(['--json', 'list']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout) as ListRow[]).toEqual([
      expect.objectContaining({ name: 'demo', state: 'disabled', file: w.globalFile }),
    ]);
    const bad = await workspace({ global: { demo: { enabled: 'no' } } });
    const run = await bad.cli(['list']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('~/.mcpx/mcp.json:2');
    expect(run.stderr).toContain('"demo": {"enabled": false}');
  });

  it('a project entry {"enabled": false} switches off a global server of that name', async () => {
    const w = await workspace({
      global: { mcpServers: { mine: testServer() } },
      project: { mcpServers: { mine: { enabled: false } } },
    });
    const list = await w.cli(['--json', 'list']);
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as ListRow[];
    expect(rows.find((r) => r.name === 'mine')).toMatchObject({ state: 'disabled', layer: 'project' });
    expect(rows.find((r) => r.name === 'demo')).toMatchObject({ state: 'ready' });
  });
});

describe('mcpx chat and the built-in demo', () => {
  it('offers the model only the person’s own servers when they have some (list still shows demo)', async () => {
    const w = await workspace({ global: { mcpServers: { mine: testServer() } } });
    const model = await startFakeModelServer([{ text: 'hello' }]);
    cleanups.push(() => model.close());
    const run = await w.cli(
      ['chat', '--base-url', model.baseUrl, '--model', 'fake', '--permission', 'yolo', '--once', 'hi'],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(run).toMatchObject({ code: 0, stdout: 'hello\n' });
    const offered = JSON.stringify((model.requests[0] as { tools?: unknown }).tools ?? []);
    expect(offered).toContain('mcp_mine_echo');
    expect(offered).not.toContain('mcp_demo_');
    const list = await w.cli(['--json', 'list']);
    expect((JSON.parse(list.stdout) as ListRow[]).map((r) => r.name).sort()).toEqual(['demo', 'mine']);
  });
});

describe('mcpx chat and the built-in demo, when the only other server is not trusted', () => {
  it('still offers demo: an untrusted project server is not one of the person’s own', async () => {
    const w = await workspace({ project: { mcpServers: { repo: testServer() } } });
    const model = await startFakeModelServer([{ text: 'hello' }]);
    cleanups.push(() => model.close());
    const run = await w.cli(
      ['chat', '--base-url', model.baseUrl, '--model', 'fake', '--permission', 'yolo', '--once', 'hi'],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(run).toMatchObject({ code: 0, stdout: 'hello\n' });
    expect(run.stderr).toContain("skipped server 'repo'");
    const offered = JSON.stringify((model.requests[0] as { tools?: unknown }).tools ?? []);
    expect(offered).toContain('mcp_demo_echo');
    expect(offered).not.toContain('mcp_repo_');
  });
});

describe('Ctrl-C at a prompt exits 130', () => {
  it('at the trust prompt for a project .mcp.json', { timeout: 60_000 }, async () => {
    const w = await workspace({ project: { mcpServers: { repo: testServer() } } });
    const term = runInPty(['list'], { cwd: w.cwd, home: w.home });
    cleanups.push(() => term.kill());
    await term.waitFor('[y/N]');
    await term.type(KEY.ctrlC);
    expect(await term.exited).toBe(130);
    expect(term.text()).not.toMatch(/unexpected error/i);
    expect(term.text()).toContain('cancelled');
  });

  it('at the consent menu of mcpx chat', { timeout: 60_000 }, async () => {
    const w = await workspace({ global: { mcpServers: { mine: testServer() } } });
    const model = await startFakeModelServer([{ text: 'never asked' }]);
    cleanups.push(() => model.close());
    const term = runInPty(['chat', '--base-url', model.baseUrl, '--model', 'fake'], {
      cwd: w.cwd,
      home: w.home,
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    cleanups.push(() => term.kill());
    await term.waitFor("Connect to MCP server 'mine'?");
    await term.waitFor('Deny connection');
    await term.type(KEY.ctrlC);
    expect(await term.exited).toBe(130);
    expect(term.text()).not.toMatch(/unexpected error/i);
    expect(model.requests).toHaveLength(0);
  });

  it('at the approval menu of a tool call in mcpx chat: the turn is cancelled, the console goes on', {
    timeout: 60_000,
  }, async () => {
    const w = await workspace({ global: { mcpServers: { mine: testServer() } } });
    const model = await startFakeModelServer([
      // Not `echo`: a read-only tool of the user's own server runs unasked (issue 25).
      { toolCalls: [{ name: 'mcp_mine_touch_resource', arguments: {} }] },
      { text: 'never reached' },
    ]);
    cleanups.push(() => model.close());
    const term = runInPty(['chat', '--base-url', model.baseUrl, '--model', 'fake'], {
      cwd: w.cwd,
      home: w.home,
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    cleanups.push(() => term.kill());
    await term.waitFor('Require confirmation for each tool');
    await term.type('\x1b[B', KEY.enter);
    await term.waitFor('> ');
    await term.type('go', KEY.enter);
    await term.waitFor('Allow touch_resource?');
    await term.waitFor('Deny');
    // Chat is a console: Ctrl-C cancels the running turn and the prompt comes back.
    await term.type(KEY.ctrlC);
    await term.waitFor('> ');
    expect(term.text()).not.toMatch(/unexpected error/i);
    expect(model.requests).toHaveLength(1);
    await term.type('\x04');
    expect(await term.exited).toBe(0);
  });

  it('at a server’s sampling question in mcpx chat (server-everything): the turn is cancelled', {
    timeout: 60_000,
  }, async () => {
    const w = await workspace({
      global: { mcpServers: { everything: { command: process.execPath, args: [everythingPath] } } },
    });
    const model = await startFakeModelServer([
      {
        toolCalls: [
          { name: 'mcp_everything_trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 10 } },
        ],
      },
      { text: 'never reached' },
    ]);
    cleanups.push(() => model.close());
    const term = runInPty(['chat', '--base-url', model.baseUrl, '--model', 'fake', '--permission', 'yolo'], {
      cwd: w.cwd,
      home: w.home,
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    cleanups.push(() => term.kill());
    await term.waitFor('> ');
    // server-everything adds tools just after it connects: let it settle before the model lists them.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await term.type('sample', KEY.enter);
    await term.waitFor("Server 'everything' asks the model");
    await term.waitFor('Allow?');
    await term.type(KEY.ctrlC);
    await term.waitFor('> ');
    expect(term.text()).not.toMatch(/unexpected error/i);
    // Only the chat's first request: the sampling never reached the model, nor did a second turn.
    expect(model.requests).toHaveLength(1);
    await term.type('\x04');
    expect(await term.exited).toBe(0);
  });

  it('at the chat line prompt: the line is dropped, Ctrl-D leaves', { timeout: 60_000 }, async () => {
    const w = await workspace({ global: { mcpServers: {} } });
    const model = await startFakeModelServer([]);
    cleanups.push(() => model.close());
    const term = runInPty(['chat', '--base-url', model.baseUrl, '--model', 'fake', '--permission', 'yolo'], {
      cwd: w.cwd,
      home: w.home,
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    cleanups.push(() => term.kill());
    await term.waitFor('> ');
    // At the prompt Ctrl-C only drops the line, as in a shell; Ctrl-D leaves.
    await term.type(KEY.ctrlC);
    await term.waitFor('(Ctrl-D or /exit to leave)');
    await term.type('\x04');
    expect(await term.exited).toBe(0);
  });
});

describe('--stdio takes --env, --cwd and --name', () => {
  it('runs a slow-starting server in the given directory, with the given variables, under the given name', {
    timeout: 60_000,
  }, async () => {
    const w = await workspace();
    // A relative script path only resolves in --cwd; the slow start comes from --env.
    const run = await w.cli([
      '--stdio',
      'node test-server.js',
      '--cwd',
      join(repoRoot, 'dist', 'testing'),
      '--env',
      'MCPX_TEST_FAULT=slow-start',
      '--env',
      'MCPX_TEST_SLOW_START_MS=1500',
      '--env',
      'GREETING=a=b c',
      '--name',
      'slowpoke',
      'call',
      'slowpoke.env',
      'name=GREETING',
    ]);
    expect(run.stderr).toBe('');
    expect(run).toMatchObject({ code: 0, stdout: 'a=b c\n' });
    const list = await w.cli(['--json', '--stdio', `node ${testServerPath}`, '--name', 'mine', 'list']);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'mine', state: 'ready' })]);
  });

  it('says what is wrong with each flag, and how to write it', async () => {
    const w = await workspace();
    const cases: [string[], string][] = [
      [['--env', 'A=1', 'list'], '--env goes with --stdio'],
      [['--stdio', 'node x.js', '--env', 'NOEQUALS', 'list'], '--env takes KEY=VALUE'],
      [['--stdio', 'node x.js', '--cwd', join(w.cwd, 'missing'), 'list'], 'is not a directory'],
      [['--stdio', 'node x.js', '--name', 'a.b', 'list'], "--name 'a.b' may hold only"],
    ];
    for (const [args, message] of cases) {
      const run = await w.cli(args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain('e.g.');
    }
  });
});

describe('untrusted project servers in list', () => {
  it('show as untrusted in list and list --json, are not started, and config trust --yes asks nothing', {
    timeout: 60_000,
  }, async () => {
    const w = await workspace();
    const starts = join(w.cwd, 'starts.log');
    await writeFile(
      join(w.cwd, '.mcp.json'),
      JSON.stringify({ mcpServers: { repo: testServer(['MCPX_TEST_START_LOG', starts]) } }, null, 2),
    );
    const projectFile = join(w.cwd, '.mcp.json');
    const table = await w.cli(['list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^repo\s+untrusted\s+-\s+-\s+\S+\.mcp\.json \(project\)$/m);
    expect(table.stderr).toContain("skipped server 'repo'");
    const json = await w.cli(['--json', 'list']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toContainEqual(
      expect.objectContaining({ name: 'repo', state: 'untrusted', layer: 'project', file: projectFile }),
    );
    expect(existsSync(starts)).toBe(false);

    const trust = await w.cli(['config', 'trust', '--yes']);
    expect(trust.code).toBe(0);
    expect(trust.stderr).toContain("defines server 'repo'");
    expect(trust.stderr + trust.stdout).not.toContain('?');
    expect(trust.stdout).toBe('approved 1 of 1 (1 server, 0 settings files)\n');
    const after = await w.cli(['--json', 'list']);
    expect(JSON.parse(after.stdout)).toContainEqual(
      expect.objectContaining({ name: 'repo', state: 'ready' }),
    );
    expect(existsSync(starts)).toBe(true);
  });
});

describe('mcpx chat --once --json', () => {
  it('prints one JSON object: the answer, every tool call with its result, and the servers that failed', {
    timeout: 60_000,
  }, async () => {
    const w = await workspace({
      global: {
        mcpServers: {
          mine: testServer(['MCPX_TEST_FAULT', 'slow-start'], ['MCPX_TEST_SLOW_START_MS', '1000']),
          // Crashes at start, after complaining on stderr.
          broken: { command: process.execPath, args: ['-e', 'console.error("no licence"); process.exit(3)'] },
        },
      },
    });
    const model = await startFakeModelServer([
      { toolCalls: [{ name: 'mcp_mine_slow_operation', arguments: { steps: 3, delay_ms: 200 } }] },
      { toolCalls: [{ name: 'mcp_mine_fail', arguments: { message: 'no \u001b[31mred' } }] },
      { text: 'done: 3 steps, one failure' },
    ]);
    cleanups.push(() => model.close());
    const run = await w.cli(
      [
        'chat',
        '--base-url',
        model.baseUrl,
        '--model',
        'fake',
        '--permission',
        'yolo',
        '--once',
        'go',
        '--json',
      ],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      model: 'fake',
      answer: 'done: 3 steps, one failure',
      toolCalls: [
        {
          name: 'mcp_mine_slow_operation',
          arguments: { steps: 3, delay_ms: 200 },
          result: 'completed 3 steps',
          isError: false,
        },
        {
          name: 'mcp_mine_fail',
          arguments: { message: 'no \u001b[31mred' },
          result: expect.any(String),
          isError: true,
        },
      ],
      errors: [expect.objectContaining({ code: 'SERVER_CRASHED', server: 'broken' })],
    });
  });

  it('still prints the object, with answer null and the error, when the model cannot be reached', {
    timeout: 60_000,
  }, async () => {
    const w = await workspace({ global: { mcpServers: {} } });
    const model = await startFakeModelServer([{ status: 500 }, { status: 500 }, { status: 500 }]);
    cleanups.push(() => model.close());
    const run = await w.cli(
      ['--json', 'chat', '--base-url', model.baseUrl, '--model', 'fake', '--once', 'hi'],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(run.code).toBe(4);
    const out = JSON.parse(run.stdout) as { answer: unknown; errors: { message: string }[] };
    expect(out.answer).toBeNull();
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]?.message).toMatch(/HTTP 500/);
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { message: out.errors[0]?.message } });
  });
});

describe('mcpx chat without OPENAI_API_KEY', () => {
  it('stops before starting any server or sending any request when no --base-url is given', async () => {
    const w = await workspace();
    const starts = join(w.cwd, 'starts.log');
    await writeFile(
      w.globalFile,
      JSON.stringify({ mcpServers: { mine: testServer(['MCPX_TEST_START_LOG', starts]) } }),
    );
    const run = await w.cli(['chat', '--once', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('OPENAI_API_KEY is not set');
    expect(run.stderr).toContain('export OPENAI_API_KEY=');
    expect(run.stderr).toContain('--base-url');
    expect(existsSync(starts)).toBe(false);
    const json = await w.cli(['--json', 'chat', '--once', 'hi']);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'MODEL_KEY_MISSING' } });
  });

  it('needs no key with --base-url (a local model)', async () => {
    const w = await workspace({ global: { mcpServers: {} } });
    const model = await startFakeModelServer([{ text: 'local answer' }]);
    cleanups.push(() => model.close());
    const run = await w.cli(['chat', '--base-url', model.baseUrl, '--model', 'local', '--once', 'hi']);
    expect(run).toMatchObject({ code: 0, stdout: 'local answer\n' });
  });
});

describe('call --save DIR', () => {
  const media = ['--stdio', `node ${testServerPath}`, '--env', 'MCPX_TEST_MEDIA=1', '--name', 't'];

  it('writes image, audio and blob to files it names itself, never overwriting, and says where each went', {
    timeout: 60_000,
  }, async () => {
    const w = await workspace();
    const out = join(w.cwd, 'out');
    const first = await w.cli([...media, 'call', 't.media', '--save', 'out']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('here is your media');
    expect(await readFile(join(out, 'media-2.png'))).toEqual(MEDIA_PNG);
    expect(await readFile(join(out, 'media-3.wav'))).toEqual(MEDIA_WAV);
    // The blob's URI and MIME type aim outside the folder and at the terminal: neither is used.
    expect(await readFile(join(out, 'media-4.bin'))).toEqual(MEDIA_BLOB);
    expect(first.stderr).toContain(
      `saved image image/png (${MEDIA_PNG.length} bytes) to ${join(out, 'media-2.png')}`,
    );
    expect(first.stderr).toContain(
      `saved audio audio/wav (${MEDIA_WAV.length} bytes) to ${join(out, 'media-3.wav')}`,
    );
    expect(first.stderr).toContain(`to ${join(out, 'media-4.bin')}`);
    expect(first.stderr).not.toContain('\u001b');

    const again = await w.cli([...media, 'call', 't.media', '--save', out]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`to ${join(out, 'media-2-1.png')}`);
    expect((await readdir(out)).sort()).toEqual(
      ['media-2.png', 'media-2-1.png', 'media-3.wav', 'media-3-1.wav', 'media-4.bin', 'media-4-1.bin'].sort(),
    );
    expect(await readFile(join(out, 'media-2.png'))).toEqual(MEDIA_PNG);
    expect(await readdir(w.cwd)).toEqual(['out']);
  });

  it('saves server-everything’s image and embedded blob; a file in the way is an error', {
    timeout: 60_000,
  }, async () => {
    const w = await workspace();
    const ev = ['--stdio', `node ${everythingPath}`, '--name', 'ev'];
    const image = await w.cli([...ev, 'call', 'ev.get-tiny-image', '--save', 'shots']);
    expect(image.code).toBe(0);
    const png = await readFile(join(w.cwd, 'shots', (await readdir(join(w.cwd, 'shots')))[0] ?? ''));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const blob = await w.cli([
      ...ev,
      'call',
      'ev.get-resource-reference',
      'resourceType=Blob',
      'resourceId=3',
      '--save',
      'blobs',
    ]);
    expect(blob.code).toBe(0);
    expect(blob.stderr).toMatch(
      /saved resource text\/plain \(\d+ bytes\) to .*get-resource-reference-2\.txt/,
    );
    const text = await readFile(join(w.cwd, 'blobs', 'get-resource-reference-2.txt'), 'utf8');
    expect(text).toMatch(/^Resource 3: This is a base64 blob/);
    await writeFile(join(w.cwd, 'taken'), 'x');
    const blocked = await w.cli([...ev, 'call', 'ev.get-tiny-image', '--save', 'taken']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain('is not a directory');
  });
});

describe('read --raw', () => {
  const ev = ['--stdio', `node ${everythingPath}`, '--name', 'ev'];

  it('writes a blob resource decoded and a text resource as is, nothing added', {
    timeout: 60_000,
  }, async () => {
    const w = await workspace();
    const blob = await w.cli([...ev, 'read', 'ev', 'demo://resource/dynamic/blob/7', '--raw']);
    expect(blob.code).toBe(0);
    expect(blob.stdout).toMatch(/^Resource 7: This is a base64 blob created at [^\n]*$/);
    const uri = 'demo://resource/static/document/architecture.md';
    const json = await w.cli(['--json', ...ev, 'read', 'ev', uri]);
    const text = (JSON.parse(json.stdout) as { contents: { text: string }[] }).contents[0]?.text;
    const raw = await w.cli([...ev, 'read', 'ev', uri, '--raw']);
    expect(raw.code).toBe(0);
    expect(raw.stdout).toBe(text);
    const both = await w.cli([...ev, 'read', 'ev', uri, '--raw', '--watch']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('does not go with --watch');
  });

  it('refuses to write binary to a terminal, and says how to redirect', { timeout: 60_000 }, async () => {
    const w = await workspace();
    const term = runInPty([...ev, 'read', 'ev', 'demo://resource/dynamic/blob/7', '--raw'], {
      cwd: w.cwd,
      home: w.home,
    });
    cleanups.push(() => term.kill());
    expect(await term.exited).toBe(1);
    expect(term.text()).toContain('is binary: --raw will not write it to a terminal');
    expect(term.text()).toContain('--raw > file');
    expect(term.text()).not.toContain('Resource 7: This is');
  });
});

describe('plurals', () => {
  it('says "1 tool", "1 server", "1 file" and "1 problem"', { timeout: 60_000 }, async () => {
    const w = await workspace({
      global: { demo: { enabled: false }, mcpServers: { one: { ...testServer(), allowed_tools: ['echo'] } } },
    });
    const retry = await w.cli(['retry', 'one']);
    expect(retry).toMatchObject({ code: 0, stdout: 'one: 1 tool\n' });
    const alone = join(w.cwd, 'alone.json');
    await writeFile(alone, JSON.stringify({ demo: { enabled: false } }));
    const valid = await w.cli(['--config', alone, 'config', 'validate']);
    expect(valid).toMatchObject({ code: 0, stdout: 'ok: 1 server in 1 file\n' });
    await writeFile(alone, JSON.stringify({ mcpServers: { bad: { command: 'x', colour: 1 } } }));
    const invalid = await w.cli(['--config', alone, 'config', 'validate']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('1 problem found');
    expect(invalid.stderr).not.toContain('(s)');
  });
});
