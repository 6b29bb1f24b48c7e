/**
 * Every command of the built CLI against a server whose every string carries a right-to-left
 * override, a zero-width space, a tag character and escape sequences (7-bit and C1, a title, a
 * clipboard write): human output shows them as `<U+XXXX>` (and drops the escapes), `--json` keeps
 * the exact text, and on a terminal every prompt and screen draws nothing else (the last part).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from '../../src/testing/fake-model-server.js';
import { POISON, POISON_SHOWN } from '../../src/testing/hostile-server.js';
import { assignToolNames } from '../../src/tools/index.js';
import { type CliRun, cliPath, repoRoot, runCli, tempDir } from '../helpers/cli.js';
import { type PtyRun, runInPty } from '../helpers/pty.js';

const hostileServerPath = join(repoRoot, 'dist/testing/hostile-server.js');
const RAW = ['\u202E', '\u200B', '\u{E0041}', '\u001b', '\u0007', '\u009b'];
/** How the poison reads once neutralised: hidden characters shown, escape sequences gone. */
const SHOWN = '<U+202E>evil<U+200B>zw<U+E0041>tag';

let dir: { path: string; remove: () => Promise<void> };
let hostile: string;
let crashing: string;
beforeAll(async () => {
  dir = await tempDir('mcpx-hostile-');
  hostile = join(dir.path, 'hostile.json');
  crashing = join(dir.path, 'crashing.json');
  const entry = { command: process.execPath, args: [hostileServerPath] };
  await writeFile(hostile, JSON.stringify({ mcpServers: { h: entry } }));
  await writeFile(
    crashing,
    JSON.stringify({ mcpServers: { h: { ...entry, env: { MCPX_HOSTILE_CRASH: '1' } } } }),
  );
});
afterAll(() => dir.remove());

const mcpx = (config: string, args: string[]) =>
  runCli(['--config', config, ...args], { cwd: dir.path, home: join(dir.path, 'home'), timeoutMs: 45_000 });

function expectNeutralised(run: CliRun, labels: readonly string[]): void {
  const out = `${run.stdout}${run.stderr}`;
  for (const raw of RAW)
    expect(out.includes(raw), `raw U+${raw.codePointAt(0)?.toString(16)} in:\n${out}`).toBe(false);
  // Prefixes only: tables and summaries may cut the rest of a line.
  for (const label of labels) expect(out).toContain(`${label}<U+202E>`);
  if (labels.length) expect(out).toContain(SHOWN);
}

