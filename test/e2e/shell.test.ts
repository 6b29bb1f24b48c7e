/**
 * `mcpx shell` in a real pseudo-terminal: keys typed, the screen read. The
 * servers are the stdio test server (`mine`, which logs a cancellation it
 * receives) and the built-in `demo`.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../../src/testing/fake-model-server.js';
import { repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { assertNoLeakedProcesses, trackProcessTree } from '../helpers/processes.js';
import { type PtyRun, runInPty } from '../helpers/pty.js';

const KEY = {
  down: '\x1b[B',
  enter: '\r',
  tab: '\t',
  up: '\x1b[A',
  ctrlC: '\x03',
  ctrlD: '\x04',
  ctrlU: '\x15',
};
let dir: { path: string; remove: () => Promise<void> };
let home: string;
let cancelLog: string;
const running: PtyRun[] = [];

beforeAll(async () => {
  dir = await tempDir('mcpx-shell-');
  home = join(dir.path, 'home');
  cancelLog = join(dir.path, 'cancel.log');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await writeFile(
    join(home, '.mcpx', 'mcp.json'),
    JSON.stringify(
      {
        mcpServers: {
          mine: {
            command: process.execPath,
            args: [testServerPath],
            env: { MCPX_TEST_CANCEL_LOG: cancelLog },
          },
          other: { command: process.execPath, args: [testServerPath] },
        },
      },
      null,
      2,
    ),
  );
});
afterAll(() => dir.remove());
afterEach(async () => {
  for (const term of running.splice(0)) {
    term.kill();
    await term.exited;
  }
});

function shell(): PtyRun {
  const term = runInPty(['shell'], { cwd: dir.path, home });
  running.push(term);
  return term;
}

/** Back at the prompt, leave with Ctrl-D and expect exit code 0. */
async function leave(term: PtyRun): Promise<void> {
  await term.waitFor('mcpx> ');
  await term.type(KEY.ctrlD);
  expect(await term.exited).toBe(0);
}

