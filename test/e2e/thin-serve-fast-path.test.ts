/**
 * The fast path of a thin `mcpx serve` (issue 44): the daemon runs the session, and a plain
 * `tools/call` is taken off the wire by the session's gateway and by the held server's session
 * in the daemon, each hop a line relay (`gateway/fast-path.ts`, `daemon/attach.ts`,
 * `daemon/in-process-link.ts`). An SDK `Client` drives the same session twice, once as it is
 * and once with `MCPX_GATEWAY_FAST_PATH=0` (the daemon it starts inherits it: every request the
 * full way), and what it sees — a call denied, an upstream error, progress, a cancellation
 * reaching the server, the audit lines — is the same both ways. In the daemon a relayed plain
 * call runs on the held server from its core (`gateway/held-calls.ts`, one gateway handler per
 * call): a server's question during a call still goes to the session whose call it is, is
 * refused while two sessions call it at once, and `daemon status` counts the same calls.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { daemonPids, waitForExit } from '../helpers/processes.js';

const dirs: { path: string; remove: () => Promise<void> }[] = [];

afterEach(async () => {
  for (const dir of dirs.splice(0)) {
    const home = join(dir.path, 'home');
    await runCli(['daemon', 'stop'], { cwd: dir.path, home, env: { TMPDIR: dir.path } });
    for (const pid of daemonPids(join(home, '.mcpx'))) process.kill(pid, 'SIGKILL');
    await dir.remove();
  }
});

/** What one session saw, in a form the two paths can be compared by. */
interface Seen {
  readonly echo: unknown;
  /** Twenty calls sent at once (they cross the daemon's link in the same turns): each its own answer. */
  readonly together: unknown[];
  readonly denied: unknown;
  readonly failed: unknown;
  readonly invalid: unknown;
  readonly progress: { readonly result: unknown; readonly steps: number[] };
  readonly cancelled: string;
  readonly cancelLog: string;
  readonly audit: unknown[];
  readonly fastCalls: number;
}

/** A call's outcome: its result, or the error it was answered with. */
const outcome = (call: Promise<unknown>) =>
  call.then(
    (result) => ({ result }),
    (error: Error & { code?: unknown }) => ({ error: error.message, code: error.code }),
  );

