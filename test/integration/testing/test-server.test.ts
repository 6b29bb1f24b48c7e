// The shipped stdio test server, run as a real process (`node dist/testing/test-server.js`; build
// first). The well-behaved surface is driven through the SDK client; the misbehaviour modes through
// raw pipes, where exit codes, stderr and stray stdout bytes are visible.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Progress } from '@modelcontextprotocol/client';
import { Client, LOG_LEVEL_META_KEY } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import {
  descendantPids,
  isAlive,
  processGroupPids,
  readProcess,
  trackProcessTree,
  waitForExit,
} from '../../helpers/processes.js';

const serverPath = join(resolve(import.meta.dirname, '../../..'), 'dist/testing/test-server.js');
const builtinTools = [
  'echo',
  'get_time',
  'add',
  'slow_operation',
  'fail',
  'large_output',
  'add_tool',
  'env',
  'log',
  'touch_resource',
];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Connected {
  readonly client: Client;
  readonly pid: number;
}

async function connect(
  env: Record<string, string> = {},
  options: { mode?: 'auto'; listMaxPages?: number } = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverPath],
    env,
    stderr: 'pipe',
  });
  const client = new Client(
    { name: 'mcpx-tests', version: '0.0.0' },
    {
      ...(options.mode ? { versionNegotiation: { mode: options.mode } } : {}),
      ...(options.listMaxPages !== undefined ? { listMaxPages: options.listMaxPages } : {}),
    },
  );
  cleanups.push(() => client.close());
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('no pid after connect');
  return { client, pid };
}

function firstText(result: { content?: unknown }): string {
  const [block] = (result.content ?? []) as { type: string; text?: string }[];
  if (block?.type !== 'text' || block.text === undefined)
    throw new Error(`no text block in ${JSON.stringify(result)}`);
  return block.text;
}

