import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';
import { buildServerEnv, StdioTransport, type StdioTransportOptions } from '../../../src/transport/index.js';
import { isAlive, processGroupPids, waitForExit } from '../../helpers/processes.js';

const fixture = fileURLToPath(new URL('../../fixtures/stdio-server.mjs', import.meta.url));
const memoryServer = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url),
);

interface Harness {
  readonly transport: StdioTransport;
  readonly messages: JSONRPCMessage[];
  readonly errors: Error[];
  readonly closed: () => number;
  /** Resolves with the first message `match` accepts (already received or still to come). */
  waitFor(match: (message: JSONRPCMessage) => boolean): Promise<JSONRPCMessage>;
  /** Resolves when onclose has fired. */
  whenClosed(): Promise<void>;
}

const open: StdioTransport[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

function harness(mode: string[] | string, extra: Partial<StdioTransportOptions> = {}): Harness {
  const transport = new StdioTransport({
    command: process.execPath,
    args: [fixture, ...(Array.isArray(mode) ? mode : [mode])],
    env: buildServerEnv({ hostEnv: process.env }),
    serverName: 'fixture',
    closeGraceMs: 300,
    killGraceMs: 300,
    ...extra,
  });
  open.push(transport);
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  const waiters = new Set<() => void>();
  let closes = 0;
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  transport.onmessage = (message) => {
    messages.push(message);
    wake();
  };
  transport.onerror = (error) => errors.push(error);
  transport.onclose = () => {
    closes++;
    wake();
  };
  const until = <T>(check: () => T | undefined, what: string) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`timed out waiting for ${what}`));
      }, 15_000);
      const waiter = () => {
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve(value);
      };
      waiters.add(waiter);
      waiter();
    });
  return {
    transport,
    messages,
    errors,
    closed: () => closes,
    waitFor: (match) => until(() => messages.find(match), 'a message'),
    whenClosed: () => until(() => (closes > 0 ? true : undefined), 'onclose').then(() => {}),
  };
}

const request = (id: number, params: Record<string, unknown> = {}): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'fixture/echo',
  params,
});
const isResponse = (id: number) => (m: JSONRPCMessage) => 'id' in m && m.id === id && 'result' in m;
const isNotification = (method: string) => (m: JSONRPCMessage) => 'method' in m && m.method === method;