/** Every string in a parsed JSON value, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, v]) => [key, ...strings(v)]);
  return [];
}

function expectExactInJson(run: CliRun, labels: readonly string[]): void {
  // Escaped on the wire: a terminal showing the JSON is not steered either.
  for (const raw of RAW) expect(`${run.stdout}${run.stderr}`.includes(raw)).toBe(false);
  // stdout holds the result; stderr one JSON error per line (and, with --verbose, notices).
  const documents = [
    ...(run.stdout.trim() ? [JSON.parse(run.stdout)] : []),
    ...run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line)),
  ];
  const all = documents.flatMap(strings);
  for (const label of labels) expect(all).toContain(`${label}${POISON}`);
}

const human: [string, string[], number, string[]][] = [
  ['tools', ['tools', 'h'], 0, ['param', 'description', 'named']],
  ['tools --schema', ['tools', 'h', '--schema'], 0, ['param', 'param description', 'named']],
  ['call: text and resource link', ['call', 'h.poison'], 0, ['text content', 'link title', 'test://link']],
  ['call: structured content only', ['call', 'h.structured'], 0, ['key', 'structured value']],
  ['call: a tool error result', ['call', 'h.fail'], 5, ['tool error']],
  ['call: a JSON-RPC error', ['call', 'h.reject'], 5, ['json-rpc error']],
  ['read', ['read', 'h', 'test://poison.txt'], 0, ['resource text']],
  ['resources', ['resources', 'h'], 0, ['resource description', 'text/plain']],
  ['templates', ['templates', 'h'], 0, ['test://poison/{id}', 'template description', 'text/plain']],
  ['prompts', ['prompts', 'h'], 0, ['arg', 'prompt description']],
  ['prompt', ['prompt', 'h.poison'], 0, ['rendered description', 'prompt message']],
  ['log messages under --verbose', ['--verbose', 'call', 'h.poison'], 0, ['logger', 'log message']],
  // No server text in a ping table: this guards against a column that would print some.
  ['ping', ['ping', 'h'], 0, []],
];

describe('human output of server text', () => {
  for (const [what, args, code, labels] of human) {
    it(`${what}: hidden characters shown as <U+XXXX>, escapes dropped`, { timeout: 60_000 }, async () => {
      const run = await mcpx(hostile, args);
      expect(run.code, run.stderr).toBe(code);
      expectNeutralised(run, labels);
    });
  }

  it("doctor, list and call --verbose: a crashed server's stderr tail", { timeout: 60_000 }, async () => {
    const doctor = await mcpx(crashing, ['doctor']);
    expect(doctor.code).toBe(4);
    expectNeutralised(doctor, ['stderr line one', 'stderr line two']);
    const verbose = await mcpx(crashing, ['--verbose', 'call', 'h.poison']);
    expect(verbose.code).toBe(4);
    expectNeutralised(verbose, ['h stderr: stderr line one']);
    const list = await mcpx(crashing, ['--verbose', 'list']);
    expect(list.code).toBe(4);
    expectNeutralised(list, ['h stderr: stderr line one', '    | stderr line two']);
  });

  // Progress is drawn only on a terminal: `script` gives the CLI one.
  const script = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
  it.runIf(process.platform === 'linux' && script)(
    'progress messages on a terminal',
    { timeout: 60_000 },
    () => {
      const command = [process.execPath, cliPath, '--config', hostile, 'call', 'h.poison']
        .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
        .join(' ');
      const out = execFileSync(script as string, ['-qec', command, '/dev/null'], {
        cwd: dir.path,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: join(dir.path, 'home'),
          MCPX_HOME: join(dir.path, 'home', '.mcpx'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 45_000,
      }).toString('utf8');
      // The bar itself is mcpx's own drawing (\r, ESC[2K); the server's message must be neutralised.
      const ours = out.replace(/\r|\u001b\[2K/g, '');
      expect(ours, JSON.stringify(out)).toContain('% progress<U+202E>');
      expectNeutralised({ code: 0, signal: null, stdout: ours, stderr: '' }, ['progress', 'text content']);
    },
  );
});

const machine: [string, 'hostile' | 'crashing', string[], number, string[]][] = [
  ['tools', 'hostile', ['tools', 'h'], 0, ['param', 'description', 'named', 'param description']],
  [
    'call',
    'hostile',
    ['call', 'h.poison'],
    0,
    ['text content', 'link title', 'test://link', 'structured value'],
  ],
  ['call: a tool error result', 'hostile', ['call', 'h.fail'], 5, ['tool error']],
  ['call: a JSON-RPC error', 'hostile', ['call', 'h.reject'], 5, []],
  ['read', 'hostile', ['read', 'h', 'test://poison.txt'], 0, ['resource text']],
  ['resources', 'hostile', ['resources', 'h'], 0, ['resource description']],
  ['templates', 'hostile', ['templates', 'h'], 0, ['template description']],
  ['prompts', 'hostile', ['prompts', 'h'], 0, ['prompt description', 'arg']],
  ['prompt', 'hostile', ['prompt', 'h.poison'], 0, ['rendered description', 'prompt message']],
  ['list', 'crashing', ['list', '--verbose'], 4, ['stderr line one']],
];

describe('--json keeps the exact text', () => {
  for (const [what, config, args, code, labels] of machine) {
    it(`${what}`, { timeout: 60_000 }, async () => {
      const run = await mcpx(config === 'hostile' ? hostile : crashing, ['--json', ...args]);
      expect(run.code, run.stderr).toBe(code);
      expectExactInJson(run, labels);
    });
  }

  it('a JSON-RPC error message is exact in the JSON error', { timeout: 60_000 }, async () => {
    const run = await mcpx(hostile, ['--json', 'call', 'h.reject']);
    const error = JSON.parse(run.stderr.trim().split('\n').at(-1) ?? '');
    expect(error.error.message).toContain(`json-rpc error${POISON}`);
  });
});

/**
 * Every prompt and screen on a real terminal (a pseudo-terminal), against the hostile server:
 * the bytes the terminal received hold no OSC, no screen clear, no C1 control and no raw hidden
 * character, and every escape sequence in them is drawing (colours, cursor moves, erasing a
 * line) of mcpx's or its prompt library's own. Each poisoned string must be seen on the screen
 * neutralised, so the scan cannot pass on a screen that never showed it.
 */
