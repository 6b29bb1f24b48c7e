/**
 * Misbehaviour modes for the stdio test server, chosen by `MCPX_TEST_FAULT` (comma-separated).
 * Each mode imitates a way real servers go wrong, so mcpx's transport can be tested against it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type Readable, Transform, type Writable } from 'node:stream';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { type BrokenListMode, brokenToolsPage, DEFAULT_HUGE_LIST_BYTES } from './broken-lists.js';
import type { TestServerHooks } from './catalog.js';

/** Every mode `MCPX_TEST_FAULT` accepts. */
export const FAULT_MODES = [
  'crash-mid-call',
  'hang-before-initialize',
  'garbage-stdout',
  'huge-line',
  'stderr-exit',
  'grandchild',
  'ignore-sigterm',
  'slow-start',
  'stderr-noise',
  'list-fails-once',
  'tools-list-fails', // every tools/list fails (a broken schema generator) while tools/call works
  'prompts-list-fails', // every prompts/list fails, though the server declares prompts
  'crash-on-tools-list', // exits (code 3) when asked for its tools, after a handshake that worked
  'malformed-reply', // `echo`: a garbled notification, then its answer cut short (id readable), never a proper one
  // Like many 2025-era servers in the wild, these know nothing of `server/discover`:
  'silent-until-initialize', // ignores every request until `initialize`
  'idless-error-before-initialize', // answers them with an error that has no id
  'exit-before-initialize', // complains on stderr and exits, as strict SDKs do
  'exit-after',
  // Hand-written schemas ($ref, nullable, unions) and a tool that answers with what it got.
  'wild-schemas',
  // tools/list pagination gone wrong (see broken-lists.ts); MCPX_TEST_HUGE_LIST_BYTES sizes the huge one.
  'endless-cursor',
  'repeated-cursor',
  'huge-list',
  // Like server-everything asking for roots 350 ms after it starts: after each tools/call the
  // server asks the client for its roots (MCPX_TEST_LATE_REQUEST_MS later, default 30), and does
  // not exit while the question is unanswered (its stdin closing does not end it; SIGTERM does).
  'late-request',
] as const;

export type FaultMode = (typeof FAULT_MODES)[number];

/** Parses `MCPX_TEST_FAULT`; throws naming the known modes when one is misspelt. */
export function parseFaultModes(value: string | undefined): ReadonlySet<FaultMode> {
  const names = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(FAULT_MODES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new Error(`unknown MCPX_TEST_FAULT mode ${unknown.join(', ')} (known: ${FAULT_MODES.join(', ')})`);
  }
  return new Set(names as FaultMode[]);
}

/** The process surface the faults act on, injected so the behaviour stays testable. */
export interface FaultIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly exit: (code: number) => never;
  readonly onSignal: (signal: NodeJS.Signals, listener: () => void) => void;
}

/** The active faults: hooks for the catalogue and what happens before serving. */
export interface Faults {
  readonly modes: ReadonlySet<FaultMode>;
  readonly hooks: TestServerHooks;
  /** Whether the process must outlive its stdin closing (`ignore-sigterm`). */
  readonly outlivesStdin: boolean;
  /** Start-up misbehaviour; resolves `false` when the server must not serve at all. */
  beforeServe(): Promise<boolean>;
  /** The input the server should read: stdin itself, or stdin with what a pre-`initialize` fault does to it. */
  input(): Readable;
}

const DEFAULT_HUGE_LINE_BYTES = 20 * 1024 * 1024;
const DEFAULT_SLOW_START_MS = 2000;
const DEFAULT_EXIT_AFTER_MS = 1000;
const DEFAULT_LATE_REQUEST_MS = 30;
const LATE_REQUEST_ID = 'late-roots';

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n > 0 ? n : fallback;
}

/** Writes one line of exactly `bytes` bytes (newline included) that looks like JSON-RPC. */
async function writeHugeLine(out: Writable, bytes: number): Promise<void> {
  const head = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"';
  const tail = '"}}\n';
  let remaining = Math.max(0, bytes - head.length - tail.length);
  const chunk = 'x'.repeat(64 * 1024);
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  try {
    await write(head);
    while (remaining > 0) {
      const n = Math.min(remaining, chunk.length);
      await write(n === chunk.length ? chunk : chunk.slice(0, n));
      remaining -= n;
    }
    await write(tail);
  } catch {
    // The reader went away (EPIPE); there is nobody left to confuse.
  }
}

