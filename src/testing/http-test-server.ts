/**
 * `mcpx-test-server` over HTTP: the same catalogue as the stdio test server,
 * served on 127.0.0.1 only, in one of four eras, with HTTP misbehaviour on demand.
 *
 * Run it as `node dist/testing/http-test-server.js --port 0 [--era modern|legacy|both|sse] [--keep-alive-ms N]`;
 * it prints `listening on http://127.0.0.1:PORT/mcp`. In-process: {@link startHttpTestServer}.
 *
 * Eras:
 * - `modern`: 2026-07-28 only, stateless (the SDK's `createMcpHandler`, legacy rejected).
 * - `legacy`: 2025-11-25 Streamable HTTP with sessions and resumable streams
 *   (`WebStandardStreamableHTTPServerTransport` with an event store).
 * - `both` (default): each request routed by era (`isLegacyRequest`).
 * - `sse`: the 2024-11-05 HTTP+SSE transport (GET /mcp opens the stream; POST /mcp is 405).
 *
 * Faults (`MCPX_HTTP_FAULT=name[:n],…` or options): `unavailable:N` (first N requests
 * 503 with `Retry-After`, seconds from `MCPX_HTTP_RETRY_AFTER`, default 0), `rate-limit:N`
 * (the same with 429), `redirect` (302 to the cloud metadata address), `expire-session:K`
 * (a session answers 404 after K requests), `drop-stream:N` (the first N POST SSE
 * responses lose their connection after `MCPX_HTTP_DROP_AFTER` progress events,
 * default 1), `drop-listen:N` (the first N `subscriptions/listen` streams are cut after
 * the acknowledgement, and the tool list changes after each cut), `slow:MS`,
 * `slow-first:MS` (only the first answer is late), `bad-session-id`,
 * `header-mismatch` (the era probe is refused with -32020, as a header-rewriting proxy
 * causes), `future-only` (2026-era requests refused with -32022, supporting only a
 * later revision), `corrective` (the first era probe refused with -32022 naming
 * 2026-07-28), `sse-drop-after:N` (HTTP+SSE: the event stream dies after N messages), `omit-result-type` (results without
 * `resultType`, as servers written before 2026-07-28 made it required send them).
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import {
  createMcpHandler,
  isLegacyRequest,
  type JSONRPCMessage,
  type McpHttpHandler,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import {
  createSseEventLog,
  initializeBody,
  outliveClientKeepAlive,
  type StreamCutter,
  toWebRequest,
  trackSockets,
  writeWebResponse,
} from '../gateway/server-kit.js';
import { ChangingResource, createTestServer, type TestServerOptions } from './catalog.js';
import { LegacySseServerTransport } from './http-sse-legacy.js';

export type HttpTestEra = 'modern' | 'legacy' | 'both' | 'sse';

/** HTTP misbehaviour; every field is off by default. */
export interface HttpFaults {
  /** The first N requests are answered 503 with `Retry-After: retryAfterSeconds`. */
  readonly unavailable?: number;
  readonly retryAfterSeconds?: number;
  /** Every request is answered 302 to this URL (`true`: http://169.254.169.254/latest/meta-data/). */
  readonly redirect?: boolean | string;
  /** A session answers 404 (expired) after this many requests in it. */
  readonly expireSessionAfter?: number;
  /** The first N POST responses streamed as SSE lose their connection mid-stream. */
  readonly dropStream?: number;
  /** How many progress events go out before the drop (0: none, not even the priming event). */
  readonly dropAfterProgress?: number;
  /** Every response is delayed this long. */
  readonly slowMs?: number;
  /** The first request is answered only after this long (a cold start). */
  readonly firstAnswerDelayMs?: number;
  /** The first N requests are answered 429 with `Retry-After: retryAfterSeconds`. */
  readonly rateLimited?: number;
  /** The first N `subscriptions/listen` streams are cut once acknowledged; the tool list changes after each cut. */
  readonly dropListen?: number;
  /**
   * 2026-07-28 refusals: `header-mismatch` answers every `server/discover` 400
   * with -32020 (a proxy rewrote the Mcp-* headers); `future-only` answers every
   * 2026-era request 400 with -32022, supporting only 2099-01-01; `corrective`
   * answers the first `server/discover` 400 with -32022 naming 2026-07-28.
   */
  readonly modernRefusal?: 'header-mismatch' | 'future-only' | 'corrective';
  /** HTTP+SSE era: each event stream is cut after this many messages went out on it. */
  readonly sseDropAfter?: number;
  /** Sessions get an id mcpx must refuse (it contains spaces). */
  readonly badSessionId?: boolean;
  /** Results go out without `resultType`, as servers written before it was required send them. */
  readonly omitResultType?: boolean;
}

