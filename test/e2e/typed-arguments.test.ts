/**
 * `mcpx call` arguments typed by the tool's input schema, and `mcpx tools server.tool`, through
 * the built CLI against real servers (server-everything, server-filesystem), a test server
 * whose hand-written schema uses $ref, nullable and unions (`wild-schemas`), and one whose
 * tools/list fails (`list-fails-once`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';
import { everythingPath, filesystemPath } from '../helpers/servers.js';

const TWENTY = '12345678901234567890';
let dir: { path: string; remove: () => Promise<void> };
let config: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-typed-');
  config = join(dir.path, 'mcp.json');
  const node = process.execPath;
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        every: { command: node, args: [everythingPath] },
        fs: { command: node, args: [filesystemPath, dir.path] },
        wild: { command: node, args: [testServerPath], env: { MCPX_TEST_FAULT: 'wild-schemas' } },
        flaky: { command: node, args: [testServerPath], env: { MCPX_TEST_FAULT: 'tools-list-fails' } },
        once: { command: node, args: [testServerPath], env: { MCPX_TEST_FAULT: 'list-fails-once' } },
      },
    }),
  );
});
afterAll(() => dir.remove());

function mcpx(args: readonly string[], stdin?: string) {
  return runCli(['--config', config, ...args], {
    cwd: dir.path,
    home: join(dir.path, 'home'),
    timeoutMs: 60_000,
    ...(stdin === undefined ? {} : { stdin }),
  });
}

const slow = { timeout: 90_000 };

describe('arguments typed by the input schema (real servers)', () => {
  it('keeps a 20-digit value and a leading zero as strings where the schema says string', slow, async () => {
    const big = await mcpx(['call', 'every.echo', `message=${TWENTY}`]);
    expect(big.stderr).toBe('');
    expect(big.stdout).toBe(`Echo: ${TWENTY}\n`);
    const zero = await mcpx(['call', 'every.echo', 'message=007']);
    expect(zero.stdout).toBe('Echo: 007\n');
  });

  it(
    'parses numbers by the schema and refuses one a double would change, before the call',
    slow,
    async () => {
      const sum = await mcpx(['call', 'every.get-sum', 'a=2', 'b=0.5']);
      expect(sum.stdout).toContain('2.5');
      const lossy = await mcpx(['call', 'every.get-sum', 'a=1', `b=${TWENTY}`]);
      expect(lossy.code).toBe(1);
      expect(lossy.stdout).toBe('');
      expect(lossy.stderr).toContain(
        `b: ${TWENTY} has more digits than a JSON number carries exactly (it would arrive as 12345678901234567000)`,
      );
      expect(lossy.stderr).toContain('run `mcpx tools every.get-sum` to see its parameters');
    },
  );

  it(
    'types every kind the wild schema declares: $ref enum and object, unions, nullable, arrays',
    slow,
    async () => {
      const run = await mcpx([
        'call',
        'wild.inspect_args',
        `id=${TWENTY}`,
        'count=3',
        'ratio=0.25',
        'verbose=true',
        'mode=slow',
        'window={"from":1,"to":2}',
        'tags=["a","007"]',
        `ref=${TWENTY}`,
        'note=null',
        'limit=null',
        'level=2',
      ]);
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout.split('\n')[0] ?? '')).toEqual({
        id: TWENTY,
        count: 3,
        ratio: 0.25,
        verbose: true,
        mode: 'slow',
        window: { from: 1, to: 2 },
        tags: ['a', '007'],
        ref: TWENTY, // integer | string: not an exact integer, so the string
        note: null,
        limit: null,
        level: 2,
      });
    },
  );

  it.each([
    [['count=2.5'], "count: '2.5' is not an integer"],
    [[`count=${TWENTY}`], `count: ${TWENTY} has more digits than a JSON number carries exactly`],
    [['verbose=yes'], "verbose: 'yes' is not true or false"],
    [['mode=fats'], "mode: 'fats' is not one of fast, slow — did you mean 'fast'?"],
    [['tags=a,b'], `tags: 'a,b' is not a JSON array`],
    [['level=4'], "level: '4' is not one of 1, 2, 3"],
    [['cuont=1'], "'cuont' is not a parameter — did you mean 'count'?"],
  ])('refuses %j before calling', slow, async (extra, message) => {
    const run = await mcpx(['call', 'wild.inspect_args', 'id=x', ...extra]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });

  it('names every missing required key and every unknown key, with did-you-means', slow, async () => {
    const run = await mcpx(['--json', 'call', 'fs.read_text_file', 'pth=notes.txt']);
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stderr) as {
      error: { code: string; message: string; causes: string[] };
    };
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.causes).toEqual([
      "'pth' is not a parameter — did you mean 'path'?",
      "missing required argument 'path'",
    ]);
  });

  it('gives an unknown tool a did-you-mean and a help command that works', slow, async () => {
    const run = await mcpx(['call', 'fs.read_txt_file', 'path=x']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("'fs' has no tool named 'read_txt_file' — did you mean 'read_text_file'?");
    expect(run.stderr).toContain('run `mcpx tools fs.read_text_file` to see how to call it');
    const help = await mcpx(['tools', 'fs.read_text_file']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: mcpx call fs.read_text_file path=<string>');
  });

  it('enum values get a did-you-mean on a real server', slow, async () => {
    const run = await mcpx(['call', 'every.get-annotated-message', 'messageType=sucess']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("did you mean 'success'?");
  });

  it('reads key=@file exactly, and a JSON object from stdin with -', slow, async () => {
    await writeFile(join(dir.path, 'digits.txt'), TWENTY);
    const target = join(dir.path, 'out.txt');
    const write = await mcpx(['call', 'fs.write_file', `path=${target}`, 'content=@digits.txt']);
    expect(write.stderr).toBe('');
    expect(write.code).toBe(0);
    expect(await readFile(target, 'utf8')).toBe(TWENTY);
    const read = await mcpx(['call', 'fs.read_text_file', '-'], JSON.stringify({ path: target }));
    expect(read.stderr).toBe('');
    expect(read.stdout).toBe(`${TWENTY}\n`);
  });

  it('mixes a JSON object (from stdin) with key=value pairs, which win', slow, async () => {
    const run = await mcpx(['call', 'wild.inspect_args', '-', 'count=2'], '{"id": "007", "count": 1}');
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout.split('\n')[0] ?? '')).toEqual({ id: '007', count: 2 });
  });

  it('sends a literal @ with @@, and says so when a file is missing', slow, async () => {
    const literal = await mcpx(['call', 'every.echo', 'message=@@home']);
    expect(literal.stdout).toBe('Echo: @home\n');
    const missing = await mcpx(['call', 'every.echo', 'message=@home']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cannot read 'home' for message=@home");
    expect(missing.stderr).toContain("to send the text '@home' itself, write message=@@home");
  });

  it('refuses invalid JSON on stdin with its position, and an inexact number in it', slow, async () => {
    const bad = await mcpx(['call', 'wild.inspect_args', '-'], '{"id": ');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('stdin is not valid JSON: expected a value but found the end at position 7');
    const token = await mcpx(['call', 'wild.inspect_args', '-'], '{"id": x}');
    expect(token.stderr).toContain("stdin is not valid JSON: expected a value but found 'x' at position 7");
    const lossy = await mcpx(['call', 'wild.inspect_args', '-'], `{"id": "x", "count": ${TWENTY}}`);
    expect(lossy.code).toBe(1);
    expect(lossy.stderr).toContain(`the number ${TWENTY} cannot be sent exactly`);
  });

  it('still calls when tools/list fails, with the rule without a schema and a notice', slow, async () => {
    const run = await mcpx(['call', 'flaky.add', 'a=2', 'b=3']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('5\n');
    expect(run.stderr).toContain("could not list flaky's tools");
    expect(run.stderr).toContain('arguments are sent as JSON where they parse, else as text');
  });
});

describe('a server whose first tools/list fails', () => {
  it('is asked again, so the call is still typed by the schema', slow, async () => {
    const run = await mcpx(['call', 'once.echo', 'message=9194137']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('9194137\n');
  });
});

describe('prompt arguments', () => {
  it('are sent exactly as typed (prompt arguments are strings), and may come from a file', slow, async () => {
    const typed = await mcpx(['prompt', 'wild.greeting', `name=${TWENTY}`]);
    expect(typed.stderr).toBe('');
    expect(typed.stdout).toContain(`greeting for ${TWENTY}.`);
    await writeFile(join(dir.path, 'who.txt'), '007');
    const fromFile = await mcpx(['prompt', 'wild.greeting', 'name=@who.txt']);
    expect(fromFile.stdout).toContain('greeting for 007.');
  });
});

describe('tool help', () => {
  it('shows the full signature of a hand-written schema', slow, async () => {
    const run = await mcpx(['tools', 'wild.inspect_args']);
    expect(run.stderr).toBe('');
    const out = run.stdout;
    expect(out).toContain('wild.inspect_args — Inspect arguments');
    expect(out).toContain('Usage: mcpx call wild.inspect_args id=<string> [count=<integer>]');
    expect(out).toMatch(/ id +string {2}\(required\)\n +An opaque identifier; digits stay digits/);
    expect(out).toMatch(/ count +integer {2}\(optional, default 10\)/);
    expect(out).toMatch(/ mode +"fast" \| "slow" {2}\(optional\)\n +How hard to try/);
    expect(out).toMatch(
      / window +object {2}\(optional\)\n +from +integer {2}\(required\)\n +to +integer {2}\(optional\)/,
    );
    expect(out).toMatch(/ tags +string\[\]/);
    expect(out).toMatch(/ ref +integer \| string/);
    expect(out).toMatch(/ note +string \| null/);
    expect(out).toMatch(/ limit +integer \| null/);
    expect(out).toMatch(/ level +1 \| 2 \| 3/);
    expect(out).toMatch(/Output:\n +received +object {2}\(required\)/);
    expect(out).toContain('Annotations: read-only, idempotent, closed world');
    expect(out).toContain('Example:\n  mcpx call wild.inspect_args id=text\n');
  });

  it("shows a real server's nested array items and annotations", slow, async () => {
    const run = await mcpx(['tools', 'fs.edit_file']);
    expect(run.stdout).toMatch(/ edits +object\[\] {2}\(required\)\n +oldText +string {2}\(required\)/);
    expect(run.stdout).toMatch(/ dryRun +boolean {2}\(optional, default false\)/);
    expect(run.stdout).toContain('Annotations: destructive');
  });

  it('suggests the tool meant', slow, async () => {
    const run = await mcpx(['tools', 'every.get-summ']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("did you mean 'get-sum'?");
  });

  it('`mcpx tools` prints full descriptions when piped and fits a terminal otherwise', slow, async () => {
    const piped = await mcpx(['tools', 'every']);
    const research = piped.stdout.split('\n').find((l) => l.includes('simulate-research-query('));
    expect(research).toMatch(/synthesizes information\..*clarification\.$/);
    const term = runInPty(['--config', config, 'tools', 'every'], {
      cwd: dir.path,
      home: join(dir.path, 'home'),
      cols: 70,
    });
    expect(await term.exited).toBe(0);
    const lines = term
      .text()
      .split('\n')
      .filter((l) => l.startsWith('  '));
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(70);
    expect(lines.some((l) => l.endsWith('…'))).toBe(true);
  });

  it('wraps the help of one tool to the terminal', slow, async () => {
    const term = runInPty(['--config', config, 'tools', 'fs.read_text_file'], {
      cwd: dir.path,
      home: join(dir.path, 'home'),
      cols: 50,
    });
    expect(await term.exited).toBe(0);
    const lines = term.text().trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(50);
    // Wrapped, not cut: the last words of the description are there.
    expect(term.text().replace(/\s+/g, ' ')).toContain('Only works within allowed directories.');
  });
});