describe('every prompt and screen on a terminal', () => {
  const running: PtyRun[] = [];
  const models: FakeModelServer[] = [];
  afterEach(async () => {
    for (const term of running.splice(0)) {
      term.kill();
      // A test that failed midway may leave a prompt that ignores the hang-up.
      const late = setTimeout(() => term.kill('SIGKILL'), 10_000);
      await term.exited;
      clearTimeout(late);
    }
    for (const model of models.splice(0)) await model.close();
  });

  const KEY = { down: '\x1b[B', enter: '\r', ctrlD: '\x04' };
  /** Escape sequences that only draw: colours (SGR), cursor moves, erasing a line or below. */
  const DRAWING = /^\u001b\[(?:[0-9;]*[mABCDEFGK]|0?J|\?25[hl]|\?2004[hl])$/;
  /** Hostile bytes a terminal must never receive. */
  const FORBIDDEN = [
    '\u001b]',
    '\u001b[2J',
    '\u001b[31mred',
    '\u0007',
    '\u009b',
    '\u202E',
    '\u200B',
    '\u{E0041}',
  ];

  /**
   * The terminal got no hostile byte, only drawing, and showed each of `labels` with the poison
   * neutralised (`shown`: a table cuts a long cell, so there only its start).
   */
  function expectScreenClean(term: PtyRun, labels: readonly string[], shown = POISON_SHOWN): void {
    const raw = term.raw();
    for (const bad of FORBIDDEN)
      expect(raw.includes(bad), `the terminal received ${JSON.stringify(bad)}:\n${JSON.stringify(raw)}`).toBe(
        false,
      );
    const sequences = raw.match(/\u001b(?:\[[0-?]*[ -/]*[@-~]|[\s\S])/g) ?? [];
    const foreign = [...new Set(sequences.filter((s) => !DRAWING.test(s)))];
    expect(foreign, 'escape sequences that do more than draw').toEqual([]);
    const screen = term.text();
    for (const label of labels) expect(screen, `'${label}' shown neutralised`).toContain(`${label}${shown}`);
  }

  function pty(args: readonly string[], env: Record<string, string> = {}): PtyRun {
    const term = runInPty(['--config', hostile, ...args], {
      cwd: dir.path,
      home: join(dir.path, 'home'),
      cols: 300,
      env,
    });
    running.push(term);
    return term;
  }

  /** A form's every field answered with Enter: "Answer", then each default (or nothing). */
  async function answerForm(term: PtyRun): Promise<void> {
    await term.waitFor(`asks: form message${POISON_SHOWN}`);
    await term.type(KEY.enter);
    for (const field of [
      'text title',
      'field name',
      'described only',
      'choice title',
      'listed',
      'many title',
    ]) {
      await term.waitFor(field);
      await term.type(KEY.enter);
    }
    await term.waitFor('flag title');
    await term.type(KEY.enter);
    await term.waitFor('count title');
    await term.type(KEY.enter);
  }

  const FORM_LABELS = [
    'form message',
    'text title',
    'text default',
    'field name',
    'described only',
    'choice title',
    'choice label',
    'enum value',
    'many title',
    'many label',
    'flag title',
    'count title',
  ];

  it('mcpx call: a form, its defaults answered as shown', { timeout: 60_000 }, async () => {
    const term = pty(['call', 'h.form']);
    await answerForm(term);
    await term.waitFor('answered');
    expect(await term.exited).toBe(0);
    expectScreenClean(term, [...FORM_LABELS, 'answered', 'progress']);
    // The default was shown, and answered as shown: never characters the person could not see.
    expect(term.text()).toContain(`"text":"text default${POISON_SHOWN}"`);
  });

  it('mcpx call: a URL to visit', { timeout: 60_000 }, async () => {
    const term = pty(['call', 'h.visit']);
    await term.waitFor('Will you visit it?');
    await term.type('n', KEY.enter);
    await term.waitFor('answered');
    expect(await term.exited).toBe(0);
    expectScreenClean(term, ['url message', 'path']);
  });

  it("mcpx call with keep_alive: the daemon's form asked at this terminal, its defaults answered as shown", {
    timeout: 90_000,
  }, async () => {
    const held = join(dir.path, 'held.json');
    const home = join(dir.path, 'held-home');
    await writeFile(
      held,
      JSON.stringify({
        mcpServers: { h: { command: process.execPath, args: [hostileServerPath], keep_alive: true } },
      }),
    );
    const daemon = (...args: string[]) =>
      runCli(['--config', held, 'daemon', ...args], { cwd: dir.path, home });
    try {
      expect((await daemon('start')).code).toBe(0);
      // A light call: run inside the daemon, its server's form asked here (cli-entry.ts#elicitAtTerminal).
      const term = runInPty(['--config', held, 'call', 'h.form'], { cwd: dir.path, home, cols: 300 });
      running.push(term);
      await answerForm(term);
      await term.waitFor('answered');
      expect(await term.exited).toBe(0);
      expectScreenClean(term, [...FORM_LABELS, 'answered']);
      expect(term.text()).toContain(`"text":"text default${POISON_SHOWN}"`);
      // The call did go through the daemon (else this is the direct path again).
      const { servers } = JSON.parse((await daemon('status', '--json')).stdout) as {
        servers: { name: string; calls: number }[];
      };
      expect(servers.find((s) => s.name === 'h')?.calls).toBe(1);
    } finally {
      await daemon('stop');
    }
  });

  it('mcpx chat: consent, the re-approval of a changed tool, sampling, a form and a URL', {
    timeout: 120_000,
  }, async () => {
    // (A server's name in a config cannot carry these characters: the config is refused, below.)
    const toolName = (tool: string) => [...assignToolNames([{ source: 'h', tool }]).keys()][0] as string;
    const model = await startFakeModelServer([
      { toolCalls: [{ name: toolName('rug_pull'), arguments: {} }] },
      { toolCalls: [{ name: toolName(`named${POISON}`), arguments: {} }] },
      { toolCalls: [{ name: toolName('sample'), arguments: {} }] },
      { text: 'a sampled answer' }, // the server's sampling request
      { toolCalls: [{ name: toolName('form'), arguments: {} }] },
      { toolCalls: [{ name: toolName('visit'), arguments: {} }] },
      { text: 'all done' },
    ]);
    models.push(model);
    const term = pty(['chat', '--base-url', model.baseUrl, '--model', 'fake'], { OPENAI_API_KEY: 'sk-test' });
    // Consent: the server, where it is configured, its tools and their descriptions.
    await term.waitFor("Connect to MCP server 'h'?");
    await term.waitFor('Deny connection');
    await term.type(KEY.enter); // allow all tools
    await term.waitFor('> ');
    await term.type('go', KEY.enter);
    // The tool with the poisoned name changed after "allow all": asked again, names and change shown.
    await term.waitFor(`The definition of 'named${POISON_SHOWN}' on 'h' changed since you approved it`);
    await term.waitFor('Deny');
    await term.type(KEY.down, KEY.down, KEY.enter);
    // Sampling: the server's prompt and its model hint.
    await term.waitFor('Allow?');
    await term.type('y', KEY.enter);
    await answerForm(term);
    await term.waitFor('Will you visit it?');
    await term.type('n', KEY.enter);
    await term.waitFor('all done');
    await term.waitFor('> ');
    await term.type('/exit', KEY.enter);
    expect(await term.exited).toBe(0);
    expectScreenClean(term, [
      'description',
      'named',
      'changed description',
      'sampling prompt',
      'model hint',
      ...FORM_LABELS,
      'url message',
      'pulled',
      'answered',
    ]);
  });

  it('mcpx shell: tool lists, calls, errors, prompts, resources, the status and a form', {
    timeout: 60_000,
  }, async () => {
    const term = pty(['shell']);
    await term.waitFor('mcpx> ');
    await term.type('@h ?', KEY.enter);
    await term.waitFor('Usage: @h');
    await term.type('@h poison', KEY.enter);
    await term.waitFor('link title');
    await term.type('@h fail', KEY.enter);
    await term.waitFor('reported an error');
    await term.type('@h reject', KEY.enter);
    await term.waitFor('json-rpc error');
    await term.type('/mcp prompts h', KEY.enter);
    await term.waitFor('prompt description');
    await term.type('/mcp resources h', KEY.enter);
    await term.waitFor('resource description');
    await term.type('/mcp tools h', KEY.enter);
    await term.waitFor('Usage: @h');
    await term.type('/mcp', KEY.enter);
    await term.waitFor(/h\s+ready/);
    await term.type('@h form', KEY.enter);
    await answerForm(term);
    await term.waitFor('answered');
    await term.waitFor('mcpx> ');
    await term.type(KEY.ctrlD);
    expect(await term.exited).toBe(0);
    expectScreenClean(term, [
      'description',
      'named',
      'text content',
      'link title',
      'tool error',
      'json-rpc error',
      'prompt description',
      'arg',
      'resource name',
      'resource description',
      ...FORM_LABELS,
      'answered',
    ]);
  });

  it('a config that names a server with these characters: refused, and the error is clean', {
    timeout: 60_000,
  }, async () => {
    const config = join(dir.path, 'named.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: { [`h${POISON}`]: { command: process.execPath, args: [hostileServerPath] } },
      }),
    );
    const term = runInPty(['--config', config, 'list'], {
      cwd: dir.path,
      home: join(dir.path, 'home'),
      cols: 300,
    });
    running.push(term);
    expect(await term.exited).not.toBe(0);
    expect(term.text()).toContain('contains an invisible character');
    expectScreenClean(term, ["server 'h"]);
  });

  const screens: [string, string[], 'hostile' | 'crashing', string[]][] = [
    ['tools', ['tools', 'h'], 'hostile', ['description', 'named']],
    ['a tool error', ['call', 'h.fail'], 'hostile', ['tool error']],
    ['a JSON-RPC error', ['call', 'h.reject'], 'hostile', ['json-rpc error']],
    ['prompts', ['prompts', 'h'], 'hostile', ['prompt description', 'arg']],
    ['resources (a table)', ['resources', 'h'], 'hostile', ['resource description']],
    ['templates (a table)', ['templates', 'h'], 'hostile', ['template description']],
    [
      'log messages and progress',
      ['--verbose', 'call', 'h.poison'],
      'hostile',
      ['logger', 'log message', 'progress'],
    ],
    ['read', ['read', 'h', 'test://poison.txt'], 'hostile', ['resource text']],
    ['doctor', ['doctor'], 'crashing', ['stderr line one', 'stderr line two']],
    ['list', ['--verbose', 'list'], 'crashing', ['stderr line one']],
  ];
  for (const [what, args, config, labels] of screens) {
    it(`${what}`, { timeout: 60_000 }, async () => {
      const term = runInPty(['--config', config === 'hostile' ? hostile : crashing, ...args], {
        cwd: dir.path,
        home: join(dir.path, 'home'),
        cols: 300,
      });
      running.push(term);
      await term.exited;
      expectScreenClean(term, labels, what.endsWith('(a table)') ? '<U+202E>evil<U+200B>zw' : POISON_SHOWN);
    });
  }
});
