/**
 * The stdio fast path of `mcpx serve` (gateway/fast-path.ts): a plain `tools/call`
 * skips the SDK hops, and its answers are the full path's, byte for byte. A raw
 * line client talks to the built CLI twice, once as it is and once with
 * `MCPX_GATEWAY_FAST_PATH=0`, and `--verbose` says how many calls took the fast path.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const backendPath = join(repoRoot, 'dist/testing/conformance-backend.js');

type Message = { id?: unknown; method?: string; [key: string]: unknown };

interface LineClient {
  /** Send a request and wait for its reply. */
  request(id: number, method: string, params?: unknown): Promise<Message>;
  send(message: Message): void;
  /** Every line received so far, parsed. */
  readonly received: Message[];
  /** End stdin and wait for the exit; resolves with all of stderr. */
  close(): Promise<string>;
}

let world: GatewayWorld;
let cancelLog: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  world = await gatewayWorld({});
  cancelLog = join(world.dir, 'cancel.log');
});

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
});

afterAll(async () => {
  await world?.close();
});

async function useConfig(permission: string): Promise<void> {
  await writeFile(
    world.configFile,
    JSON.stringify({
      permission,
      mcpServers: {
        backend: { protocol: 'legacy', command: process.execPath, args: [backendPath] },
        hasty: { protocol: 'legacy', command: process.execPath, args: [testServerPath], request_timeout: 1 },
        // The fast path joins peers of one era: the client below speaks 2025-11-25, so does this.
        local: {
          protocol: 'legacy',
          command: process.execPath,
          args: [testServerPath],
          env: { MCPX_TEST_CANCEL_LOG: cancelLog },
        },
      },
    }),
  );
}

/**
 * `mcpx --verbose serve ARGS` on stdio, the fast path on or off, after a 2025-11-25
 * handshake; `answer` answers the gateway's requests (declared as elicitation).
 */
async function serve(
  fast: boolean,
  args: readonly string[],
  answer?: (request: Message) => unknown,
): Promise<LineClient> {
  const child = spawn(
    process.execPath,
    [cliPath, '--config', world.configFile, '--verbose', 'serve', ...args],
    {
      cwd: world.dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: world.home,
        MCPX_HOME: join(world.home, '.mcpx'),
        ...(fast ? {} : { MCPX_GATEWAY_FAST_PATH: '0' }),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const received: Message[] = [];
  const waiting = new Map<unknown, (message: Message) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Message;
    received.push(message);
    if (message.method === undefined) waiting.get(message.id)?.(message);
    else if (message.id !== undefined && answer) send({ id: message.id, result: answer(message) });
  });
  const send = (message: Message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const client: LineClient = {
    received,
    send,
    request: (id, method, params) =>
      new Promise((resolve) => {
        waiting.set(id, resolve);
        send({ id, method, ...(params === undefined ? {} : { params }) });
      }),
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
      return stderr;
    },
  };
  await client.request(0, 'initialize', {
    protocolVersion: '2025-11-25',
    capabilities: answer ? { elicitation: { form: {} } } : {},
    clientInfo: { name: 'line-client', version: '0' },
  });
  send({ method: 'notifications/initialized' });
  return client;
}

const fastCalls = (stderr: string): number => {
  const match = /(\d+) call\(s\) took the fast path/.exec(stderr);
  if (!match) throw new Error(`no fast path count in stderr:\n${stderr}`);
  return Number(match[1]);
};

/** The replies and notifications of a session, without what differs run to run. */
const comparable = (messages: readonly Message[]) =>
  messages
    .filter((m) => m.id !== 0) // initialize: the same, but carries the server's version
    .map((m) => JSON.stringify(m))
    .sort();