/** Builds the faults for `modes`; with no modes every hook is absent and serving starts at once. */
// Long because each misbehaviour mode is a hook of the same faults object, sharing its counters.
export function createFaults(modes: ReadonlySet<FaultMode>, io: FaultIo): Faults {
  let listFailures = modes.has('list-fails-once') ? 1 : 0;
  const garbage = modes.has('garbage-stdout');
  const broken = BROKEN_LIST_MODES.find((mode) => modes.has(mode));
  const hooks: TestServerHooks = {
    ...(broken
      ? {
          toolsPage: brokenToolsPage(
            broken,
            positiveInt(io.env.MCPX_TEST_HUGE_LIST_BYTES, DEFAULT_HUGE_LIST_BYTES),
          ),
        }
      : {}),
    async beforeToolCall(name, id) {
      if (modes.has('malformed-reply') && name === 'echo') {
        // A notification gone wrong first (params must be an object): told, but no reply to pin.
        io.stdout.write('{"jsonrpc":"2.0","method":"notifications/message","params":"not an object"}\n');
        io.stdout.write(
          `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"half an answ\n`,
        );
        await new Promise(() => {}); // the real answer never comes
      }
      if (modes.has('late-request')) askLate();
      if (modes.has('crash-mid-call')) {
        io.stderr.write('fatal: simulated crash\n');
        io.exit(3);
      }
      if (garbage) io.stdout.write('this is not json either\n');
      if (modes.has('huge-line') && name === 'echo') {
        await writeHugeLine(
          io.stdout,
          positiveInt(io.env.MCPX_TEST_HUGE_LINE_BYTES, DEFAULT_HUGE_LINE_BYTES),
        );
      }
    },
    beforeList(method) {
      if (garbage) io.stdout.write('garbage: still not json\n');
      if (method === 'tools/list' && modes.has('crash-on-tools-list')) {
        io.stderr.write('fatal: simulated crash while listing tools\n');
        io.exit(3);
      }
      if (method === 'tools/list' && modes.has('tools-list-fails')) {
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          'simulated tools/list failure (tools-list-fails)',
        );
      }
      if (method === 'prompts/list' && modes.has('prompts-list-fails')) {
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          'simulated prompts/list failure (prompts-list-fails)',
        );
      }
      if (method === 'tools/list' && listFailures > 0) {
        listFailures--;
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          'simulated tools/list failure (list-fails-once)',
        );
      }
    },
  };

  /** Asks for roots a moment from now and stays alive until the answer comes, as an SDK request waits out its timeout. */
  function askLate(): void {
    const waiting = setInterval(() => {}, 60_000);
    io.stdin.on('data', (chunk: Buffer) => {
      if (chunk.toString('utf8').includes(`"${LATE_REQUEST_ID}"`)) clearInterval(waiting);
    });
    setTimeout(
      () => {
        io.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: LATE_REQUEST_ID, method: 'roots/list' })}\n`);
      },
      positiveInt(io.env.MCPX_TEST_LATE_REQUEST_MS, DEFAULT_LATE_REQUEST_MS),
    );
  }

  async function beforeServe(): Promise<boolean> {
    if (modes.has('ignore-sigterm')) {
      io.onSignal('SIGTERM', () => io.stderr.write('ignoring SIGTERM\n'));
      // Keeps the event loop alive after stdin ends: only SIGKILL stops this process.
      setInterval(() => {}, 60_000);
    }
    if (modes.has('stderr-exit')) {
      for (let n = 1; n <= 30; n++) io.stderr.write(`noise line ${n}\n`);
      io.stderr.write('Error: API key missing: set EXAMPLE_API_KEY\n');
      io.exit(1);
    }
    if (modes.has('grandchild')) {
      const child = spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], {
        detached: false,
        stdio: 'ignore',
      });
      child.unref(); // the grandchild must not keep this server alive: it is the one that leaks
      io.stderr.write(`grandchild pid ${child.pid}\n`);
    }
    if (modes.has('stderr-noise')) {
      let n = 0;
      setInterval(() => io.stderr.write(`stderr noise ${++n}\n`), 50).unref();
    }
    if (modes.has('exit-after')) {
      // A server that dies in the middle of a long session (out of memory, a lost upstream).
      const ms = positiveInt(io.env.MCPX_TEST_EXIT_AFTER_MS, DEFAULT_EXIT_AFTER_MS);
      setTimeout(() => {
        io.stderr.write('fatal: upstream connection lost\n');
        io.exit(4);
      }, ms).unref();
    }
    if (garbage) io.stdout.write('this is not json\n');
    if (modes.has('hang-before-initialize')) {
      io.stdin.resume(); // read and discard, never answer
      return false;
    }
    if (modes.has('slow-start')) {
      const ms = Number(io.env.MCPX_TEST_SLOW_START_MS ?? DEFAULT_SLOW_START_MS);
      await new Promise((resolve) =>
        setTimeout(resolve, Number.isFinite(ms) && ms >= 0 ? ms : DEFAULT_SLOW_START_MS),
      );
    }
    return true;
  }

  function input(): Readable {
    const handling = PRE_INITIALIZE_MODES.find((mode) => modes.has(mode));
    return handling ? io.stdin.pipe(beforeInitialize(handling, io)) : io.stdin;
  }

  return {
    modes,
    hooks,
    outlivesStdin: modes.has('ignore-sigterm') || modes.has('late-request'),
    beforeServe,
    input,
  };
}

const BROKEN_LIST_MODES: readonly BrokenListMode[] = ['endless-cursor', 'repeated-cursor', 'huge-list'];

const PRE_INITIALIZE_MODES = [
  'silent-until-initialize',
  'idless-error-before-initialize',
  'exit-before-initialize',
] as const;

/**
 * A filter on the server's input that treats every request before
 * `initialize` the way `mode` says, and lets everything from `initialize` on
 * through to the SDK server unchanged.
 */
function beforeInitialize(mode: (typeof PRE_INITIALIZE_MODES)[number], io: FaultIo): Transform {
  let initialized = false;
  let pending = '';
  const handle = (line: string): string | undefined => {
    if (initialized || line.trim() === '') return line;
    let message: { id?: unknown; method?: unknown };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return line;
    }
    if (message.method === 'initialize') {
      initialized = true;
      return line;
    }
    if (message.id === undefined) return undefined; // a notification: dropped
    if (mode === 'exit-before-initialize') {
      io.stderr.write(`error: expected an initialize request, got ${String(message.method)}\n`);
      io.exit(1);
    }
    if (mode === 'idless-error-before-initialize') {
      io.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' } })}\n`,
      );
    }
    return undefined;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      const kept = lines.map(handle).filter((line): line is string => line !== undefined);
      done(null, kept.length > 0 ? `${kept.join('\n')}\n` : undefined);
    },
    flush(done) {
      const last = pending === '' ? undefined : handle(pending);
      done(null, last);
    },
  });
}