export interface HttpTestServerOptions extends TestServerOptions {
  /** Defaults to 0: a port chosen by the OS. */
  readonly port?: number;
  readonly era?: HttpTestEra;
  readonly faults?: HttpFaults;
  /** The SSE `retry` (ms) a 2025 server announces for resuming a broken stream. Default 100. */
  readonly retryIntervalMs?: number;
  /** Modern era: how results are shaped (`sse` always streams). Default `auto`. */
  readonly responseMode?: 'auto' | 'sse' | 'json';
  /**
   * How long an idle keep-alive connection stays open (default 65 s, as the gateway's: with Node's
   * own 5 s a loaded client that reuses a socket the server is closing at that moment gets
   * ECONNRESET).
   */
  readonly keepAliveTimeoutMs?: number;
}

export interface HttpTestServer {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly port: number;
  /** Requests seen so far, by `METHOD jsonrpc-method` (e.g. `POST tools/call`, `GET`, `DELETE`). */
  readonly requests: readonly string[];
  /** Ids of the `subscriptions/listen` requests received, in order. */
  readonly listenIds: readonly (string | number)[];
  /** Forget every 2025 session now: their next request is answered 404. */
  expireSessions(): void;
  /** Announce that the tool list changed: to every 2025 session, and on every open 2026 listen stream. */
  announceToolListChanged(): Promise<void>;
  /** Change `test://counter` (as its `touch_resource` tool does); subscribers are told. */
  touchResource(): void;
  close(): Promise<void>;
}

const METADATA_URL = 'http://169.254.169.254/latest/meta-data/';