describe('StdioTransport with real processes', () => {
  it('round-trips a JSON-RPC message', async () => {
    const h = harness('echo');
    await h.transport.start();
    expect(h.transport.pid).toBeGreaterThan(0);
    expect(h.transport.sessionId).toBeUndefined();
    await h.transport.send(request(1, { hello: 'wörld' }));
    const reply = await h.waitFor(isResponse(1));
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, result: { echo: { hello: 'wörld' } } });
    await h.transport.close();
    expect(h.closed()).toBe(1);
    expect(h.errors).toEqual([]);
    expect(h.transport.closeReason()).toBeUndefined();
    // The echo server exits by itself when stdin closes.
    expect(h.transport.exitInfo()).toEqual({ code: 0, signal: null });
  });

  it('accepts CRLF-terminated output', async () => {
    const h = harness('crlf');
    await h.transport.start();
    await h.transport.send(request(7, { n: 7 }));
    expect(await h.waitFor(isResponse(7))).toEqual({ jsonrpc: '2.0', id: 7, result: { echo: { n: 7 } } });
  });

  it('reports a garbage line through onInvalidLine while valid messages still flow', async () => {
    const invalid: string[] = [];
    const h = harness('garbage', { onInvalidLine: (line) => invalid.push(line) });
    await h.transport.start();
    await h.transport.send(request(1));
    await h.transport.send(request(2));
    await h.waitFor(isResponse(2));
    expect(h.messages.filter((m) => 'id' in m)).toHaveLength(2);
    expect(invalid).toHaveLength(2);
    expect(invalid[0]).toMatch(/^this is not json: \d+$/);
    expect(h.errors).toEqual([]);
    expect(h.closed()).toBe(0);
  });

  it('without onInvalidLine, reports a garbage line through onerror (never dropped silently)', async () => {
    const h = harness('garbage');
    await h.transport.start();
    await h.transport.send(request(1));
    await h.waitFor(isResponse(1));
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0]).toBeInstanceOf(McpxError);
    expect((h.errors[0] as McpxError).code).toBe(ErrorCode.InvalidServerOutput);
    expect(h.errors[0]?.message).toContain('this is not json');
  });

  it('refuses a 20 MB line with one MessageTooLarge error, closes, and keeps memory bounded', async () => {
    const before = process.memoryUsage().rss;
    const h = harness(['huge', String(20 * 1024 * 1024)]);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      await h.transport.start();
      const pid = h.transport.pid as number;
      await h.whenClosed();
      expect(h.errors).toHaveLength(1);
      const error = h.errors[0] as McpxError;
      expect(error.code).toBe(ErrorCode.MessageTooLarge);
      expect(error.message).toContain('10 MB');
      expect(error.fixes.join(' ')).toContain('max_line_bytes');
      expect(h.transport.closeReason()).toBe(error);
      expect(h.closed()).toBe(1);
      expect(h.messages).toEqual([]);
      expect(isAlive(pid)).toBe(false);
      await expect(h.transport.send(request(1))).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(peak - before).toBeLessThan(3 * 10 * 1024 * 1024);
  });

  it('delivers a line just under a raised limit', async () => {
    const h = harness(['huge', String(3 * 1024 * 1024)], { maxLineBytes: 3 * 1024 * 1024 });
    await h.transport.start();
    const message = await h.waitFor(isNotification('fixture/huge'));
    expect(JSON.stringify(message)).toHaveLength(3 * 1024 * 1024);
    expect(h.errors).toEqual([]);
  });

  it('turns a crash into ServerCrashed with exit code, stderr tail and hints', async () => {
    const stderrLines: string[] = [];
    const h = harness('crash', { serverName: 'weather', onStderrLine: (line) => stderrLines.push(line) });
    await h.transport.start();
    await h.whenClosed();
    expect(h.errors).toHaveLength(1);
    const error = h.errors[0] as McpxError;
    expect(error).toBeInstanceOf(McpxError);
    expect(error.code).toBe(ErrorCode.ServerCrashed);
    expect(error.message).toBe("server 'weather' exited with code 3");
    expect(error.context.exitCode).toBe(3);
    expect(error.context.server).toBe('weather');
    expect(error.context.stderrTail).toEqual([
      'starting weather server v1.2',
      'Error: WEATHER_API_KEY is not set (an API key is required)',
      '    at main (/srv/weather/index.js:12:11)',
    ]);
    expect(error.causes[0]).toMatch(/credential/);
    expect(error.fixes[0]).toContain('WEATHER_API_KEY');
    expect(error.fixes[0]).toContain('`env`');
    expect(h.transport.stderrTail()).toEqual(error.context.stderrTail);
    expect(stderrLines).toEqual(error.context.stderrTail);
    expect(h.transport.exitInfo()).toEqual({ code: 3, signal: null });
    expect(h.transport.closeReason()).toBe(error);
    expect(h.closed()).toBe(1);
    await h.transport.close();
    expect(h.closed()).toBe(1);
  });

  it('keeps only the last stderrTailLines lines', async () => {
    const h = harness('crash', { stderrTailLines: 2 });
    await h.transport.start();
    await h.whenClosed();
    expect(h.transport.stderrTail()).toEqual([
      'Error: WEATHER_API_KEY is not set (an API key is required)',
      '    at main (/srv/weather/index.js:12:11)',
    ]);
  });

  it('a write that breaks the pipe (EPIPE) rejects with the crash that broke it, not the write error', async () => {
    // Closes its stdin (writes to it fail with EPIPE), complains, and exits a moment later.
    const script = 'exec 0<&-; echo "Error: config file missing" >&2; sleep 0.3; exit 2';
    const h = harness([], { command: '/bin/sh', args: ['-c', script] });
    await h.transport.start();
    await new Promise((resolve) => setTimeout(resolve, 100)); // its stdin is closed, it has not exited yet
    const error = await h.transport.send(request(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpxError);
    expect(error).toMatchObject({ code: ErrorCode.ConnectionClosed });
    expect((error as McpxError).cause).toMatchObject({
      code: ErrorCode.ServerCrashed,
      context: { exitCode: 2, stderrTail: ['Error: config file missing'] },
    });
    // The server never read mcpx's input, so its exit was not caused by it.
    expect(h.transport.closeReason()?.context.exitedBeforeInput).toBe(true);
  });

  it('rejects send() with ConnectionClosed once the server is gone', async () => {
    const h = harness('echo');
    await h.transport.start();
    await h.transport.send({ jsonrpc: '2.0', method: 'fixture/exit', params: { code: 0 } });
    await h.whenClosed();
    const reason = h.transport.closeReason();
    expect(reason?.code).toBe(ErrorCode.ConnectionClosed);
    await expect(h.transport.send(request(2))).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });

  describe('start failures', () => {
    it('ENOENT → CommandNotFound with the PATH hint', async () => {
      const h = harness([], { command: 'mcpx-no-such-command-4711', args: [], serverName: 'ghost' });
      const error = await h.transport.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpxError);
      const e = error as McpxError;
      expect(e.code).toBe(ErrorCode.CommandNotFound);
      expect(e.message).toBe("cannot start server 'ghost': command 'mcpx-no-such-command-4711' not found");
      expect(e.causes.join('\n')).toContain("the server's PATH is:");
      expect(h.transport.closeReason()).toBe(e);
      await h.whenClosed();
      expect(h.errors).toEqual([]); // the rejection is the report
      await h.transport.close();
      expect(h.closed()).toBe(1);
    });

    it('ENOENT for npx gives the Node.js hint', async () => {
      const h = harness([], { command: 'npx', args: ['-y', 'x'], env: { PATH: '/nonexistent' } });
      await expect(h.transport.start()).rejects.toSatisfy(
        (e: McpxError) => e.code === ErrorCode.CommandNotFound && e.fixes.some((f) => f.includes('Node.js')),
      );
    });

    it('EACCES → SpawnPermissionDenied with a chmod hint', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mcpx-stdio-'));
      try {
        const script = join(dir, 'server.sh');
        writeFileSync(script, '#!/bin/sh\n');
        chmodSync(script, 0o644);
        const h = harness([], { command: script, args: [] });
        const error = (await h.transport.start().catch((e: unknown) => e)) as McpxError;
        expect(error.code).toBe(ErrorCode.SpawnPermissionDenied);
        expect(error.fixes[0]).toBe(`make it executable: chmod +x ${script}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a missing cwd is named as such, not as a missing command', async () => {
      const h = harness('echo', { cwd: '/nonexistent/mcpx-cwd' });
      await expect(h.transport.start()).rejects.toMatchObject({
        code: ErrorCode.SpawnFailed,
        context: { field: 'cwd' },
      });
    });
  });

  describe('close()', () => {
    it('ends a grandchild and a SIGTERM-ignoring server; nothing of the tree survives', async () => {
      const h = harness('grandchild');
      await h.transport.start();
      const pid = h.transport.pid as number;
      const announced = await h.waitFor(isNotification('fixture/grandchild'));
      const grandchild = (announced as unknown as { params: { pid: number } }).params.pid;
      expect(isAlive(grandchild)).toBe(true);
      await h.transport.close();
      expect(isAlive(pid)).toBe(false);
      expect(isAlive(grandchild)).toBe(false);
      expect(processGroupPids(pid)).toEqual([]);
      expect(h.closed()).toBe(1);
    });

    it('ends a server that ignores both stdin close and SIGTERM', async () => {
      const h = harness('stubborn');
      await h.transport.start();
      const pid = h.transport.pid as number;
      await h.waitFor(isNotification('fixture/ready'));
      const started = Date.now();
      await h.transport.close();
      expect(isAlive(pid)).toBe(false);
      expect(h.transport.exitInfo()).toEqual({ code: null, signal: 'SIGKILL' });
      // stdin grace + SIGTERM grace, then SIGKILL
      expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    });

    it('sweeps grandchildren left in the group when the server itself exits', async () => {
      const h = harness('grandchild');
      await h.transport.start();
      const pid = h.transport.pid as number;
      const announced = await h.waitFor(isNotification('fixture/grandchild'));
      const grandchild = (announced as unknown as { params: { pid: number } }).params.pid;
      await h.transport.send({ jsonrpc: '2.0', method: 'fixture/exit', params: { code: 5 } });
      await h.whenClosed();
      expect((h.errors[0] as McpxError).code).toBe(ErrorCode.ServerCrashed);
      expect(h.transport.exitInfo()).toEqual({ code: 5, signal: null });
      expect(isAlive(grandchild)).toBe(false);
      expect(processGroupPids(pid)).toEqual([]);
    });

    it('is idempotent: concurrent calls share one promise and onclose fires once', async () => {
      const h = harness('echo');
      await h.transport.start();
      const pid = h.transport.pid as number;
      const first = h.transport.close();
      const second = h.transport.close();
      expect(second).toBe(first);
      await Promise.all([first, second]);
      await h.transport.close();
      expect(h.closed()).toBe(1);
      expect(await waitForExit(pid, 0)).toBe(true);
    });

    it('works before start(), and start() afterwards is refused', async () => {
      const h = harness('echo');
      await h.transport.close();
      expect(h.closed()).toBe(1);
      await expect(h.transport.start()).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    });
  });

  it('handles 2,000 concurrent sends with backpressure and no process warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const h = harness('slow-start');
      await h.transport.start();
      const padding = 'p'.repeat(1024); // 2 MB in all: far more than the pipe holds while the server sleeps
      const count = 2_000;
      await Promise.all(
        Array.from({ length: count }, (_, i) => h.transport.send(request(i + 1, { padding }))),
      );
      await h.waitFor(isResponse(count));
      const ids = h.messages.filter((m) => 'id' in m).map((m) => (m as { id: number }).id);
      expect(ids).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      await h.transport.close();
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('works as the SDK Client transport against a real MCP server', async () => {
    const transport = new StdioTransport({
      command: process.execPath,
      args: [memoryServer],
      env: buildServerEnv({
        hostEnv: process.env,
        env: { MEMORY_FILE_PATH: join(tmpdir(), `mcpx-mem-${process.pid}.json`) },
      }),
      serverName: 'memory',
    });
    open.push(transport);
    const client = new Client({ name: 'mcpx-test', version: '0.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('create_entities');
    const pid = transport.pid as number;
    await client.close();
    expect(isAlive(pid)).toBe(false);
  });
});

describe('spawnEarly (the server boots while the host is still loading)', () => {
  it('holds messages that arrive before start() and delivers them after', async () => {
    const h = harness(['huge', '1000']);
    h.transport.spawnEarly();
    await until(() => h.transport.pid, 'the spawn');
    // The fixture announces itself at once; give it time to arrive while nobody has started.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(h.messages).toHaveLength(0);
    await h.transport.start();
    const announced = await h.waitFor((m) => 'method' in m && m.method === 'fixture/huge');
    expect(announced).toMatchObject({ method: 'fixture/huge' });
    await h.transport.send({ jsonrpc: '2.0', id: 1, method: 'ping', params: { n: 1 } });
    expect(await h.waitFor((m) => 'id' in m && m.id === 1)).toMatchObject({ result: { echo: { n: 1 } } });
  });

  it('reports a spawn failure from start(), with the usual error', async () => {
    const transport = new StdioTransport({ command: 'mcpx-no-such-command', serverName: 'nope' });
    open.push(transport);
    transport.spawnEarly();
    await expect(transport.start()).rejects.toMatchObject({ code: ErrorCode.CommandNotFound });
  });

  it('ends an early-spawned server that was never started', async () => {
    const h = harness('echo');
    h.transport.spawnEarly();
    const pid = await until(() => h.transport.pid, 'the spawn');
    await h.transport.close();
    expect(await waitForExit(pid, 5_000)).toBe(true);
    expect(isAlive(pid)).toBe(false);
  });
});

async function until<T>(check: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
