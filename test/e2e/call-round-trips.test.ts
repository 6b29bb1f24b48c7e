/**
 * `mcpx call` asks the server for its tool list only when the call needs it: `k=v` words are
 * typed by the tool's schema, JSON arguments are sent as they are. The list is still fetched
 * to explain a failed call (unknown tool, missing arguments), so those errors read as before.
 * `mcpx read` and `mcpx prompt` never need the tool list. A fixture server logs every method
 * it receives; the log is the round-trip count.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli, tempDir, testServerPath } from '../helpers/cli.js';

const fixture = fileURLToPath(new URL('../fixtures/method-log-server.mjs', import.meta.url));
let dir: { path: string; remove: () => Promise<void> };
let runs = 0;

beforeAll(async () => {
  dir = await tempDir('mcpx-round-trips-');
});
afterAll(() => dir.remove());

/** Run `mcpx call ...` against a fresh fixture server; returns the run and the methods it received. */
function call(words: string[], entry: Record<string, unknown> = {}, mode?: string) {
  return mcpx(['call', ...words], entry, mode);
}

/** Run `mcpx <args>` against a fresh fixture server named `logged`. */
async function mcpx(
  words: string[],
  entry: Record<string, unknown> = {},
  mode?: string,
): Promise<CliRun & { methods: string[] }> {
  runs += 1;
  const log = join(dir.path, `methods-${runs}.log`);
  const config = join(dir.path, `config-${runs}.json`);
  const args = mode ? [fixture, log, mode] : [fixture, log];
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { logged: { command: process.execPath, args, ...entry } } }),
  );
  const run = await runCli(['--config', config, ...words], {
    cwd: dir.path,
    home: join(dir.path, 'home'),
  });
  const methods = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { ...run, methods };
}

const requests = (methods: string[]) => methods.filter((m) => m.startsWith('tools/'));

describe('mcpx call and the tool list', () => {
  it('a JSON argument is sent without listing the tools first', async () => {
    const run = await call(['logged.echo', '{"message":"straight"}']);
    expect(run).toMatchObject({ code: 0, stdout: 'straight\n', stderr: '' });
    expect(requests(run.methods)).toEqual(['tools/call']);
  });

  it('a call with no arguments is sent without listing the tools first', async () => {
    const run = await call(['logged.hello']);
    expect(run).toMatchObject({ code: 0, stdout: 'hello\n', stderr: '' });
    expect(requests(run.methods)).toEqual(['tools/call']);
  });

  it('k=v words still list first, to type the values by the schema', async () => {
    const run = await call(['logged.add', 'a=2', 'b=3']);
    expect(run).toMatchObject({ code: 0, stdout: '5\n', stderr: '' });
    expect(requests(run.methods)).toEqual(['tools/list', 'tools/call']);
  });

  it.each([
    ['a JSON-RPC error', undefined],
    ['an isError result', '--tool-errors'],
  ])(
    'an unknown tool, refused with %s, gets its did-you-mean from the list fetched after',
    async (_, mode) => {
      const run = await call(['logged.ecko', '{"message":"x"}'], {}, mode);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain("'logged' has no tool named 'ecko' — did you mean 'echo'?");
      expect(requests(run.methods)).toEqual(['tools/call', 'tools/list']);
    },
  );

  it.each([
    ['a JSON-RPC error', undefined],
    ['an isError result', '--tool-errors'],
  ])('a missing argument, refused with %s, is named from the schema fetched after', async (_, mode) => {
    const run = await call(['logged.add', '{"a":1}'], {}, mode);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("wrong arguments for add: missing required argument 'b'");
    expect(requests(run.methods)).toEqual(['tools/call', 'tools/list']);
  });

  it('a tool error the list does not explain stands as the tool error (exit 5)', async () => {
    const run = await call(['logged.fail']);
    expect(run).toMatchObject({ code: 5, stdout: '', stderr: 'it broke\n' });
    expect(requests(run.methods)).toEqual(['tools/call', 'tools/list']);
  });

  it('a switched-off tool is refused by name before the server is asked anything', async () => {
    const run = await call(['logged.add', '{"a":1,"b":2}'], { disabled_tools: ['add'] });
    expect(run.code).toBe(6);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("'add' of 'logged' is switched off in the config");
    expect(requests(run.methods)).toEqual([]);
  });
});

describe('mcpx tools lists once', () => {
  it('the list made while connecting is the one printed, for every server and for one', async () => {
    for (const words of [['tools'], ['tools', 'logged'], ['tools', 'logged.echo']]) {
      const run = await mcpx(words);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain('echo');
      expect(requests(run.methods)).toEqual(['tools/list']);
    }
  });
});

describe('commands that need no tool definitions', () => {
  it('mcpx read asks for no tool list', async () => {
    const run = await mcpx(['read', 'logged', 'test://a']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('the text');
    expect(run.methods).toContain('resources/read');
    expect(requests(run.methods)).toEqual([]);
  });

  it('mcpx prompt asks for no tool list', async () => {
    const run = await mcpx(['prompt', 'logged.greet', 'name=Ada']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('hi Ada');
    expect(run.methods).toContain('prompts/get');
    expect(requests(run.methods)).toEqual([]);
  });
});

describe('a one-shot call on a 2026-07-28 server', () => {
  /** Run `mcpx <args>` against the SDK test server (it speaks 2026-07-28), logging its methods. */
  async function onTestServer(words: string[]): Promise<CliRun & { methods: string[] }> {
    runs += 1;
    const log = join(dir.path, `test-server-${runs}.log`);
    const config = join(dir.path, `test-server-${runs}.json`);
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          logged: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_METHOD_LOG: log } },
        },
      }),
    );
    const run = await runCli(['--config', config, ...words], { cwd: dir.path, home: join(dir.path, 'home') });
    const methods = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    return { ...run, methods };
  }

  it('does not subscribe to list changes (no subscriptions/listen to wait for)', async () => {
    const run = await onTestServer(['call', 'logged.echo', '{"message":"once"}']);
    expect(run).toMatchObject({ code: 0, stdout: 'once\n' });
    expect(run.methods).toContain('tools/call');
    expect(run.methods).not.toContain('subscriptions/listen');
    expect(run.methods).not.toContain('tools/list');
  });

  it('while other commands still do (the log sees the subscription)', async () => {
    const run = await onTestServer(['tools', 'logged']);
    expect(run.code).toBe(0);
    expect(run.methods).toContain('subscriptions/listen');
  });
});