describe('mcpx shell', () => {
  it('Ctrl-D typed while a call runs leaves once it ends (it used to leave the shell waiting for ever)', {
    timeout: 60_000,
  }, async () => {
    const term = shell();
    await term.waitFor('mcpx> ');
    await term.type('@mine slow_operation {"delay_ms": 400, "steps": 2}', KEY.enter);
    await term.waitFor('mine: connected');
    // The terminal keeps it as an end-of-file mark in its own line mode, which reads as NUL once
    // the next prompt's editor takes the terminal over.
    await term.type(KEY.ctrlD);
    const code = await Promise.race([
      term.exited,
      new Promise((r) => setTimeout(() => r('still running'), 10_000)),
    ]);
    expect(code).toBe(0);
    expect(term.text()).toContain('completed 2 steps');
  });

  it('/mcp lists the servers; unknown commands get a did-you-mean; /exit leaves with 0', {
    timeout: 60_000,
  }, async () => {
    const term = shell();
    await term.waitFor('mcpx shell — 3 servers (demo, mine, other)');
    await term.waitFor('mcpx> ');
    await term.type('/mcp', KEY.enter);
    await term.waitFor(/SERVER\s+STATE\s+TOOLS\s+ORIGIN/);
    await term.waitFor(/demo\s+not connected\s+-\s+builtin config/);
    await term.waitFor(/mine\s+not connected\s+-\s+\S+mcp\.json:3 \(global config\)\n/);
    await term.type('/mpc', KEY.enter);
    await term.waitFor("error: unknown command '/mpc' — did you mean '/mcp'?");
    await term.type('/mcp tols', KEY.enter);
    await term.waitFor("unknown /mcp command 'tols' — did you mean '/mcp tools'?");
    await term.type('/mcp connect mien', KEY.enter);
    await term.waitFor("no server named 'mien' — did you mean 'mine'?");
    await term.type('/mcp connect mine', KEY.enter);
    await term.waitFor(/mine: connected, \d+ tools/);
    await term.type('/mcp', KEY.enter);
    await term.waitFor(/mine\s+ready\s+\d+\s+/);
    await term.type('/mcp resources mine', KEY.enter);
    await term.waitFor(/mine: \d+ resources\n\s+test:\/\/readme\.txt/);
    await term.type('/mcp read mine test://readme.txt', KEY.enter);
    await term.waitFor('Try the echo, add and slow_operation tools.');
    await term.type('/mcp prompts mine', KEY.enter);
    await term.waitFor(/greeting\(name/);
    await term.type('/mcp prompt mine greeting name=Ada', KEY.enter);
    await term.waitFor('[user]');
    await term.waitFor('Ada');
    // A list change the server announces shows as a notice between prompts.
    await term.type('@mine add_tool name=extra', KEY.enter);
    await term.waitFor(/mine: tools changed \(\d+ tools\)/);
    await term.type('/mcp retry mine', KEY.enter);
    await term.waitFor(/mine: \d+ tools\n/);
    await term.type('/mcp disconnect mine', KEY.enter);
    await term.waitFor('mine: disconnected');
    await term.type('/mcp', KEY.enter);
    await term.waitFor(/mine\s+stopped\s+-/);
    await term.type('hello there', KEY.enter);
    await term.waitFor('plain text goes to a chat model');
    await term.type('/exit', KEY.enter);
    expect(await term.exited).toBe(0);
  });

  it('shows @server ? and @server tool ? screens, calls tools, and explains bad calls', {
    timeout: 60_000,
  }, async () => {
    const term = shell();
    await term.waitFor('mcpx> ');
    await term.type('@mine ?', KEY.enter);
    await term.waitFor(/mine: \d+ tools/);
    await term.waitFor('echo(message: string)  Echo a message back unchanged.');
    await term.waitFor('slow_operation(steps?: integer, delay_ms?: integer, duration?: number)');
    await term.waitFor('Usage: @mine <tool> ?  |  @mine <tool> key=value …  |  @mine <tool> {json}');
    await term.type('@mine slow_operation ?', KEY.enter);
    await term.waitFor('mine.slow_operation — Slow operation');
    await term.waitFor('Usage: @mine slow_operation [steps=<integer>] [delay_ms=<integer>]');
    await term.waitFor(/steps\s+integer\s+\(optional, default 5\)/);
    await term.waitFor('How many steps');
    await term.waitFor(/delay_ms\s+integer\s+\(optional, default 100\)/);
    await term.waitFor('Annotations: read-only');
    await term.waitFor('Example:');
    await term.waitFor('@mine slow_operation');
    await term.type('@mine log ?', KEY.enter);
    await term.waitFor(/level\s+"debug" \| "info" \| "notice"/);
    await term.waitFor('"emergency"');
    await term.waitFor('(optional, default'); // the line is wrapped to the terminal's width
    await term.waitFor('The log level');
    await term.type('@mine echo ?', KEY.enter);
    await term.waitFor(/message\s+string\s+\(required\)/);
    await term.waitFor('The text to echo');
    await term.waitFor('@mine echo message=text');
    await term.type('@mine echo message="hello world"', KEY.enter);
    await term.waitFor(/\nhello world\n/);
    await term.type('@mine echo {"message": "from json"}', KEY.enter);
    await term.waitFor(/\nfrom json\n/);
    await term.type('@mine ech message=x', KEY.enter);
    await term.waitFor("'mine' has no tool named 'ech' — did you mean 'echo'?");
    await term.type('@mine echo {"message": }', KEY.enter);
    await term.waitFor(
      `the arguments are not valid JSON at column 24, near '{"message": }': a value is expected`,
    );
    await term.type('@mine', KEY.enter);
    await term.waitFor("name a tool of 'mine': @mine <tool> key=value … — @mine ? lists its tools");
    await leave(term);
  });

  it('Tab completes commands, /mcp subcommands, server names, tool names and argument keys', {
    timeout: 60_000,
  }, async () => {
    const term = shell();
    await term.waitFor('mcpx> ');
    await term.type('/mc', KEY.tab);
    await term.waitFor('/mcp');
    await term.type(' disc', KEY.tab);
    await term.waitFor('disconnect');
    await term.type(' mi', KEY.tab);
    await term.waitFor('ne');
    await term.type(KEY.enter);
    await term.waitFor('mine: disconnected');
    await term.type('@mi', KEY.tab);
    await term.waitFor('ne');
    await term.type(' slow_op', KEY.tab);
    await term.waitFor('eration');
    await term.type(' del', KEY.tab);
    await term.waitFor('ay_ms=');
    await term.type('1 st', KEY.tab);
    await term.waitFor('eps=');
    await term.type('2', KEY.enter);
    // The line readline completed is the line that ran.
    await term.waitFor('completed 2 steps');
    await leave(term);
  });

  it('keeps history across sessions in ~/.mcpx/history, mode 0600', { timeout: 60_000 }, async () => {
    const first = shell();
    await first.waitFor('mcpx> ');
    await first.type('@demo echo message=remember-me', KEY.enter);
    await first.waitFor(/\nremember-me\n/);
    await leave(first);
    const file = join(home, '.mcpx', 'history');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toContain('@demo echo message=remember-me\n');

    const second = shell();
    await second.waitFor('mcpx> ');
    await second.type(KEY.up);
    await second.waitFor('@demo echo message=remember-me');
    await second.type(KEY.enter);
    await second.waitFor(/\nremember-me\n/);
    await leave(second);
  });

  it('Ctrl-C cancels a slow call (the server is told), the prompt comes back, and no process is left', {
    timeout: 90_000,
  }, async () => {
    const term = shell();
    const tree = trackProcessTree(term.pid);
    try {
      await term.waitFor('mcpx> ');
      await term.type('@mine slow_operation steps=100 delay_ms=300', KEY.enter);
      await term.waitFor('step 1 of 100'); // the progress bar
      await term.type(KEY.ctrlC);
      await term.waitFor('cancelled (the server was told)');
      await term.waitFor('mcpx> ');
      await waitForFile(cancelLog, 'slow_operation cancelled');
      // The session goes on: the same server answers the next call.
      await term.type('@mine echo message=after-cancel', KEY.enter);
      await term.waitFor(/\nafter-cancel\n/);
      await term.type(KEY.ctrlC);
      await term.waitFor('(Ctrl-D or /exit to leave)');
      expect(term.text()).not.toContain('completed 100 steps');
      await leave(term);
      await assertNoLeakedProcesses(tree, { graceMs: 5_000 });
    } finally {
      tree.stop();
    }
  });
});

describe('mcpx shell with a hostile server', () => {
  it('shows its names and texts with the hidden characters revealed and no escape sequence passed on', {
    timeout: 60_000,
  }, async () => {
    const hostileHome = join(dir.path, 'hostile-home');
    await mkdir(join(hostileHome, '.mcpx'), { recursive: true });
    await writeFile(
      join(hostileHome, '.mcpx', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          hostile: { command: process.execPath, args: [join(repoRoot, 'dist/testing/hostile-server.js')] },
        },
      }),
    );
    const term = runInPty(['shell'], { cwd: dir.path, home: hostileHome });
    running.push(term);
    await term.waitFor('mcpx> ');
    await term.type('@hostile ?', KEY.enter);
    await term.waitFor('Usage: @hostile');
    await term.type('/mcp resources hostile', KEY.enter);
    await term.waitFor(/hostile: \d+ resources?\n/);
    await term.type('/mcp prompts hostile', KEY.enter);
    await term.waitFor(/hostile: \d+ prompts?\n/);
    await term.type('/mcp', KEY.enter);
    await term.waitFor(/hostile\s+ready/);
    await leave(term);
    const raw = term.raw();
    expect(raw).toContain('<U+202E>'); // the server's text was shown, revealed
    for (const hidden of ['\u202E', '\u200B', '\u{E0041}', '\u001b[31m', '\u001b[2J', '\u001b]0;']) {
      expect(raw.includes(hidden), `the terminal received ${JSON.stringify(hidden)}`).toBe(false);
    }
  });
});

