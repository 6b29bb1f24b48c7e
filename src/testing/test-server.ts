/**
 * `mcpx-test-server`: the shipped stdio MCP server behind mcpx's `demo` server and its tests.
 * Run it as `node dist/testing/test-server.js`. It serves both protocol eras (2025 `initialize`
 * and 2026-07-28 `server/discover`) from one catalogue. A line that is not JSON is answered with
 * JSON-RPC's `-32700 Parse error` (id null) and skipped (`parse-errors.ts`).
 *
 * Environment:
 * - `MCP_TOOL_COUNT=N` adds N echoing tools `tool_0001`…
 * - `MCP_PAGE_SIZE=K` serves every list K items per page.
 * - `MCPX_TEST_TICK_MS=N` changes `test://counter` every N ms (subscribers are told), as a
 *   server watching a file or a feed would.
 * - `MCPX_TEST_FAULT=mode[,mode…]` switches on misbehaviour (see `faults.ts`), with
 *   `MCPX_TEST_HUGE_LINE_BYTES`, `MCPX_TEST_HUGE_LIST_BYTES`, `MCPX_TEST_SLOW_START_MS` and
 *   `MCPX_TEST_EXIT_AFTER_MS` tuning four of them.
 * - `MCPX_TEST_MEDIA=1` adds the `media` tool (image, audio and a blob with a hostile URI).
 * - `MCPX_TEST_APPS=1` adds an MCP App and hostile apps (`mcp-app.ts`): `show_dashboard`,
 *   `refresh_dashboard` (app only), `model_only_fact` and their `ui://` resources.
 * - `MCPX_TEST_NOISY=1` adds `raise_error` (any JSON-RPC error code) and `flood_list_changes`
 *   (announces many resource and prompt list changes), see `noisy-tools.ts`.
 * - `MCPX_TEST_ANNOTATED=1` adds `erase` (destructiveHint) and `fetch_page` (openWorldHint);
 *   `MCPX_TEST_ANNOTATED=0` drops every tool's annotations (a server that says nothing about its tools).
 * - `MCPX_TEST_CODEGEN=1` adds tools for `mcpx generate` (`codegen-tools.ts`): names that are no
 *   identifier, a schema of every shape, a name and description that try to inject code;
 *   `MCPX_TEST_CODEGEN=changed` serves them changed, as after an upstream release.
 * - `MCPX_TEST_START_LOG=FILE` appends the process id to FILE first thing (tests count starts).
 * - `MCPX_TEST_METHOD_LOG=FILE` appends the method of every request and notification it
 *   receives to FILE, one a line (tests count a client's round trips).
 * - `MCPX_TEST_TRACE_LOG=FILE` appends, for every request it receives, one JSON line
 *   `{"method", "traceparent", "tracestate", "baggage"}` with the W3C trace context its
 *   `params._meta` carried (absent keys left out): tests check that a trace reached the server.
 * - `MCPX_TEST_CANCEL_LOG=FILE` appends a line when `slow_operation` is cancelled by the client.
 * - `MCPX_TEST_LOG_EVERY_MS=N` sends a log message (`notifications/message`, info, logger
 *   `chatter`, data `chatter <n> from pid <pid>`) every N ms, as chatty servers do unasked.
 * - `MCPX_TEST_DISCOVER_TTL_MS=N` declares the 2026-07-28 `server/discover` result fresh for N ms
 *   (the SDK's default is 0: ask again every time).
 */
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import type { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { ChangingResource, createTestServer, TEST_SERVER_NAME, type TestServerOptions } from './catalog.js';
import { codegenTools } from './codegen-tools.js';
import { createFaults, type FaultMode, parseFaultModes } from './faults.js';
import { MCP_APP } from './mcp-app.js';
import { answerParseErrors } from './parse-errors.js';

function fail(message: string): never {
  process.stderr.write(`${TEST_SERVER_NAME}: ${message}\n`);
  process.exit(2);
}

function count(name: string, min: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) fail(`${name} must be an integer of at least ${min}, got "${raw}"`);
  return n;
}

interface WireMessage {
  method?: unknown;
  id?: unknown;
  params?: { _meta?: Record<string, unknown> };
}

/** Beside the SDK's own reader: every JSON message on stdin, to `each`. */
function watchStdin(each: (message: WireMessage) => void): void {
  let partial = '';
  process.stdin.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      let message: WireMessage;
      try {
        message = JSON.parse(line) as WireMessage;
      } catch {
        continue; // Not JSON: answered with a parse error (parse-errors.ts); the logs only look at messages.
      }
      if (typeof message === 'object' && message !== null) each(message);
    }
  });
}

