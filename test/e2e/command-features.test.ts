/**
 * `mcpx call`, `mcpx shell` (and `mcpx prompt`) answer what a server asks
 * mid-request: its questions (elicitation, form and URL) at a real terminal,
 * and its roots (the config's `roots`) with or without one; a config that names
 * none declares none. Without a terminal, a question ends the command with
 * words that say why, not -32021.
 * The server is the conformance backend, in its 2026-07-28 era.
 */
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, tempDir } from '../helpers/cli.js';
import { type PtyRun, runInPty } from '../helpers/pty.js';

const backend = join(repoRoot, 'dist/testing/conformance-backend.js');
const STDIO = ['--stdio', `${process.execPath} ${backend}`];
const KEY = { enter: '\r', ctrlC: '\x03', ctrlD: '\x04' };

let dir: { path: string; remove: () => Promise<void> };
let home: string;
/** The config's one root (the working directory's real path) as the server sees it: a file:// URI. */
let rootUri: string;
const running: PtyRun[] = [];

beforeAll(async () => {
  dir = await tempDir('mcpx-features-');
  home = join(dir.path, 'home');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await writeFile(
    join(home, '.mcpx', 'mcp.json'),
    JSON.stringify({
      roots: [await realpath(dir.path)],
      mcpServers: { backend: { command: process.execPath, args: [backend] } },
    }),
  );
  rootUri = pathToFileURL(await realpath(dir.path)).href;
});
afterAll(() => dir.remove());
afterEach(async () => {
  for (const term of running.splice(0)) {
    term.kill();
    await term.exited;
  }
});

function pty(args: readonly string[]): PtyRun {
  const term = runInPty(args, { cwd: dir.path, home });
  running.push(term);
  return term;
}

/** Answer the form `test_elicitation` asks: Answer, then its two text fields. */
async function answerForm(term: PtyRun): Promise<void> {
  await term.waitFor("Server 'backend' asks: where to?");
  await term.type(KEY.enter); // "Answer" is the first choice
  await term.waitFor("User's response");
  await term.type('ada', KEY.enter);
  await term.waitFor("User's email address");
  await term.type('ada@example.com', KEY.enter);
}