/** A server on raw pipes: every stdout line and all stderr are kept. */
interface RawServer {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly stdoutLines: string[];
  stderr(): string;
  send(message: object): void;
  /** Resolves the first parsed stdout message matching `predicate`. */
  waitFor(
    predicate: (message: Record<string, unknown>) => boolean,
    ms?: number,
  ): Promise<Record<string, unknown>>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnRaw(env: Record<string, string> = {}, options: { detached?: boolean } = {}): RawServer {
  const child = spawn(process.execPath, [serverPath], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('spawn failed');
  const stdoutLines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    stdoutLines.push(...parts);
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.on('error', () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const parsed = () =>
    stdoutLines.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  return {
    child,
    pid,
    stdoutLines,
    stderr: () => stderr,
    send: (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`),
    exited,
    waitFor(predicate, ms = 5000) {
      return new Promise((resolvePromise, reject) => {
        const check = () => {
          const found = parsed().find(predicate);
          if (!found) return;
          cleanup();
          resolvePromise(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`no matching message in ${ms} ms; stdout: ${stdoutLines.join('\n').slice(0, 500)}`),
          );
        }, ms);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

const initialize = {
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};
const byId = (id: number) => (m: Record<string, unknown>) => m.id === id;

async function handshake(server: RawServer): Promise<void> {
  server.send(initialize);
  await server.waitFor(byId(0));
  server.send({ method: 'notifications/initialized' });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('mcpx-test-server: surface', () => {
  it('identifies itself and lists every built-in tool, each callable', async () => {
    const { client } = await connect({ MCPX_VISIBLE: 'yes' });
    expect(client.getServerVersion()?.name).toBe('mcpx-test-server');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(builtinTools);
    expect(tools.find((t) => t.name === 'add')?.outputSchema).toMatchObject({
      properties: { sum: { type: 'number' } },
    });

    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'hello' } }))).toBe('hello');
    const time = Date.parse(firstText(await client.callTool({ name: 'get_time', arguments: {} })));
    expect(Math.abs(time - Date.now())).toBeLessThan(60_000);
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3.5 } });
    expect(firstText(sum)).toBe('5.5');
    expect(sum.structuredContent).toEqual({ sum: 5.5 });
    expect(
      firstText(await client.callTool({ name: 'slow_operation', arguments: { steps: 2, delay_ms: 5 } })),
    ).toBe('completed 2 steps');
    const failed = await client.callTool({ name: 'fail', arguments: { message: 'boom' } });
    expect(failed.isError).toBe(true);
    expect(firstText(failed)).toBe('boom');
    expect(
      firstText(await client.callTool({ name: 'large_output', arguments: { bytes: 1_000_000 } })),
    ).toHaveLength(1_000_000);
    expect(firstText(await client.callTool({ name: 'env', arguments: { name: 'MCPX_VISIBLE' } }))).toBe(
      'yes',
    );
    expect(
      firstText(await client.callTool({ name: 'env', arguments: { name: 'MCPX_NOT_SET_ANYWHERE' } })),
    ).toBe('(unset)');
  });

  it('answers bad arguments with an error result and an unknown tool with a protocol error', async () => {
    const { client } = await connect();
    const bad = await client.callTool({ name: 'add', arguments: { a: 'one' } });
    expect(bad.isError).toBe(true);
    expect(firstText(bad)).toContain('Invalid arguments for add');
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool: nope/);
  });

  it('reports progress per step and honours cancellation', async () => {
    const { client } = await connect();
    const seen: Progress[] = [];
    const done = await client.callTool(
      { name: 'slow_operation', arguments: { steps: 4, delay_ms: 20 } },
      { onprogress: (p) => seen.push(p) },
    );
    expect(firstText(done)).toBe('completed 4 steps');
    // The SDK client drops a progress notification that arrives in the same read as the response
    // (typescript-sdk#2580), so the last step's may be missing; the server always sends it.
    expect(seen.map((p) => [p.progress, p.total]).slice(0, 3)).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
    ]);
    expect(seen.length).toBeLessThanOrEqual(4);

    const controller = new AbortController();
    const started = Date.now();
    const call = client.callTool(
      { name: 'slow_operation', arguments: { steps: 100, delay_ms: 50 } },
      { signal: controller.signal, onprogress: () => controller.abort() },
    );
    await expect(call).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'after' } }))).toBe('after');
  });

  it('logs each tool call at level info', async () => {
    const { client } = await connect();
    const logs: { level: string; data: unknown }[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params);
    });
    await client.callTool({ name: 'echo', arguments: { message: 'x' } });
    await expect
      .poll(() => logs)
      .toContainEqual(expect.objectContaining({ level: 'info', data: 'tool echo called' }));
  });

  it('serves the four resources, the users template and reads both', async () => {
    const { client } = await connect();
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ['test://readme.txt', 'text/plain'],
      ['test://config.json', 'application/json'],
      ['test://users.csv', 'text/csv'],
      ['test://counter', 'text/plain'],
    ]);
    for (const r of resources) {
      const { contents } = await client.readResource({ uri: r.uri });
      expect(contents[0]).toMatchObject({ uri: r.uri, mimeType: r.mimeType, text: expect.any(String) });
    }
    const config = await client.readResource({ uri: 'test://config.json' });
    expect(JSON.parse((config.contents[0] as { text: string }).text)).toMatchObject({
      name: 'mcpx-test-server',
    });

    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['test://users/{id}']);
    const user = await client.readResource({ uri: 'test://users/2' });
    expect(JSON.parse((user.contents[0] as { text: string }).text)).toMatchObject({
      id: '2',
      name: 'Alan Turing',
    });
    await expect(client.readResource({ uri: 'test://users/99' })).rejects.toThrow();
  });

  it('serves the three prompts and completes code_review languages', async () => {
    const { client } = await connect();
    const { prompts } = await client.listPrompts();
    expect(
      prompts.map((p) => [p.name, p.arguments?.map((a) => `${a.name}${a.required ? '' : '?'}`)]),
    ).toEqual([
      ['greeting', ['name', 'formal?']],
      ['code_review', ['code', 'language', 'focus?']],
      ['summarize', ['text', 'max_length?']],
    ]);
    const greeting = await client.getPrompt({ name: 'greeting', arguments: { name: 'Ada' } });
    expect(greeting.messages[0]?.content).toMatchObject({
      type: 'text',
      text: expect.stringContaining('Ada'),
    });
    const review = await client.getPrompt({
      name: 'code_review',
      arguments: { code: 'x = 1', language: 'python' },
    });
    expect(review.messages[0]?.content).toMatchObject({ text: expect.stringContaining('python code') });
    const summary = await client.getPrompt({ name: 'summarize', arguments: { text: 'long story' } });
    expect(summary.messages[0]?.content).toMatchObject({ text: expect.stringContaining('long story') });
    await expect(client.getPrompt({ name: 'greeting', arguments: {} })).rejects.toThrow(/needs: name/);

    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'code_review' },
      argument: { name: 'language', value: 'ty' },
    });
    expect(completion.completion.values).toEqual(['typescript']);
  });

  it("takes seed 003's optional prompt arguments: greeting formal, code_review focus, summarize max_length", async () => {
    const { client } = await connect();
    const said = async (name: string, args: Record<string, string>) => {
      const [message] = (await client.getPrompt({ name, arguments: args })).messages;
      return message?.content.type === 'text' ? message.content.text : undefined;
    };
    expect(await said('greeting', { name: 'Ada', formal: 'true' })).toBe(
      'Please write a short, formal greeting for Ada.',
    );
    expect(await said('greeting', { name: 'Ada', formal: 'false' })).toBe(
      'Please write a short, friendly greeting for Ada.',
    );
    expect(await said('code_review', { code: 'x = 1', language: 'python', focus: 'security' })).toBe(
      'Please review this python code, focusing on security:\n\nx = 1',
    );
    expect(await said('summarize', { text: 'long story', max_length: '50' })).toBe(
      'Please summarize the following text in at most 50 words:\n\nlong story',
    );
    await expect(said('summarize', { text: 'long story', max_length: 'short' })).rejects.toThrow(
      /max_length must be a whole number of words, got "short"/,
    );
  });

  it("takes seed 003's slow_operation(duration, steps): the duration in seconds, spread over the steps", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'slow_operation')?.inputSchema.properties).toMatchObject({
      duration: { type: 'number' },
      steps: { type: 'integer' },
    });
    const steps: number[] = [];
    const started = performance.now();
    const done = await client.callTool(
      { name: 'slow_operation', arguments: { duration: 0.9, steps: 3 } },
      { onprogress: (p) => steps.push(p.progress) },
    );
    // Three steps of 300 ms, not the three of 100 ms (delay_ms's default) an ignored duration leaves.
    expect(performance.now() - started).toBeGreaterThanOrEqual(850);
    expect(firstText(done)).toBe('completed 3 steps');
    expect(steps.slice(0, 2)).toEqual([1, 2]);
  });

  it('paginates 250 extra tools at 7 per page; the client aggregates all pages', async () => {
    const { client } = await connect({ MCP_TOOL_COUNT: '250', MCP_PAGE_SIZE: '7' });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toHaveLength(250 + builtinTools.length);
    expect(new Set(names).size).toBe(250 + builtinTools.length);
    expect(names.slice(0, builtinTools.length)).toEqual(builtinTools);
    expect(names[builtinTools.length]).toBe('tool_0001');
    expect(names.at(-1)).toBe('tool_0250');
    expect(firstText(await client.callTool({ name: 'tool_0042', arguments: { message: 'm' } }))).toBe('m');

    const first = await client.request({ method: 'tools/list', params: {} });
    expect(first.tools).toHaveLength(7);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listTools({ cursor: first.nextCursor });
    expect(second.tools.map((t) => t.name)).toEqual([
      'env',
      'log',
      'touch_resource',
      'tool_0001',
      'tool_0002',
      'tool_0003',
      'tool_0004',
    ]);
    await expect(client.listTools({ cursor: 'not-a-cursor' })).rejects.toThrow(/Invalid cursor/);
  });

  it('paginates resources and prompts too', async () => {
    const { client } = await connect({ MCP_PAGE_SIZE: '2' });
    expect((await client.listResources()).resources).toHaveLength(4);
    expect((await client.listPrompts()).prompts).toHaveLength(3);
    const page = await client.request({ method: 'prompts/list', params: {} });
    expect(page.prompts).toHaveLength(2);
    expect(page.nextCursor).toEqual(expect.any(String));
  });

  it('speaks 2025-11-25 to a default client and 2026-07-28 to an auto-negotiating one', async () => {
    const legacy = await connect();
    expect(legacy.client.getProtocolEra()).toBe('legacy');
    expect(legacy.client.getNegotiatedProtocolVersion()).toBe('2025-11-25');

    const modern = await connect({ MCP_TOOL_COUNT: '20', MCP_PAGE_SIZE: '7' }, { mode: 'auto' });
    expect(modern.client.getProtocolEra()).toBe('modern');
    expect(modern.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await modern.client.listTools()).tools).toHaveLength(20 + builtinTools.length);
    const seen: Progress[] = [];
    const done = await modern.client.callTool(
      { name: 'slow_operation', arguments: { steps: 3, delay_ms: 20 } },
      { onprogress: (p) => seen.push(p) },
    );
    expect(firstText(done)).toBe('completed 3 steps');
    expect(seen.map((p) => p.progress).slice(0, 2)).toEqual([1, 2]); // the last may race (typescript-sdk#2580)
    const sum = await modern.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    expect(sum.structuredContent).toEqual({ sum: 2 });
    expect((await modern.client.listResourceTemplates()).resourceTemplates).toHaveLength(1);

    // 2026-07-28 has no logging/setLevel: a request opts into log messages through its _meta envelope.
    await expect(modern.client.setLoggingLevel('debug')).rejects.toThrow(/not supported/);
    const logs: unknown[] = [];
    modern.client.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params.data);
    });
    await modern.client.callTool({ name: 'echo', arguments: { message: 'quiet' } });
    await modern.client.callTool({
      name: 'echo',
      arguments: { message: 'loud' },
      _meta: { [LOG_LEVEL_META_KEY]: 'info' },
    });
    await expect.poll(() => logs).toEqual(['tool echo called']);
  });

  it('exits promptly when its stdin closes', async () => {
    const server = spawnRaw();
    await handshake(server);
    server.child.stdin?.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('answers a line that is not JSON with -32700 Parse error (id null), and goes on serving', async () => {
    const server = spawnRaw();
    server.child.stdin?.write('this is not json\n');
    const error = await server.waitFor((m) => m.id === null);
    expect(error).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    await handshake(server);
    // A message cut in two inside a multi-byte character is still one message, not garbage.
    const call = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'still €' } } })}\n`,
    );
    const cut = call.indexOf(Buffer.from('€')) + 1;
    server.child.stdin?.write(call.subarray(0, cut));
    await sleep(50);
    server.child.stdin?.write(call.subarray(cut));
    const reply = await server.waitFor(byId(1));
    expect(reply.result).toMatchObject({ content: [{ type: 'text', text: 'still €' }] });
    expect(server.stdoutLines.filter((line) => line.includes('-32700'))).toHaveLength(1);
  });

  it('refuses an unknown fault mode, naming the known ones', async () => {
    const server = spawnRaw({ MCPX_TEST_FAULT: 'crash-mid-call,explode' });
    expect((await server.exited).code).toBe(2);
    expect(server.stderr()).toMatch(/unknown MCPX_TEST_FAULT mode explode \(known: crash-mid-call, /);
  });
});

describe('mcpx-test-server: misbehaviour modes', () => {
  it('crash-mid-call: the first tools/call writes to stderr and exits 3', async () => {
    const server = spawnRaw({ MCPX_TEST_FAULT: 'crash-mid-call' });
    await handshake(server);
    server.send({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' } } });
    expect(await server.exited).toEqual({ code: 3, signal: null });
    expect(server.stderr()).toContain('fatal: simulated crash');
    expect(server.stdoutLines.some((l) => l.includes('"id":1'))).toBe(false);
  });

  it('crash-mid-call through the SDK client: the call fails', async () => {
    const { client } = await connect({ MCPX_TEST_FAULT: 'crash-mid-call' });
    await expect(client.callTool({ name: 'echo', arguments: { message: 'x' } })).rejects.toThrow();
  });

  it('hang-before-initialize: reads but never answers, and still exits when stdin closes', async () => {
    const server = spawnRaw({ MCPX_TEST_FAULT: 'hang-before-initialize' });
    server.send(initialize);
    await expect(server.waitFor(byId(0), 700)).rejects.toThrow(/no matching message/);
    expect(server.stdoutLines).toEqual([]);
    server.child.stdin?.end();
    expect((await server.exited).code).toBe(0);
  });

  it('garbage-stdout: non-JSON lines among valid messages, and the server still works', async () => {
    const server = spawnRaw({ MCPX_TEST_FAULT: 'garbage-stdout' });
    await handshake(server);
    server.send({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'fine' } } });
    const reply = await server.waitFor(byId(1));
    expect(reply.result).toMatchObject({ content: [{ type: 'text', text: 'fine' }] });
    expect(server.stdoutLines[0]).toBe('this is not json');
    expect(server.stdoutLines).toContain('this is not json either');

    const { client } = await connect({ MCPX_TEST_FAULT: 'garbage-stdout' });
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'sdk' } }))).toBe('sdk');
  });

  it('huge-line: one line of MCPX_TEST_HUGE_LINE_BYTES bytes before the echo result', async () => {
    const bytes = 3 * 1024 * 1024;
    const server = spawnRaw({ MCPX_TEST_FAULT: 'huge-line', MCPX_TEST_HUGE_LINE_BYTES: String(bytes) });
    await handshake(server);
    server.send({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'after' } } });
    const reply = await server.waitFor(byId(1), 10_000);
    expect(reply.result).toMatchObject({ content: [{ text: 'after' }] });
    const huge = server.stdoutLines.find((l) => l.length > 1024 * 1024);
    expect(huge).toBeDefined();
    expect(Buffer.byteLength(`${huge}\n`)).toBe(bytes);
    expect(huge?.startsWith('{"jsonrpc":"2.0"')).toBe(true);
  });

  it('huge-line: the default 20 MB line overflows the SDK client buffer', async () => {
    const { client } = await connect({ MCPX_TEST_FAULT: 'huge-line' });
    await expect(
      client.callTool({ name: 'echo', arguments: { message: 'x' } }, { timeout: 10_000 }),
    ).rejects.toThrow();
  });

  it('stderr-exit: 30 noise lines, the API key hint, exit 1 before answering', async () => {
    const server = spawnRaw({ MCPX_TEST_FAULT: 'stderr-exit' });
    server.send(initialize);
    expect(await server.exited).toEqual({ code: 1, signal: null });
    const lines = server.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(31);
    expect(lines[0]).toBe('noise line 1');
    expect(lines[29]).toBe('noise line 30');
    expect(lines[30]).toBe('Error: API key missing: set EXAMPLE_API_KEY');
    expect(server.stdoutLines).toEqual([]);
  });

  it('grandchild: a grandchild in the server process group, announced on stderr', async () => {
    const server = spawnRaw({ MCPX_TEST_FAULT: 'grandchild' }, { detached: true });
    await handshake(server);
    const match = /grandchild pid (\d+)/.exec(server.stderr());
    const grandchild = Number(match?.[1]);
    expect(isAlive(grandchild)).toBe(true);
    expect(readProcess(grandchild)?.ppid).toBe(server.pid);
    expect(descendantPids(server.pid)).toContain(grandchild);
    expect(processGroupPids(server.pid).sort()).toEqual([server.pid, grandchild].sort());
    server.send({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'ok' } } });
    expect((await server.waitFor(byId(1))).result).toMatchObject({ content: [{ text: 'ok' }] });

    process.kill(-server.pid, 'SIGKILL'); // the whole group, as mcpx's shutdown must
    expect(await waitForExit(grandchild, 2000)).toBe(true);
  });

  it('grandchild: the leak tracker still finds a grandchild orphaned by its parent', async () => {
    const tracker = trackProcessTree(process.pid, 20);
    cleanups.push(() => tracker.stop());
    const server = spawnRaw({ MCPX_TEST_FAULT: 'grandchild' });
    await handshake(server);
    const grandchild = Number(/grandchild pid (\d+)/.exec(server.stderr())?.[1]);
    cleanups.push(() => {
      if (isAlive(grandchild)) process.kill(grandchild, 'SIGKILL');
    });
    tracker.sample();
    server.child.kill('SIGKILL');
    await server.exited;
    await expect.poll(() => readProcess(grandchild)?.ppid).not.toBe(server.pid);
    expect(descendantPids(process.pid)).not.toContain(grandchild);
    expect(tracker.alive().map((p) => p.pid)).toContain(grandchild);
    process.kill(grandchild, 'SIGKILL');
    expect(await waitForExit(grandchild, 2000)).toBe(true);
    expect(tracker.alive()).toEqual([]);
  });

  it('ignore-sigterm: survives SIGTERM and stdin closing, only SIGKILL ends it', async () => {
    const server = spawnRaw({ MCPX_TEST_FAULT: 'ignore-sigterm' });
    await handshake(server);
    server.child.kill('SIGTERM');
    server.send({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'still' } } });
    expect((await server.waitFor(byId(1))).result).toMatchObject({ content: [{ text: 'still' }] });
    server.child.stdin?.end();
    await sleep(800);
    expect(isAlive(server.pid)).toBe(true);
    server.child.kill('SIGKILL');
    expect((await server.exited).signal).toBe('SIGKILL');
  });

  it('grandchild,ignore-sigterm combine', async () => {
    const server = spawnRaw({ MCPX_TEST_FAULT: 'grandchild,ignore-sigterm' }, { detached: true });
    await handshake(server);
    const grandchild = Number(/grandchild pid (\d+)/.exec(server.stderr())?.[1]);
    process.kill(-server.pid, 'SIGTERM');
    await sleep(300);
    expect(isAlive(server.pid)).toBe(true);
    expect(isAlive(grandchild)).toBe(false); // a plain node process does die on SIGTERM
    process.kill(-server.pid, 'SIGKILL');
    expect((await server.exited).signal).toBe('SIGKILL');
  });

  it('slow-start: answers initialize only after MCPX_TEST_SLOW_START_MS', async () => {
    const server = spawnRaw({ MCPX_TEST_FAULT: 'slow-start', MCPX_TEST_SLOW_START_MS: '600' });
    const started = Date.now();
    server.send(initialize);
    await server.waitFor(byId(0));
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
  });

  it('slow-start with a method log: answers what was sent while it started, and logs it', async () => {
    const dir = await tempDir('mcpx-test-server-');
    cleanups.push(dir.remove);
    const log = join(dir.path, 'methods.log');
    const server = spawnRaw({
      MCPX_TEST_FAULT: 'slow-start',
      MCPX_TEST_SLOW_START_MS: '600',
      MCPX_TEST_METHOD_LOG: log,
    });
    server.send(initialize);
    expect((await server.waitFor(byId(0))).result).toMatchObject({ serverInfo: expect.any(Object) });
    expect((await readFile(log, 'utf8')).split('\n')).toContain('initialize');
  });

  it('stderr-noise: a stderr line every 50 ms while serving normally', async () => {
    const { client } = await connect({ MCPX_TEST_FAULT: 'stderr-noise' });
    const raw = spawnRaw({ MCPX_TEST_FAULT: 'stderr-noise' });
    await handshake(raw);
    await sleep(400);
    expect(raw.stderr().match(/stderr noise \d+/g)?.length).toBeGreaterThanOrEqual(4);
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'quiet' } }))).toBe('quiet');
  });

  it('list-fails-once: the first tools/list is an internal error, the next works', async () => {
    const server = spawnRaw({ MCPX_TEST_FAULT: 'list-fails-once' });
    await handshake(server);
    server.send({ id: 1, method: 'tools/list', params: {} });
    expect((await server.waitFor(byId(1))).error).toMatchObject({
      code: -32603,
      message: expect.stringContaining('simulated'),
    });
    server.send({ id: 2, method: 'tools/list', params: {} });
    expect((await server.waitFor(byId(2))).result).toMatchObject({ tools: expect.any(Array) });

    const { client } = await connect({ MCPX_TEST_FAULT: 'list-fails-once' });
    await expect(client.listTools()).rejects.toThrow();
    expect((await client.listTools()).tools).toHaveLength(builtinTools.length);
  });
});

describe('test server schema and listing modes', () => {
  it('tools-list-fails: every tools/list fails while tools/call works', async () => {
    const { client } = await connect({ MCPX_TEST_FAULT: 'tools-list-fails' });
    await expect(client.listTools()).rejects.toThrow(/tools-list-fails/);
    await expect(client.listTools()).rejects.toThrow(/tools-list-fails/);
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'still' } }))).toBe('still');
  });

  it('wild-schemas: lists inspect_args with its hand-written schema and answers with what it got', async () => {
    const { client } = await connect({ MCPX_TEST_FAULT: 'wild-schemas' });
    const tool = (await client.listTools()).tools.find((t) => t.name === 'inspect_args');
    expect(tool?.inputSchema).toMatchObject({ definitions: { Mode: { enum: ['fast', 'slow'] } } });
    const args = { id: '12345678901234567890', note: null, window: { from: 1 } };
    expect(JSON.parse(firstText(await client.callTool({ name: 'inspect_args', arguments: args })))).toEqual(
      args,
    );
  });
});