/** Every method received, to `file`, one a line. */
function logMethods(file: string): void {
  watchStdin((message) => {
    if (typeof message.method === 'string') appendFileSync(file, `${message.method}\n`);
  });
}

/** Every request's W3C trace context, to `file`, one JSON line each. */
function logTraceContext(file: string): void {
  watchStdin((message) => {
    if (typeof message.method !== 'string' || message.id === undefined) return;
    const meta = message.params?._meta ?? {};
    const seen: Record<string, unknown> = { method: message.method };
    for (const key of ['traceparent', 'tracestate', 'baggage'])
      if (typeof meta[key] === 'string') seen[key] = meta[key];
    appendFileSync(file, `${JSON.stringify(seen)}\n`);
  });
}

/** The server, sending a log message every `everyMs` (when set) for as long as it is open. */
function chatty(server: Server, everyMs: number | undefined): Server {
  if (everyMs === undefined) return server;
  let n = 0;
  const timer = setInterval(() => {
    const data = `chatter ${++n} from pid ${process.pid}`;
    void server.sendLoggingMessage({ level: 'info', logger: 'chatter', data }).catch(() => {});
  }, everyMs);
  timer.unref();
  const previous = server.onclose;
  server.onclose = () => {
    clearInterval(timer);
    previous?.();
  };
  return server;
}

async function main(): Promise<void> {
  if (process.env.MCPX_TEST_START_LOG) appendFileSync(process.env.MCPX_TEST_START_LOG, `${process.pid}\n`);
  // A client that hangs up must not turn a late write into an uncaught EPIPE.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});

  let modes: ReadonlySet<FaultMode>;
  try {
    modes = parseFaultModes(process.env.MCPX_TEST_FAULT);
  } catch (error) {
    fail((error as Error).message);
  }
  const extraToolCount = count('MCP_TOOL_COUNT', 0);
  const pageSize = count('MCP_PAGE_SIZE', 1);
  const discoverTtlMs = count('MCPX_TEST_DISCOVER_TTL_MS', 0);
  const tickMs = count('MCPX_TEST_TICK_MS', 1);
  const logEveryMs = count('MCPX_TEST_LOG_EVERY_MS', 1);
  const codegen = process.env.MCPX_TEST_CODEGEN || undefined;
  const counter = new ChangingResource();
  if (tickMs !== undefined) setInterval(() => counter.touch(), tickMs).unref();
  const faults = createFaults(modes, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    exit: (code) => process.exit(code),
    onSignal: (signal, listener) => process.on(signal, listener),
  });

  // A stdio server exits when its stdin closes. The SDK transport closes then and the loop
  // usually drains by itself; the unref'd timer only fires if something still holds it open.
  process.stdin.once('end', () => {
    if (!faults.outlivesStdin) setTimeout(() => process.exit(0), 500).unref();
  });
  if (!(await faults.beforeServe())) return;

  const options: TestServerOptions = {
    env: process.env,
    hooks: faults.hooks,
    counter,
    ...(process.env.MCPX_TEST_MEDIA === '1' ? { mediaTool: true } : {}),
    addOns: [
      ...(process.env.MCPX_TEST_APPS === '1' ? [MCP_APP] : []),
      ...(codegen === undefined ? [] : [codegenTools(codegen === 'changed')]),
    ],
    ...(process.env.MCPX_TEST_ANNOTATED === '1' ? { annotatedTools: true } : {}),
    ...(process.env.MCPX_TEST_NOISY === '1'
      ? {
          noisyTools: true,
          outputRoom: async () => {
            if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
          },
        }
      : {}),
    ...(process.env.MCPX_TEST_ANNOTATED === '0' ? { unannotated: true } : {}),
    ...(modes.has('wild-schemas') ? { wildSchemaTool: true } : {}),
    ...(extraToolCount !== undefined ? { extraToolCount } : {}),
    ...(pageSize !== undefined ? { pageSize } : {}),
    ...(discoverTtlMs !== undefined ? { cacheHints: { 'server/discover': { ttlMs: discoverTtlMs } } } : {}),
  };
  // Watched only now, with the server's own reader: a 'data' listener sets stdin flowing, and what
  // arrived before the server read it (during a slow start) would reach the logs and not the server.
  if (process.env.MCPX_TEST_METHOD_LOG) logMethods(process.env.MCPX_TEST_METHOD_LOG);
  if (process.env.MCPX_TEST_TRACE_LOG) logTraceContext(process.env.MCPX_TEST_TRACE_LOG);
  serveStdio(() => chatty(createTestServer(options), logEveryMs), {
    transport: new StdioServerTransport(answerParseErrors(faults.input(), process.stdout), process.stdout),
    onerror: (error) => process.stderr.write(`${TEST_SERVER_NAME}: ${error.message}\n`),
  });
}

await main();