describe('mcpx shell without a terminal', () => {
  it('is a usage error that points to mcpx call', async () => {
    const run = await runCli(['shell'], { cwd: dir.path, home });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: mcpx shell needs a terminal (stdin and stderr) — run it in a terminal; scripts use `mcpx call <server>.<tool> key=value`\n',
    );
  });
});

describe('mcpx shell takes the permission level as chat does', () => {
  const levelHome = () => join(dir.path, 'level-home');
  beforeAll(async () => {
    await mkdir(join(levelHome(), '.mcpx'), { recursive: true });
    await writeFile(
      join(levelHome(), '.mcpx', 'mcp.json'),
      JSON.stringify({
        permission: 'sandboxed',
        mcpServers: { mine: { command: process.execPath, args: [testServerPath] } },
      }),
    );
  });
  const shellAt = (args: string[], cwd = dir.path) => {
    const term = runInPty(['shell', ...args], { cwd, home: levelHome() });
    running.push(term);
    return term;
  };

  it('from the config: sandboxed, --allow-all allows the model nothing, and says so', {
    timeout: 60_000,
  }, async () => {
    const term = shellAt([]);
    await term.waitFor('mcpx> ');
    await term.type('/mcp connect mine --allow-all', KEY.enter);
    await term.waitFor(
      'error: --allow-all allows nothing here: permission sandboxed gives the model no MCP access',
    );
    await leave(term);
    expect(term.text()).not.toContain('all allowed for the model');
  });

  it('--permission overrides the config; nonsense is a usage error', { timeout: 60_000 }, async () => {
    const term = shellAt(['--permission', 'yolo']);
    await term.waitFor('mcpx> ');
    await term.type('/mcp connect mine --allow-all', KEY.enter);
    await term.waitFor(/mine: connected, \d+ tools, all allowed for the model/);
    await leave(term);

    const wrong = shellAt(['--permission', 'sometimes']);
    expect(await wrong.exited).toBe(1);
    expect(wrong.text()).toContain(
      "error: --permission must be one of yolo, trusted, sandboxed, not 'sometimes'",
    );
  });

  it("a repository's file may not raise it, and is told so", { timeout: 60_000 }, async () => {
    const repo = join(dir.path, 'level-repo');
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, '.mcp.json'), JSON.stringify({ permission: 'yolo', mcpServers: {} }));
    const term = shellAt([], repo);
    await term.waitFor('ignored permission "yolo" from');
    await term.waitFor('mcpx> ');
    await term.type('/mcp connect mine --allow-all', KEY.enter);
    await term.waitFor('error: --allow-all allows nothing here');
    await leave(term);
  });
});