describe('mcpx call at a terminal', () => {
  it('asks the form a server sends and returns what the server made of the answer', {
    timeout: 60_000,
  }, async () => {
    const term = pty(['call', 'backend.test_elicitation', 'message=where to?']);
    await answerForm(term);
    await term.waitFor('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
    expect(await term.exited).toBe(0);
  });

  it('shows the URL a server asks to visit, never opens it, and passes on the answer', {
    timeout: 60_000,
  }, async () => {
    const term = pty([...STDIO, 'call', 'test_elicitation_url', 'url=https://example.com/form']);
    await term.waitFor("Server 'conformance-backend' asks you to visit https://example.com/form");
    await term.waitFor('mcpx will not open it. Will you visit it?');
    await term.type('y', KEY.enter);
    await term.waitFor('User response: action=accept');
    expect(await term.exited).toBe(0);
  });

  it("gives the config's roots", { timeout: 60_000 }, async () => {
    const term = pty(['call', 'backend.test_list_roots']);
    await term.waitFor(`Roots: ${rootUri}`);
    expect(await term.exited).toBe(0);
  });

  it('Ctrl-C at the question cancels the command (exit 130)', { timeout: 60_000 }, async () => {
    const term = pty(['call', 'backend.test_elicitation', 'message=where to?']);
    await term.waitFor("Server 'backend' asks: where to?");
    await term.type(KEY.ctrlC);
    expect(await term.exited).toBe(130);
    expect(term.text()).not.toContain('User response');
  });
});

describe('Ctrl-C with two questions queued (issue 38, item 4)', () => {
  it('one Ctrl-C ends mcpx call with its queued question: exit 130, the second never asked', {
    timeout: 60_000,
  }, async () => {
    const term = pty(['call', 'backend.test_elicitation_pair']);
    await term.waitFor("Server 'backend' asks: first question");
    await term.type(KEY.ctrlC);
    // Before, the process stayed, asking the second question, until killed.
    expect(await term.exited).toBe(130);
    expect(term.text()).toContain('cancelled');
    expect(term.text()).not.toContain('second question');
  });

  it('in the shell one Ctrl-C cancels the line and its queued question; the shell goes on', {
    timeout: 60_000,
  }, async () => {
    const term = pty(['shell']);
    await term.waitFor('mcpx> ');
    await term.type('@backend test_elicitation_pair {}', KEY.enter);
    await term.waitFor("Server 'backend' asks: first question");
    await term.type(KEY.ctrlC);
    await term.waitFor('cancelled (the server was told)');
    await term.type('@backend test_simple_text {}', KEY.enter);
    await term.waitFor('This is a simple text response for testing.');
    expect(term.text()).not.toContain('second question');
    await term.type(KEY.ctrlD);
    expect(await term.exited).toBe(0);
  });
});

describe('mcpx shell', () => {
  it('asks a server its question during an @server call, and gives the roots', {
    timeout: 60_000,
  }, async () => {
    const term = pty(['shell']);
    await term.waitFor('mcpx> ');
    await term.type('@backend test_elicitation {"message": "where to?"}', KEY.enter);
    await answerForm(term);
    await term.waitFor('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
    await term.waitFor('mcpx> ');
    await term.type('@backend test_list_roots {}', KEY.enter);
    await term.waitFor(`Roots: ${rootUri}`);
    // Sampling needs a model the shell does not have: said so, and the shell goes on.
    await term.type('@backend test_sampling prompt=hi', KEY.enter);
    await term.waitFor(
      "server 'backend' asked for a model completion (sampling), and mcpx shell has no model",
    );
    await term.waitFor('mcpx> ');
    await term.type(KEY.ctrlD);
    expect(await term.exited).toBe(0);
  });
});

describe('without a terminal', () => {
  it('gives the roots all the same', async () => {
    const run = await runCli(['call', 'backend.test_list_roots'], { cwd: dir.path, home });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`Roots: ${rootUri}\n`);
    expect(run.code).toBe(0);
  });

  it('declares no roots where the config names none (not the working directory), and says how to name them', async () => {
    const config = join(dir.path, 'no-roots.json');
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { bare: { command: process.execPath, args: [backend] } } }),
    );
    const run = await runCli(['--config', config, 'call', 'bare.test_list_roots'], { cwd: dir.path, home });
    expect(run.stderr).toBe(
      `error: server 'bare' asked for the folders it may work in (roots), and the config names none — name them in your mcp.json ("roots": ["."], relative to that file), or give the server its folder in its entry's args\n`,
    );
    expect(run.stdout).toBe('');
    expect(run.code).toBe(5);
    const adhoc = await runCli([...STDIO, 'call', 'test_list_roots'], { cwd: dir.path, home });
    expect(adhoc.stderr).toContain('and an ad-hoc server is given none');
    expect(run.stdout).toBe('');
    expect(run.code).toBe(5);
  });

  it('a question ends the call with why and what to do, not -32021', async () => {
    const run = await runCli(['call', 'backend.test_elicitation', 'message=hi'], { cwd: dir.path, home });
    expect(run.stderr).toBe(
      "error: server 'backend' asked a question (elicitation), and mcpx call has no terminal to ask it — run it at a terminal (stdin and stderr): mcpx asks you there\n",
    );
    expect(run.stdout).toBe('');
    expect(run.code).toBe(5);
  });

  it('--json says it in one JSON error with its own code', async () => {
    const run = await runCli(['--json', 'call', 'backend.test_elicitation', 'message=hi'], {
      cwd: dir.path,
      home,
    });
    const { error } = JSON.parse(run.stderr) as { error: { code: string; message: string } };
    expect(error.code).toBe('CLIENT_CAPABILITY_MISSING');
    expect(error.message).toContain('mcpx call has no terminal to ask it');
    expect(run.stderr).not.toContain('32021');
    expect(run.code).toBe(5);
  });

  it('a sampling request says the command has no model', async () => {
    const run = await runCli([...STDIO, 'call', 'test_sampling', 'prompt=hi'], { cwd: dir.path, home });
    expect(run.stderr).toContain(
      "error: server 'conformance-backend' asked for a model completion (sampling), and mcpx call has no model",
    );
    expect(run.stderr).toContain('mcpx chat');
    expect(run.stderr).not.toContain('32021');
    expect(run.code).toBe(5);
  });

  it('a prompt that asks a question says so too', async () => {
    const run = await runCli(['prompt', 'backend.test_input_required_result_prompt'], {
      cwd: dir.path,
      home,
    });
    expect(run.stderr).toContain(
      "server 'backend' asked a question (elicitation), and mcpx prompt has no terminal to ask it",
    );
    expect(run.code).toBe(5);
  });
});