/** Start the server on 127.0.0.1 and resolve once it listens. */
// Long because its routes share the test server's sessions, faults and request log in one closure.
export async function startHttpTestServer(options: HttpTestServerOptions = {}): Promise<HttpTestServer> {
  const era = options.era ?? 'both';
  const faults = options.faults ?? {};
  const requests: string[] = [];
  const listenIds: (string | number)[] = [];
  const counter = options.counter ?? new ChangingResource();
  const factory = () => createTestServer({ ...options, counter });
  let modern: McpHttpHandler | undefined;
  let stopNotifying = () => {};
  if (era === 'modern' || era === 'both') {
    // One instance per request: changes go out on the handler's subscriptions/listen bus.
    const stateless = () => createTestServer({ ...options, counter, sendsResourceUpdates: false });
    const handler = createMcpHandler(stateless, {
      legacy: 'reject',
      keepAliveMs: 0,
      ...(options.responseMode ? { responseMode: options.responseMode } : {}),
    });
    modern = handler;
    stopNotifying = counter.onTouch((uri) => handler.notify.resourceUpdated(uri));
  }
  const sessions = new Map<
    string,
    { transport: WebStandardStreamableHTTPServerTransport; server: Server; requests: number }
  >();
  const sseSessions = new Map<string, LegacySseServerTransport>();
  let requestCount = 0;
  let dropsLeft = faults.dropStream ?? 0;
  let listenDropsLeft = faults.dropListen ?? 0;

  const legacy = async (request: Request): Promise<Response> => {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return jsonError(404, -32001, 'Session not found');
      session.requests++;
      if (faults.expireSessionAfter !== undefined && session.requests > faults.expireSessionAfter) {
        sessions.delete(sessionId);
        await session.transport.close().catch(() => {});
        return jsonError(404, -32001, 'Session not found');
      }
      return session.transport.handleRequest(request);
    }
    const body = await initializeBody(request);
    if (!body) return jsonError(400, -32000, 'Bad Request: No valid session ID provided');
    const server = factory();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => (faults.badSessionId ? `bad session ${randomUUID()}` : randomUUID()),
      // A bounded log of its own per session, collected with the transport.
      eventStore: createSseEventLog().forSession('session'),
      retryInterval: options.retryIntervalMs ?? 100,
      keepAliveMs: 0,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, requests: 0 });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  };

  const route = async (req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> => {
    const url = new URL(req.url ?? '/', origin);
    if (era === 'sse') return routeSse(req, res, url);
    if (url.pathname !== '/mcp') return void res.writeHead(404).end('not found');
    const request = toWebRequest(req, origin);
    requests.push(`${req.method} ${await describeRpc(request)}`.trim());
    let handler: (r: Request) => Promise<Response>;
    if (era === 'legacy') handler = legacy;
    else if (era === 'modern' || !(await isLegacyRequest(request)))
      handler = (r) => (modern as McpHttpHandler).fetch(r);
    else handler = legacy;
    const listen = await listenIdOf(request);
    if (listen !== undefined) listenIds.push(listen);
    let response = (await modernRefusal(request)) ?? (await handler(request));
    if (faults.omitResultType) response = withoutResultType(response);
    const streamed =
      req.method === 'POST' && response.headers.get('content-type')?.startsWith('text/event-stream');
    let cut: StreamCutter | undefined;
    if (streamed && listen !== undefined) {
      if (listenDropsLeft > 0) {
        listenDropsLeft--;
        cut = (text) => text.includes('notifications/subscriptions/acknowledged');
        res.once('close', () => {
          // The change happens while the client has no stream: only a client that listens again learns of it.
          setTimeout(() => void announce(), 20).unref();
        });
      }
    } else if (streamed && dropsLeft > 0) {
      dropsLeft--;
      cut = progressCutter(faults.dropAfterProgress ?? 1);
    }
    await writeWebResponse(res, response, cut);
  };

  let discoverRefusals = 0;
  /** The 2026-07-28 refusals of `faults.modernRefusal`, or undefined to serve the request. */
  const modernRefusal = async (request: Request): Promise<Response | undefined> => {
    const refusal = faults.modernRefusal;
    if (!refusal || request.method !== 'POST') return undefined;
    const body = (await request
      .clone()
      .json()
      .catch(() => undefined)) as { id?: string | number; method?: string } | undefined;
    const id = body?.id ?? null;
    const modernEra = (request.headers.get('mcp-protocol-version') ?? '') >= '2026';
    if (refusal === 'header-mismatch' && body?.method === 'server/discover') {
      return jsonError(400, -32020, 'Header mismatch: Mcp-Method does not match the request body', id);
    }
    if (refusal === 'future-only' && (modernEra || body?.method === 'initialize')) {
      return jsonError(400, -32022, 'Unsupported protocol version', id, {
        supported: ['2099-01-01'],
        requested: request.headers.get('mcp-protocol-version') ?? 'unknown',
      });
    }
    if (refusal === 'corrective' && body?.method === 'server/discover' && discoverRefusals++ === 0) {
      return jsonError(400, -32022, 'Unsupported protocol version', id, {
        supported: ['2026-07-28'],
        requested: '2026-07-28-draft',
      });
    }
    return undefined;
  };

  const announce = async () => {
    modern?.notify.toolsChanged();
    for (const session of sessions.values()) await session.server.sendToolListChanged().catch(() => {});
    for (const transport of sseSessions.values())
      await transport.server?.sendToolListChanged().catch(() => {});
  };

  const routeSse = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    requests.push(`${req.method} ${url.pathname}`);
    if (req.method === 'GET' && url.pathname === '/mcp') {
      const transport = new LegacySseServerTransport(res, '/mcp/messages', faults.sseDropAfter);
      sseSessions.set(transport.sessionId, transport);
      transport.onclose = () => sseSessions.delete(transport.sessionId);
      transport.server = factory();
      await transport.server.connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/mcp/messages') {
      const transport = sseSessions.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) return void res.writeHead(404).end('unknown session');
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let message: JSONRPCMessage;
      try {
        message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JSONRPCMessage;
      } catch {
        return void res.writeHead(400).end('invalid JSON');
      }
      res.writeHead(202).end('Accepted');
      transport.receive(message);
      return;
    }
    res.writeHead(url.pathname === '/mcp' ? 405 : 404, { allow: 'GET' }).end();
  };

  const server: NodeServer = createServer((req, res) => {
    const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
    requestCount++;
    void (async () => {
      if (faults.slowMs) await delay(faults.slowMs);
      if (faults.firstAnswerDelayMs && requestCount === 1) await delay(faults.firstAnswerDelayMs);
      const busy =
        faults.unavailable !== undefined && requestCount <= faults.unavailable
          ? 503
          : faults.rateLimited !== undefined && requestCount <= faults.rateLimited
            ? 429
            : undefined;
      if (busy) {
        req.resume();
        requests.push(`${req.method} (${busy})`);
        return void res.writeHead(busy, { 'retry-after': String(faults.retryAfterSeconds ?? 0) }).end('busy');
      }
      if (faults.redirect) {
        req.resume();
        requests.push(`${req.method} (302)`);
        const location = typeof faults.redirect === 'string' ? faults.redirect : METADATA_URL;
        return void res.writeHead(302, { location }).end();
      }
      await route(req, res, origin);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.destroy();
    });
  });
  const destroySockets = trackSockets(server);
  outliveClientKeepAlive(server, options.keepAliveTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Node's default backlog (511) resets connections past it: a burst of 2,000 calls in flight
    // on one 2025 session (one socket each) must measure mcpx, not the listen queue.
    server.listen({ port: options.port ?? 0, host: '127.0.0.1', backlog: 4096 }, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    listenIds,
    announceToolListChanged: announce,
    expireSessions() {
      for (const [id, session] of sessions) {
        sessions.delete(id);
        void session.transport.close().catch(() => {});
      }
    },
    touchResource() {
      counter.touch();
    },
    async close() {
      stopNotifying();
      for (const session of sessions.values()) await session.transport.close().catch(() => {});
      for (const transport of sseSessions.values()) await transport.close().catch(() => {});
      await modern?.close().catch(() => {});
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      destroySockets();
      await closed;
    },
  };
}