describe('mcpx shell with a server that dies mid-session', () => {
  it('says so between prompts, and brings it back on its next use', { timeout: 60_000 }, async () => {
    const crashHome = join(dir.path, 'crash-home');
    await mkdir(join(crashHome, '.mcpx'), { recursive: true });
    await writeFile(
      join(crashHome, '.mcpx', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          crashy: {
            command: process.execPath,
            args: [testServerPath],
            env: { MCPX_TEST_FAULT: 'exit-after', MCPX_TEST_EXIT_AFTER_MS: '3000' },
          },
        },
      }),
    );
    const term = runInPty(['shell'], { cwd: dir.path, home: crashHome });
    running.push(term);
    await term.waitFor('mcpx> ');
    await term.type('/mcp connect crashy', KEY.enter);
    await term.waitFor(/crashy: connected, \d+ tools/);
    await term.waitFor('mcpx> ');
    // Nobody typed anything: the notice comes by itself, and the prompt is drawn again below it.
    await term.waitFor(/crashy: error — [^\n]+\n/, 20_000);
    await term.waitFor('mcpx> ');
    await term.type('@crashy echo message=back-again', KEY.enter);
    await term.waitFor(/\nback-again\n/);
    await leave(term);
  });
});

describe('mcpx shell with a server whose tool listing fails', () => {
  it('advises /mcp retry (the console\'s command) and never says "connected (0 tools)"', {
    timeout: 60_000,
  }, async () => {
    const failingHome = join(dir.path, 'failing-home');
    await mkdir(join(failingHome, '.mcpx'), { recursive: true });
    await writeFile(
      join(failingHome, '.mcpx', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          bad: {
            command: process.execPath,
            args: [testServerPath],
            env: { MCPX_TEST_FAULT: 'tools-list-fails' },
          },
        },
      }),
    );
    const term = runInPty(['shell'], { cwd: dir.path, home: failingHome });
    running.push(term);
    await term.waitFor('mcpx> ');
    await term.type('@bad ?', KEY.enter);
    await term.waitFor("bad: 'bad' is connected, but listing its tools failed");
    await term.waitFor('— `/mcp retry bad` tries again');
    await term.waitFor("error: 'bad' is connected, but listing its tools failed");
    await term.waitFor('mcpx> ');
    await term.type('/mcp retry bad', KEY.enter);
    await term.waitFor('— `/mcp retry bad` tries again');
    await term.waitFor('error: ');
    await leave(term);
    const screen = term.text();
    expect(screen).not.toContain('mcpx retry');
    expect(screen).not.toContain('connected (0 tools)');
  });
});