const linesOf = async (file: string) =>
  (await readFile(file, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The environment of a thin serve and the daemon it starts: only what they need, `extra` besides. */
function thinEnv(tmp: string, home: string, extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    MCPX_HOME: join(home, '.mcpx'),
    TMPDIR: tmp,
    MCPX_DAEMON_IDLE: '2',
    ...extra,
  };
}

/** One thin session over a daemon it starts, with `extra` in the environment of both. */
async function thinSession(extra: Record<string, string>): Promise<Seen> {
  const dir = await tempDir('mcpx-thin-fast-');
  dirs.push(dir);
  const home = join(dir.path, 'home');
  const cancelLog = join(dir.path, 'cancel.log');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await writeFile(
    join(home, '.mcpx', 'mcp.json'),
    JSON.stringify({
      permission: 'trusted',
      mcpServers: {
        local: {
          // A 2025-11-25 server: the fast path relays only between peers of the client's own era.
          protocol: 'legacy',
          command: process.execPath,
          args: [testServerPath],
          keep_alive: true,
          env: { MCPX_TEST_CANCEL_LOG: cancelLog },
        },
      },
    }),
  );
  // A 2025-11-25 client, as agent hosts are today: the era whose plain calls take the fast path.
  const client = new Client(
    { name: 'thin-fast', version: '1.0.0' },
    { versionNegotiation: { mode: 'legacy' } },
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, '--verbose', 'serve'],
    env: thinEnv(dir.path, home, extra),
    cwd: dir.path,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await client.connect(transport);
  try {
    // A list waits 2 s for a server still starting; on a loaded machine it may answer before it.
    for (let i = 0; i < 200; i++) {
      if ((await client.listTools()).tools.some((t) => t.name === 'local__echo')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const echo = await outcome(client.callTool({ name: 'local__echo', arguments: { message: 'hi' } }));
    const together = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        outcome(client.callTool({ name: 'local__echo', arguments: { message: `m${i}` } })),
      ),
    );
    // Not read-only: at `trusted` its client would be asked, and this one can answer nothing.
    const denied = await outcome(client.callTool({ name: 'local__add_tool', arguments: { name: 'x' } }));
    const failed = await outcome(client.callTool({ name: 'local__fail', arguments: { message: 'no' } }));
    const invalid = await outcome(client.callTool({ name: 'local__echo', arguments: { message: 42 } }));
    const steps: number[] = [];
    const progress = await outcome(
      client.callTool(
        { name: 'local__slow_operation', arguments: { steps: 4, delay_ms: 30 } },
        { onprogress: (p) => void steps.push(p.progress) },
      ),
    );
    // A plain call (no progress token) cancelled by its client: the server is told.
    const abort = new AbortController();
    const slow = outcome(
      client.callTool(
        { name: 'local__slow_operation', arguments: { steps: 3, duration: 30 } },
        { signal: abort.signal },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    abort.abort('enough');
    const cancelled = (await slow) as { error?: string };
    await expect
      .poll(() => readFile(cancelLog, 'utf8').catch(() => ''), { timeout: 10_000 })
      .toContain('cancelled');
    await client.close();
    expect(await waitForExit(transport.pid as number, 10_000)).toBe(true);
    const file = join(home, '.mcpx', 'logs', 'audit.jsonl');
    await expect
      .poll(async () => (await linesOf(file)).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(5);
    const audit = (await linesOf(file)).map(({ server, tool, decision, outcome: ended }) => ({
      server,
      tool,
      decision,
      outcome: ended,
    }));
    const fastCalls = Number(/(\d+) call\(s\) took the fast path/.exec(stderr)?.[1] ?? -1);
    return {
      echo,
      together,
      denied,
      failed,
      invalid,
      // The last step's progress may come after the result (which ends the client's wait for it).
      progress: { result: progress, steps: steps.slice(0, 3) },
      cancelled: String(cancelled.error),
      cancelLog: await readFile(cancelLog, 'utf8'),
      audit,
      fastCalls,
    };
  } finally {
    await client.close().catch(() => {});
  }
}

describe('a thin mcpx serve, fast path on and off', () => {
  it('answers, refuses, reports progress, cancels and audits the same either way', {
    timeout: 180_000,
  }, async () => {
    const fast = await thinSession({});
    const full = await thinSession({ MCPX_GATEWAY_FAST_PATH: '0' });

    for (const seen of [fast, full]) {
      expect(seen.echo).toEqual({ result: { content: [{ type: 'text', text: 'hi' }] } });
      expect(seen.together).toEqual(
        Array.from({ length: 20 }, (_, i) => ({ result: { content: [{ type: 'text', text: `m${i}` }] } })),
      );
      // Refused by the permission policy, before the server is asked.
      expect(JSON.stringify(seen.denied)).toMatch(/not allowed|denied|refused/i);
      expect(seen.failed).toEqual({ result: { content: [{ type: 'text', text: 'no' }], isError: true } });
      expect(seen.progress.result).toEqual({
        result: { content: [{ type: 'text', text: 'completed 4 steps' }] },
      });
      expect(seen.progress.steps).toEqual([1, 2, 3]);
      expect(seen.cancelled).toMatch(/enough|abort|cancel/i);
      expect(seen.cancelLog).toBe('slow_operation cancelled\n');
      expect(seen.audit).toContainEqual(
        expect.objectContaining({ server: 'local', tool: 'echo', outcome: 'ok' }),
      );
      expect(seen.audit).toContainEqual(
        expect.objectContaining({ server: 'local', tool: 'fail', outcome: 'tool-error' }),
      );
    }
    // The same answers, the same audit lines, whichever path each call took.
    const { fastCalls: fastTaken, ...fastSeen } = fast;
    const { fastCalls: fullTaken, ...fullSeen } = full;
    expect(fastSeen).toEqual(fullSeen);
    // The plain calls took the fast path in the session's gateway, and none did with it off.
    expect(fastTaken).toBeGreaterThan(0);
    expect(fullTaken).toBe(0);
  });
});

/**
 * A 2025-11-25 server in plain JSON-RPC lines: `ask` asks its client (`elicitation/create`) who
 * it is and answers with what it was told (or the error), `hold` answers after `ms`.
 */
const ASKING_SERVER = `
const { createInterface } = require('node:readline');
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
const readOnly = { readOnlyHint: true, openWorldHint: false };
const tools = [
  { name: 'ask', inputSchema: { type: 'object' }, annotations: readOnly },
  { name: 'hold', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } }, annotations: readOnly },
];
const asked = new Map();
let next = 0;
createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined) {
    const call = asked.get(m.id);
    asked.delete(m.id);
    if (call !== undefined) send({ id: call, result: { content: [{ type: 'text', text: JSON.stringify(m.result ?? m.error) }] } });
    return;
  }
  if (m.id === undefined) return;
  if (m.method === 'initialize')
    return send({ id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'asker', version: '1.0.0' } } });
  if (m.method === 'tools/list') return send({ id: m.id, result: { tools } });
  if (m.method === 'ping') return send({ id: m.id, result: {} });
  if (m.method === 'tools/call' && m.params.name === 'ask') {
    const id = 'q' + next++;
    asked.set(id, m.id);
    return send({ id, method: 'elicitation/create', params: { message: 'who are you?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } });
  }
  if (m.method === 'tools/call' && m.params.name === 'hold')
    return setTimeout(() => send({ id: m.id, result: { content: [{ type: 'text', text: 'held' }] } }), m.params.arguments.ms);
  send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
});
`;

/** What two sessions on one held server saw, and what `daemon status` counted. */
interface TwoSeen {
  readonly alone: unknown[];
  readonly atOnce: unknown[];
  readonly together: unknown[];
  readonly calls: unknown;
}

/** Two thin sessions on the asking server, each answering its questions with its own name. */
async function twoSessions(extra: Record<string, string>): Promise<TwoSeen> {
  const dir = await tempDir('mcpx-thin-ask-');
  dirs.push(dir);
  const home = join(dir.path, 'home');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  const server = join(dir.path, 'asker.cjs');
  await writeFile(server, ASKING_SERVER);
  await writeFile(
    join(home, '.mcpx', 'mcp.json'),
    JSON.stringify({
      permission: 'trusted',
      mcpServers: {
        asker: { protocol: 'legacy', command: process.execPath, args: [server], keep_alive: true },
      },
    }),
  );
  const env = thinEnv(dir.path, home, extra);
  const session = async (who: string) => {
    const client = new Client(
      { name: who, version: '1.0.0' },
      { versionNegotiation: { mode: 'legacy' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: who },
    }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'serve'],
      env,
      cwd: dir.path,
      stderr: 'pipe',
    });
    await client.connect(transport);
    for (let i = 0; i < 200; i++) {
      if ((await client.listTools()).tools.some((t) => t.name === 'asker__ask')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { client, pid: transport.pid as number };
  };
  const a = await session('session-a');
  const b = await session('session-b');
  try {
    const ask = (s: typeof a) => outcome(s.client.callTool({ name: 'asker__ask', arguments: {} }));
    // Each session's question goes to it.
    const alone = [await ask(a), await ask(b)];
    // Both at once: whether one's question comes while the other's call is in flight is a race,
    // but a session is only ever told its own answer (or that nobody could be asked).
    const atOnce = await Promise.all([ask(a), ask(b)]);
    // While another session's call is in flight there, nobody can tell whose call asked: refused.
    const held = outcome(b.client.callTool({ name: 'asker__hold', arguments: { ms: 1500 } }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const together = [await ask(a), await held];
    const status = await runCli(['daemon', 'status', '--json'], {
      cwd: dir.path,
      home,
      env: { TMPDIR: dir.path },
    });
    const { servers } = JSON.parse(status.stdout) as {
      servers: { name: string; calls: number; sessions?: { calls: number }[] }[];
    };
    const calls = servers.map((s) => ({
      name: s.name,
      calls: s.calls,
      sessions: s.sessions?.map((x) => x.calls),
    }));
    return { alone, atOnce, together, calls };
  } finally {
    for (const s of [a, b]) {
      await s.client.close().catch(() => {});
      expect(await waitForExit(s.pid, 10_000)).toBe(true);
    }
  }
}

describe('two thin mcpx serve sessions on one held server, fast path on and off', () => {
  it("route a server's questions to the session whose call it is and count the same calls either way", {
    timeout: 180_000,
  }, async () => {
    const fast = await twoSessions({});
    const full = await twoSessions({ MCPX_GATEWAY_FAST_PATH: '0' });
    const refused = /cannot tell which client to ask/;
    for (const seen of [fast, full]) {
      const [a, b] = seen.alone.map((o) => JSON.stringify(o));
      expect(a).toContain('session-a');
      expect(b).toContain('session-b');
      const [x, y] = seen.atOnce.map((o) => JSON.stringify(o));
      expect(x).toMatch(/session-a|cannot tell which client to ask/);
      expect(x).not.toContain('session-b');
      expect(y).toMatch(/session-b|cannot tell which client to ask/);
      expect(y).not.toContain('session-a');
      expect(JSON.stringify(seen.together[0])).toMatch(refused);
      expect(seen.together[1]).toEqual({ result: { content: [{ type: 'text', text: 'held' }] } });
      // Six calls on the server, three from each session.
      expect(seen.calls).toEqual([{ name: 'asker', calls: 6, sessions: [3, 3] }]);
    }
    const { atOnce: _fast, ...fastSeen } = fast;
    const { atOnce: _full, ...fullSeen } = full;
    expect(fastSeen).toEqual(fullSeen);
  });
});