describe('mcpx serve --server on stdio, fast path', () => {
  it('takes plain calls and answers each one as the full path does, byte for byte', async () => {
    await useConfig('yolo');
    const transcripts: Record<string, { messages: Message[]; calls: number }> = {};
    for (const fast of [true, false]) {
      const client = await serve(fast, ['--server', 'local']);
      let id = 1;
      const call = (name: string, args?: unknown) =>
        client.request(id++, 'tools/call', { name, ...(args === undefined ? {} : { arguments: args }) });
      await call('echo', { message: 'hello' });
      await call('echo', { message: 'x'.repeat(5_000) });
      await call('add', { a: 20, b: 22 });
      await call('fail', { message: 'it failed' });
      await call('echo', { message: 5 }); // the server refuses its arguments
      await call('echo'); // no arguments at all
      await call('log', { message: 'logged' });
      await call('no_such_tool', {}); // unknown: the full path, both times
      await call('echo', { message: 'extra', extra: true });
      const stderr = await client.close();
      transcripts[String(fast)] = { messages: [...client.received], calls: fastCalls(stderr) };
    }
    const { true: fast, false: full } = transcripts as Record<
      'true' | 'false',
      { messages: Message[]; calls: number }
    >;
    expect(full.calls).toBe(0);
    expect(fast.calls).toBeGreaterThanOrEqual(6);
    expect(comparable(fast.messages)).toEqual(comparable(full.messages));
    expect(fast.messages.find((m) => m.id === 1)).toMatchObject({ result: { content: [{ text: 'hello' }] } });
  });

  it("an upstream that does not answer in time: the fast path's error is the full path's", async () => {
    await useConfig('yolo');
    const replies: Message[] = [];
    const counts: number[] = [];
    for (const fast of [true, false]) {
      const client = await serve(fast, ['--server', 'hasty']);
      replies.push(
        await client.request(1, 'tools/call', {
          name: 'slow_operation',
          arguments: { steps: 40, delay_ms: 100 },
        }),
      );
      counts.push(fastCalls(await client.close()));
    }
    expect(counts).toEqual([1, 0]);
    expect(replies[0]).toMatchObject({ error: { code: -32603 } });
    expect(JSON.stringify(replies[0])).toMatch(/timed out|did not answer|1 s/i);
    expect(replies[0]).toEqual(replies[1]);
  });

  it('a call the permission policy would put to a person takes the full path and is refused there', async () => {
    await useConfig('trusted');
    const client = await serve(true, ['--server', 'local']);
    // A read-only tool of a server in the user's own config runs unasked (issue 25): fast.
    const echo = await client.request(1, 'tools/call', { name: 'echo', arguments: { message: 'ok' } });
    expect(echo).toMatchObject({ result: { content: [{ type: 'text', text: 'ok' }] } });
    // add_tool changes the server: 'trusted' asks a person, and the gateway has nobody to ask.
    const refused = await client.request(2, 'tools/call', { name: 'add_tool', arguments: { name: 'no' } });
    expect(refused).toMatchObject({ result: { isError: true } });
    expect(JSON.stringify(refused)).toContain("mcpx refused 'add_tool' of 'local'");
    expect(fastCalls(await client.close())).toBe(1);
  });

  it('a cancelled fast call reaches the server as a cancellation and gets no answer', async () => {
    await useConfig('yolo');
    await writeFile(cancelLog, '');
    const client = await serve(true, ['--server', 'local']);
    client.send({
      id: 7,
      method: 'tools/call',
      params: { name: 'slow_operation', arguments: { steps: 100, delay_ms: 100 } },
    });
    await delay(300);
    client.send({ method: 'notifications/cancelled', params: { requestId: 7, reason: 'changed my mind' } });
    for (let i = 0; i < 100 && !(await readFile(cancelLog, 'utf8')).includes('cancelled'); i++)
      await delay(50);
    expect(await readFile(cancelLog, 'utf8')).toContain('slow_operation cancelled');
    // The next call is answered; the cancelled one never is.
    const after = await client.request(8, 'tools/call', { name: 'echo', arguments: { message: 'after' } });
    expect(after).toMatchObject({ result: { content: [{ text: 'after' }] } });
    await delay(200);
    expect(client.received.some((m) => m.id === 7)).toBe(false);
    expect(fastCalls(await client.close())).toBe(2);
  });

  it("the server's question during a fast call goes to the client, as on the full path", async () => {
    await useConfig('yolo');
    const seen: Record<string, { question: unknown; reply: Message; calls: number }> = {};
    for (const fast of [true, false]) {
      const questions: Message[] = [];
      const client = await serve(fast, ['--server', 'backend'], (request) => {
        questions.push(request);
        return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
      });
      const reply = await client.request(1, 'tools/call', {
        name: 'test_elicitation',
        arguments: { message: 'who?' },
      });
      seen[String(fast)] = { question: questions[0], reply, calls: fastCalls(await client.close()) };
    }
    expect(seen.true?.calls).toBe(1);
    expect(seen.false?.calls).toBe(0);
    expect(seen.true?.question).toMatchObject({ method: 'elicitation/create' });
    expect(seen.true?.question).toEqual(seen.false?.question);
    expect(JSON.stringify(seen.true?.reply)).toContain('ada@example.com');
    expect(seen.true?.reply).toEqual(seen.false?.reply);
  });
});