describe('mcpx shell when its terminal closes', () => {
  it('ends every server it started (SIGHUP), even one that outlives its stdin, in the middle of a call', {
    timeout: 60_000,
  }, async () => {
    const stubbornHome = join(dir.path, 'stubborn-home');
    await mkdir(join(stubbornHome, '.mcpx'), { recursive: true });
    await writeFile(
      join(stubbornHome, '.mcpx', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          stubborn: {
            command: process.execPath,
            args: [testServerPath],
            env: { MCPX_TEST_FAULT: 'ignore-sigterm,grandchild' },
          },
        },
      }),
    );
    const term = runInPty(['shell'], { cwd: dir.path, home: stubbornHome });
    running.push(term);
    const tree = trackProcessTree(term.pid);
    try {
      await term.waitFor('mcpx> ');
      await term.type('@stubborn slow_operation steps=100 delay_ms=300', KEY.enter);
      await term.waitFor('step 1 of 100');
      expect(tree.alive().length).toBeGreaterThanOrEqual(2); // the server and its grandchild
      term.kill('SIGHUP');
      await term.exited;
      await assertNoLeakedProcesses(tree, { graceMs: 10_000 });
    } finally {
      tree.stop();
    }
  });
});

describe('mcpx chat is the console with a model', () => {
  it("answers consent, runs /mcp and @ commands unasked, asks before the model's call, and takes the next question", {
    timeout: 90_000,
  }, async () => {
    const model = await startFakeModelServer([
      // Not `echo`: a read-only tool of the user's own server runs unasked (issue 25).
      { toolCalls: [{ name: 'mcp_mine_add_tool', arguments: { name: 'via_model' } }] },
      { text: 'model says done' },
      { text: 'second answer' },
      { toolCalls: [{ name: 'mcp_other_echo', arguments: { message: 'unasked' } }] },
      { text: 'third answer' },
    ]);
    try {
      const term = runInPty(['chat', '--base-url', model.baseUrl, '--model', 'fake'], {
        cwd: dir.path,
        home,
        env: { OPENAI_API_KEY: 'sk-test' },
      });
      running.push(term);
      // Each server is asked about once; `mine` wants a confirmation per call, any other is allowed.
      await answerConsent(term, { mine: [KEY.down, KEY.enter], other: [KEY.down, KEY.enter] }, [KEY.enter]);
      await term.waitFor('mcpx chat — fake');
      await term.waitFor('mcpx> ');
      await term.type('/mcp', KEY.enter);
      await term.waitFor(/mine\s+ready\s+\d+/);
      await term.type('@mine echo message=direct', KEY.enter);
      await term.waitFor(/\ndirect\n/);
      await term.waitFor('mcpx> ');
      expect(term.text()).not.toContain('Allow echo?'); // the person's own call is not asked
      expect(model.requests).toHaveLength(0);
      await term.type('please echo', KEY.enter);
      await term.waitFor('Allow add_tool?');
      await term.waitFor('"name":"via_model"');
      await term.waitFor('Allow once');
      await term.type(KEY.enter);
      await term.waitFor('← mcp_mine_add_tool: added tool via_model');
      await term.waitFor('model says done');
      await term.waitFor('mcpx> ');
      // The bug of issue 13: after a permission menu, the next question was never read.
      await term.type('again', KEY.enter);
      await term.waitFor('second answer');
      await term.waitFor('mcpx> ');
      // --allow-all approves a server for the model up front: its call is not asked about.
      await term.type('/mcp connect other --allow-all', KEY.enter);
      await term.waitFor(/other: connected, \d+ tools, all allowed for the model/);
      const asked = term.text().length;
      await term.type('use other', KEY.enter);
      await term.waitFor('← mcp_other_echo: unasked');
      await term.waitFor('third answer');
      await term.waitFor('mcpx> ');
      expect(term.text().slice(asked)).not.toContain('Allow echo?');
      await term.type('/exit', KEY.enter);
      expect(await term.exited).toBe(0);
      expect(model.requests).toHaveLength(5);
    } finally {
      await model.close();
    }
  });
});