describe('a keep-alive server the mcpx daemon holds', () => {
  let repo: string;
  let stopDaemon: (() => Promise<unknown>) | undefined;

  beforeAll(async () => {
    repo = join(dir.path, 'kept');
    await mkdir(join(repo, 'home', '.mcpx'), { recursive: true });
    await writeFile(
      join(repo, 'home', '.mcpx', 'mcp.json'),
      JSON.stringify({
        roots: [await realpath(repo)],
        mcpServers: { kept: { command: process.execPath, args: [backend], keep_alive: true } },
      }),
    );
    expect((await runCli(['daemon', 'start'], { cwd: repo, home: join(repo, 'home') })).code).toBe(0);
    stopDaemon = () => runCli(['daemon', 'stop'], { cwd: repo, home: join(repo, 'home') });
  }, 30_000);
  afterAll(() => stopDaemon?.());

  it('gets the roots; a call the daemon runs asks the form at the calling terminal', {
    timeout: 60_000,
  }, async () => {
    const repoUri = pathToFileURL(await realpath(repo)).href;
    const roots = await runCli(['call', 'kept.test_list_roots'], { cwd: repo, home: join(repo, 'home') });
    expect(roots.stdout).toBe(`Roots: ${repoUri}\n`);
    // The warm call runs inside the daemon; its question is asked here, with the direct path's prompts.
    const term = runInPty(['call', 'kept.test_elicitation', 'message=where to?'], {
      cwd: repo,
      home: join(repo, 'home'),
    });
    running.push(term);
    await term.waitFor("Server 'kept' asks: where to?");
    await term.type(KEY.enter);
    await term.waitFor("User's response");
    await term.type('cy', KEY.enter);
    await term.waitFor("User's email address");
    await term.type('cy@example.com', KEY.enter);
    await term.waitFor('User response: action=accept, content={"username":"cy","email":"cy@example.com"}');
    expect(await term.exited).toBe(0);
    // It was the daemon's warm server that asked (the light path), not a server started here.
    const status = await runCli(['daemon', 'status', '--json'], { cwd: repo, home: join(repo, 'home') });
    const { servers } = JSON.parse(status.stdout) as { servers: { name: string; calls: number }[] };
    expect(servers.filter((s) => s.name === 'kept').reduce((n, s) => n + s.calls, 0)).toBe(2);
  });

  it('Ctrl-C at the question a warm call asks cancels the command (exit 130)', {
    timeout: 60_000,
  }, async () => {
    const term = runInPty(['call', 'kept.test_elicitation', 'message=where to?'], {
      cwd: repo,
      home: join(repo, 'home'),
    });
    running.push(term);
    await term.waitFor("Server 'kept' asks: where to?");
    await term.type(KEY.ctrlC);
    expect(await term.exited).toBe(130);
    expect(term.text()).not.toContain('User response');
  });

  it('the shell reaches it through the daemon and is asked all the same', { timeout: 60_000 }, async () => {
    const term = runInPty(['shell'], { cwd: repo, home: join(repo, 'home') });
    running.push(term);
    await term.waitFor('mcpx> ');
    await term.type('@kept test_elicitation {"message": "where to?"}', KEY.enter);
    await term.waitFor("Server 'kept' asks: where to?");
    await term.type(KEY.enter);
    await term.waitFor("User's response");
    await term.type('bo', KEY.enter);
    await term.waitFor("User's email address");
    await term.type('bo@example.com', KEY.enter);
    await term.waitFor('User response: action=accept, content={"username":"bo","email":"bo@example.com"}');
    await term.waitFor('mcpx> ');
    await term.type(KEY.ctrlD);
    expect(await term.exited).toBe(0);
  });
});