function jsonError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  data?: unknown,
): Response {
  return Response.json(
    { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } },
    { status },
  );
}

/** The id of a `subscriptions/listen` request, if the request is one. */
async function listenIdOf(request: Request): Promise<string | number | undefined> {
  if (request.method !== 'POST') return undefined;
  const body = (await request
    .clone()
    .json()
    .catch(() => undefined)) as { id?: string | number; method?: string } | undefined;
  return body?.method === 'subscriptions/listen' ? body.id : undefined;
}

async function describeRpc(request: Request): Promise<string> {
  if (request.method !== 'POST') return '';
  const body = await request
    .clone()
    .json()
    .catch(() => undefined);
  const messages = (Array.isArray(body) ? body : [body]) as { method?: unknown }[];
  return messages.map((m) => (typeof m?.method === 'string' ? m.method : 'response')).join(',');
}

/** Cut after `count` progress notifications have gone out (0: before anything). */
function progressCutter(count: number): StreamCutter {
  let seen = 0;
  return (text) => {
    if (count === 0) return true;
    seen += text.split('notifications/progress').length - 1;
    return seen >= count;
  };
}

/** The same response with `resultType` removed from every JSON-RPC result, JSON or SSE, streamed as it comes. */
function withoutResultType(response: Response): Response {
  const type = response.headers.get('content-type') ?? '';
  if (!response.body || !(type.startsWith('application/json') || type.startsWith('text/event-stream')))
    return response;
  const strip = (json: string): string => {
    try {
      const value = JSON.parse(json) as unknown;
      for (const message of Array.isArray(value) ? value : [value]) {
        const result = (message as { result?: Record<string, unknown> } | null)?.result;
        if (result && typeof result === 'object') delete result.resultType;
      }
      return JSON.stringify(value);
    } catch {
      return json;
    }
  };
  let body: ReadableStream<Uint8Array>;
  if (type.startsWith('application/json')) {
    body = new ReadableStream({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode(strip(await new Response(response.body).text())));
        controller.close();
      },
    });
  } else {
    let pending = '';
    body = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(
      new TransformStream<string, Uint8Array>({
        transform(chunk, controller) {
          pending += chunk;
          const lines = pending.split('\n');
          pending = lines.pop() ?? '';
          const out = lines.map((l) => (l.startsWith('data: ') ? `data: ${strip(l.slice(6))}` : l));
          controller.enqueue(new TextEncoder().encode(out.map((l) => `${l}\n`).join('')));
        },
        flush(controller) {
          if (pending) controller.enqueue(new TextEncoder().encode(pending));
        },
      }),
    );
  }
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** Parses `MCPX_HTTP_FAULT` (`unavailable:2,rate-limit:1,redirect,expire-session:3,drop-stream:1,drop-listen:5,slow:500,slow-first:5000,bad-session-id,header-mismatch,sse-drop-after:2,omit-result-type`; see the module comment). */
export function parseHttpFaults(
  value: string | undefined,
  env: Readonly<Record<string, string | undefined>> = {},
): HttpFaults {
  const faults: { -readonly [K in keyof HttpFaults]: HttpFaults[K] } = {};
  for (const item of (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, raw] = item.split(':');
    const n = raw === undefined ? undefined : Number(raw);
    if (n !== undefined && !(Number.isInteger(n) && n >= 0))
      throw new Error(`${item}: the count must be a whole number`);
    switch (name) {
      case 'unavailable':
        faults.unavailable = n ?? 1;
        break;
      case 'redirect':
        faults.redirect = true;
        break;
      case 'expire-session':
        faults.expireSessionAfter = n ?? 1;
        break;
      case 'drop-stream':
        faults.dropStream = n ?? 1;
        break;
      case 'slow':
        faults.slowMs = n ?? 1000;
        break;
      case 'slow-first':
        faults.firstAnswerDelayMs = n ?? 5000;
        break;
      case 'rate-limit':
        faults.rateLimited = n ?? 1;
        break;
      case 'drop-listen':
        faults.dropListen = n ?? 1;
        break;
      case 'header-mismatch':
      case 'future-only':
      case 'corrective':
        faults.modernRefusal = name;
        break;
      case 'sse-drop-after':
        faults.sseDropAfter = n ?? 1;
        break;
      case 'bad-session-id':
        faults.badSessionId = true;
        break;
      case 'omit-result-type':
        faults.omitResultType = true;
        break;
      default:
        throw new Error(`unknown HTTP fault '${name}'`);
    }
  }
  if (env.MCPX_HTTP_RETRY_AFTER) faults.retryAfterSeconds = Number(env.MCPX_HTTP_RETRY_AFTER);
  if (env.MCPX_HTTP_DROP_AFTER) faults.dropAfterProgress = Number(env.MCPX_HTTP_DROP_AFTER);
  return faults;
}

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const flag = (name: string) => {
    const index = argv.indexOf(name);
    return index === -1 ? undefined : argv[index + 1];
  };
  const era = (flag('--era') ?? env.MCPX_HTTP_ERA ?? 'both') as HttpTestEra;
  if (!['modern', 'legacy', 'both', 'sse'].includes(era))
    throw new Error(`--era must be modern, legacy, both or sse, not ${era}`);
  const port = Number(flag('--port') ?? env.PORT ?? 0);
  const keepAlive = flag('--keep-alive-ms');
  const server = await startHttpTestServer({
    port,
    era,
    ...(keepAlive === undefined ? {} : { keepAliveTimeoutMs: Number(keepAlive) }),
    faults: parseHttpFaults(env.MCPX_HTTP_FAULT, env),
    env,
  });
  process.stdout.write(`listening on ${server.url}\n`);
  const stop = () => {
    void server.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), process.env).catch((error: unknown) => {
    process.stderr.write(`mcpx-test-server (http): ${(error as Error).message}\n`);
    process.exit(2);
  });
}