describe('Ctrl-C in mcpx chat', () => {
  it("cancels the model's running tool call at the server and the conversation goes on", {
    timeout: 90_000,
  }, async () => {
    const model = await startFakeModelServer([
      { toolCalls: [{ name: 'mcp_mine_slow_operation', arguments: { steps: 100, delay_ms: 300 } }] },
      { text: 'still here' },
    ]);
    try {
      const cancelledBefore = (await readFile(cancelLog, 'utf8').catch(() => '')).split('\n').length;
      const term = runInPty(
        ['chat', '--base-url', model.baseUrl, '--model', 'fake', '--permission', 'yolo'],
        {
          cwd: dir.path,
          home,
          env: { OPENAI_API_KEY: 'sk-test' },
        },
      );
      running.push(term);
      await term.waitFor('mcpx> ');
      await term.type('take your time', KEY.enter);
      await term.waitFor('→ mcp_mine_slow_operation');
      await new Promise((resolve) => setTimeout(resolve, 500)); // the server is working
      await term.type(KEY.ctrlC);
      await term.waitFor('cancelled');
      await term.waitFor('mcpx> ');
      const deadline = Date.now() + 15_000;
      while ((await readFile(cancelLog, 'utf8').catch(() => '')).split('\n').length <= cancelledBefore) {
        if (Date.now() > deadline) throw new Error('the server never heard of the cancellation');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await term.type('are you there?', KEY.enter);
      await term.waitFor('still here');
      // The cut-short turn was taken back: the model never sees a tool call without its result.
      const last = model.requests.at(-1) as { messages: { role: string; content?: unknown }[] };
      expect(last.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(last.messages[1]?.content).toBe('are you there?');
      await term.type('/exit', KEY.enter);
      expect(await term.exited).toBe(0);
    } finally {
      await model.close();
    }
  });
});

/** Answer each "Connect to MCP server 'X'?" menu until the prompt shows: `keys[X]`, else `otherwise`. */
async function answerConsent(
  term: PtyRun,
  keys: Record<string, string[]>,
  otherwise: string[],
): Promise<void> {
  const deadline = Date.now() + 30_000;
  let seen = 0;
  const answered = new Set<string>();
  for (;;) {
    const text = term.text();
    const question = /Connect to MCP server '([^']+)'\?(?:(?!Connect to MCP server)[\s\S])*?Deny connection/g;
    question.lastIndex = seen;
    const match = question.exec(text);
    if (match) {
      seen = question.lastIndex;
      const server = match[1] ?? '';
      // A menu draws itself again after each key: answer each server once.
      if (!answered.has(server)) {
        answered.add(server);
        await term.type(...(keys[server] ?? otherwise));
      }
      continue;
    }
    if (text.slice(seen).includes('mcpx> ')) return;
    if (Date.now() > deadline) throw new Error(`no consent question or prompt; the terminal shows:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function waitForFile(path: string, text: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const content = await readFile(path, 'utf8').catch(() => '');
    if (content.includes(text)) return;
    if (Date.now() > deadline) throw new Error(`${path} never said '${text}'; it holds: ${content}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
