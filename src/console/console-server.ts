import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, errorToJson, McpxError } from '../errors/index.js';
import type { Host } from '../host/index.js';
import type { ReadableSpan } from '../tracing/index.js';
import { type AppFrames, createAppFrames } from './app-frames.js';
import { createAuditView } from './audit-view.js';
import { type CallHistory, type ConsoleCall, createCallHistory } from './call-history.js';
import { type ConnectWaterfalls, createConnectWaterfalls } from './connect-waterfalls.js';
import {
  type ApiAnswer,
  answerFromPage,
  appCallFromPage,
  type ConsoleApiDeps,
  callFromPage,
  consoleState,
  listEach,
  openAppFromPage,
  readFromPage,
} from './console-api.js';
import type { HeldCall } from './held-call.js';
import { type DaemonStatusSource, daemonForPage, waterfallsForPage } from './observe-api.js';
import { pageHtml } from './page/html.js';
import { OBSERVE_SCRIPT } from './page/observe-script.js';
import { PAGE_SCRIPT } from './page/script.js';
import { PAGE_STYLE } from './page/style.js';
import { createPageQuestions, type PageQuestions } from './page-questions.js';
import { checkRequest } from './request-check.js';

/** How `createConsole` serves. */
export interface ConsoleOptions {
  /** The loopback port (default 0: one the system picks). */
  readonly port?: number;
  /** Ends the calls in flight and the console's requests to the servers. */
  readonly signal?: AbortSignal;
  /**
   * The permission questions the page answers: hand `questions.approver` to the host
   * (`createPageQuestions`) so its questions reach the page. Default: a set of its own.
   */
  readonly questions?: PageQuestions;
  /**
   * Hands the console every span the process ends, for each server's connect waterfall
   * (`tapSpans` of the process's tracing); returns the undo. Without it the page shows none.
   */
  readonly watchSpans?: (tap: (span: ReadableSpan) => void) => () => void;
  /** Asks the keep-alive daemon for its status (the page's daemon section); without it the page says it cannot. */
  readonly daemonStatus?: DaemonStatusSource;
  /**
   * A call a terminal made and showed (`mcpx call`): listed among the calls, and `link` opens
   * its tool's MCP App with its input and result.
   */
  readonly held?: HeldCall;
}

/** A console being served. */
export interface RunningConsole {
  /** `http://127.0.0.1:PORT/?token=…`: the page, with its secret. */
  readonly url: string;
  /** With `held`: the page that opens the held call's App with its input and result. */
  readonly link?: string;
  /** How many pages are open now (their event streams), and whether one ever was. */
  viewers(): { readonly open: number; readonly ever: boolean };
  /** Stop serving: every open page's event stream ends, waiting questions are answered no. */
  close(): Promise<void>;
}

const POST_LIMIT = 1024 * 1024;

/** What the page's waterfall and daemon sections read. */
interface Observe {
  readonly waterfalls: ConnectWaterfalls;
  readonly daemonStatus?: DaemonStatusSource;
}

/** The headers every answer carries: nothing is cached, the URL's token never leaves in a Referer. */
const COMMON_HEADERS = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

/** The page's policy: its own script and style only, images from its own data: URLs, no frames of it. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page's policy with its one frame source: the Apps' own origin (`AppFrames`). */
export function consoleCsp(appsOrigin: string): string {
  return `${CONSOLE_CSP}; frame-src ${appsOrigin}`;
}

/**
 * The browser bundle of the Apps host (src/console/browser/app-host.js with the ext-apps
 * `AppBridge`, built by scripts/bundle.mjs into dist/console-assets/), looked up from wherever this
 * module runs: dist/bin/, dist/bin/chunks/, dist/console/, or src/console/ under the tests.
 */
const APP_HOST_CANDIDATES = [
  '../console-assets/app-host.js',
  '../../console-assets/app-host.js',
  '../../dist/console-assets/app-host.js',
];

let appHostScript: Promise<string> | undefined;

async function readAppHost(): Promise<string> {
  for (const candidate of APP_HOST_CANDIDATES) {
    try {
      return await readFile(new URL(candidate, import.meta.url), 'utf8');
    } catch {}
  }
  throw new McpxError(ErrorCode.Internal, 'the console’s Apps host (console-assets/app-host.js) is missing', {
    fixes: ['build mcpx again: npm run build'],
  });
}

/**
 * The console: a page on 127.0.0.1 over one host, for a person who would rather look. Every
 * request is checked (`checkRequest`: the token, the Host, the Origin); the page, its script and
 * its style are served from this package, and the JSON API answers with the host's servers, tools,
 * resources and prompts, and makes calls through `Host.callTool`. `GET /api/events` tells the page
 * (server-sent events) when anything changed.
 */
export async function createConsole(host: Host, options: ConsoleOptions = {}): Promise<RunningConsole> {
  const token = randomBytes(24).toString('hex');
  const streams = new Set<ServerResponse>();
  let viewed = false;
  let pending = false;
  const changed = () => {
    // Many changes at once are one event: the page reads the state once.
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      for (const stream of streams) stream.write('event: changed\ndata: {}\n\n');
    });
  };
  const questions = options.questions ?? createPageQuestions();
  const unhear = questions.on(changed);
  const audit = createAuditView(changed);
  const unhookAudit = host.audit().add(audit.sink);
  let consolePort = 0;
  const frames = await createAppFrames(() => `http://127.0.0.1:${consolePort}`);
  const calls = createCallHistory(changed);
  const held = options.held && holdCall(calls, options.held);
  const deps: ConsoleApiDeps = {
    host,
    audit,
    calls,
    questions,
    frames,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const waterfalls = createConnectWaterfalls(changed);
  const unwatch = options.watchSpans?.(waterfalls.onEnd);
  const observe: Observe = {
    waterfalls,
    ...(options.daemonStatus ? { daemonStatus: options.daemonStatus } : {}),
  };
  const registry = await host.registry();
  const unlisten = registry.on(changed);
  const server = createServer((request, response) => {
    const port = (server.address() as AddressInfo).port;
    const refusal = checkRequest(request, { token, port });
    if (refusal)
      return send(
        response,
        refusal.status,
        { 'Content-Type': 'text/plain; charset=utf-8' },
        `${refusal.reason}\n`,
      );
    // A page that opened its event stream was looked at (a held call's console lingers for it).
    if (request.url?.startsWith('/api/events')) viewed = true;
    route(request, response, deps, streams, token, frames, observe).catch((error: unknown) =>
      sendJson(response, {
        status: error instanceof McpxError && error.code !== ErrorCode.Internal ? 400 : 500,
        body: errorToJson(error),
      }),
    );
  });
  const port = await listen(server, options.port ?? 0).catch(async (error: unknown) => {
    await frames.close();
    throw error;
  });
  consolePort = port;
  const url = `http://127.0.0.1:${port}/?token=${token}`;
  return {
    url,
    ...(held ? { link: `${url}&call=${held.id}` } : {}),
    viewers: () => ({ open: streams.size, ever: viewed }),
    async close() {
      unlisten();
      unwatch?.();
      unhear();
      unhookAudit();
      questions.denyAll();
      for (const stream of streams) stream.end();
      streams.clear();
      await frames.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The terminal's call, listed as made and ended, with the result the terminal showed. */
function holdCall(calls: CallHistory, held: HeldCall): ConsoleCall {
  const call = calls.begin(held.server, held.tool, held.args);
  calls.returned(call, held.result);
  return call;
}

async function route(
  request: IncomingMessage,
  response: ServerResponse,
  deps: ConsoleApiDeps,
  streams: Set<ServerResponse>,
  token: string,
  frames: AppFrames,
  observe: Observe,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://console');
  const key = `${request.method} ${url.pathname}`;
  switch (key) {
    case 'GET /':
      return send(
        response,
        200,
        { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': consoleCsp(frames.origin) },
        pageHtml(token),
      );
    case 'GET /console.js':
      return send(response, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }, PAGE_SCRIPT);
    case 'GET /app-host.js':
      appHostScript ??= readAppHost();
      return send(
        response,
        200,
        { 'Content-Type': 'text/javascript; charset=utf-8' },
        await appHostScript.catch((error: unknown) => {
          appHostScript = undefined;
          throw error;
        }),
      );
    case 'GET /console-observe.js':
      return send(response, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }, OBSERVE_SCRIPT);
    case 'GET /api/waterfalls':
      return sendJson(response, waterfallsForPage(observe.waterfalls));
    case 'GET /api/daemon':
      return sendJson(response, await daemonForPage(observe.daemonStatus));
    case 'GET /console.css':
      return send(response, 200, { 'Content-Type': 'text/css; charset=utf-8' }, PAGE_STYLE);
    case 'GET /api/state':
      return sendJson(response, { status: 200, body: await consoleState(deps) });
    case 'GET /api/events':
      response.writeHead(200, { ...COMMON_HEADERS, 'Content-Type': 'text/event-stream' });
      response.write(': console events\n\n');
      streams.add(response);
      response.once('close', () => streams.delete(response));
      return;
    case 'GET /api/resources':
      return sendJson(response, await listEach(deps, 'resources'));
    case 'GET /api/prompts':
      return sendJson(response, await listEach(deps, 'prompts'));
    case 'GET /api/read':
      return sendJson(response, await readFromPage(deps, url.searchParams));
    case 'POST /api/call':
      return sendJson(response, await callFromPage(deps, await readJson(request)));
    case 'POST /api/app':
      return sendJson(response, await openAppFromPage(deps, await readJson(request)));
    case 'POST /api/app-call':
      return sendJson(response, await appCallFromPage(deps, await readJson(request)));
    case 'POST /api/answer':
      return sendJson(response, answerFromPage(deps, await readJson(request)));
    default:
      return sendJson(response, {
        status: 404,
        body: errorToJson(new McpxError(ErrorCode.Usage, `the console has no ${key}`)),
      });
  }
}

function send(response: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  response.writeHead(status, { ...COMMON_HEADERS, ...headers });
  response.end(body);
}

function sendJson(response: ServerResponse, answer: ApiAnswer): void {
  if (response.headersSent) return void response.end();
  send(
    response,
    answer.status,
    { 'Content-Type': 'application/json; charset=utf-8' },
    JSON.stringify(answer.body),
  );
}

/** A POST's JSON body: `application/json` only (a form another site posts is not), at most 1 MiB. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  if (!(request.headers['content-type'] ?? '').startsWith('application/json'))
    throw new McpxError(
      ErrorCode.Usage,
      'the console takes JSON bodies only (Content-Type: application/json)',
    );
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > POST_LIMIT)
      throw new McpxError(ErrorCode.MessageTooLarge, 'a console request is limited to 1 MiB');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new McpxError(ErrorCode.Usage, 'the request body is not JSON');
  }
}

function listen(server: ReturnType<typeof createServer>, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new McpxError(ErrorCode.Usage, `the console cannot listen on 127.0.0.1:${port}: ${error.message}`, {
          cause: error,
          fixes: ['give another --port, or leave --port out for one the system picks'],
        }),
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}
