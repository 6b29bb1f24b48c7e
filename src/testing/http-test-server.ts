/**
 * `mcpx-test-server` over HTTP: the same catalogue as the stdio test server,
 * served on 127.0.0.1 only, in one of four eras, with HTTP misbehaviour on demand.
 *
 * Run it as `node dist/testing/http-test-server.js --port 0 [--era modern|legacy|both|sse]`;
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
 * 503 with `Retry-After`, seconds from `MCPX_HTTP_RETRY_AFTER`, default 0), `redirect`
 * (302 to the cloud metadata address), `expire-session:K` (a session answers 404 after
 * K requests), `drop-stream:N` (the first N POST SSE responses lose their connection
 * after `MCPX_HTTP_DROP_AFTER` progress events, default 1), `slow:MS`, `bad-session-id`.
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
  isInitializeRequest,
  isLegacyRequest,
  type JSONRPCMessage,
  type McpHttpHandler,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { createTestServer, type TestServerOptions } from './catalog.js';
import { MemoryEventStore } from './http-event-store.js';
import { type StreamCutter, toWebRequest, writeWebResponse } from './http-node-glue.js';
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
  /** Sessions get an id mcpx must refuse (it contains spaces). */
  readonly badSessionId?: boolean;
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
}

export interface HttpTestServer {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly port: number;
  /** Requests seen so far, by `METHOD jsonrpc-method` (e.g. `POST tools/call`, `GET`, `DELETE`). */
  readonly requests: readonly string[];
  /** Forget every 2025 session now: their next request is answered 404. */
  expireSessions(): void;
  close(): Promise<void>;
}

const METADATA_URL = 'http://169.254.169.254/latest/meta-data/';

/** Start the server on 127.0.0.1 and resolve once it listens. */
export async function startHttpTestServer(options: HttpTestServerOptions = {}): Promise<HttpTestServer> {
  const era = options.era ?? 'both';
  const faults = options.faults ?? {};
  const requests: string[] = [];
  const factory = () => createTestServer(options);
  let modern: McpHttpHandler | undefined;
  if (era === 'modern' || era === 'both') {
    modern = createMcpHandler(factory, {
      legacy: 'reject',
      keepAliveMs: 0,
      ...(options.responseMode ? { responseMode: options.responseMode } : {}),
    });
  }
  const sessions = new Map<
    string,
    { transport: WebStandardStreamableHTTPServerTransport; requests: number }
  >();
  const sseSessions = new Map<string, LegacySseServerTransport>();
  let requestCount = 0;
  let dropsLeft = faults.dropStream ?? 0;

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
    const body =
      request.method === 'POST'
        ? await request
            .clone()
            .json()
            .catch(() => undefined)
        : undefined;
    if (!body || !isInitializeRequest(body))
      return jsonError(400, -32000, 'Bad Request: No valid session ID provided');
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => (faults.badSessionId ? `bad session ${randomUUID()}` : randomUUID()),
      eventStore: new MemoryEventStore(),
      retryInterval: options.retryIntervalMs ?? 100,
      keepAliveMs: 0,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, requests: 0 });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await factory().connect(transport);
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
    const response = await handler(request);
    const streamed =
      req.method === 'POST' && response.headers.get('content-type')?.startsWith('text/event-stream');
    let cut: StreamCutter | undefined;
    if (streamed && dropsLeft > 0) {
      dropsLeft--;
      cut = progressCutter(faults.dropAfterProgress ?? 1);
    }
    await writeWebResponse(res, response, cut);
  };

  const routeSse = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    requests.push(`${req.method} ${url.pathname}`);
    if (req.method === 'GET' && url.pathname === '/mcp') {
      const transport = new LegacySseServerTransport(res, '/mcp/messages');
      sseSessions.set(transport.sessionId, transport);
      transport.onclose = () => sseSessions.delete(transport.sessionId);
      await factory().connect(transport);
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
      if (faults.unavailable !== undefined && requestCount <= faults.unavailable) {
        req.resume();
        requests.push(`${req.method} (503)`);
        return void res.writeHead(503, { 'retry-after': String(faults.retryAfterSeconds ?? 0) }).end('busy');
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
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
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
    expireSessions() {
      for (const [id, session] of sessions) {
        sessions.delete(id);
        void session.transport.close().catch(() => {});
      }
    },
    async close() {
      for (const session of sessions.values()) await session.transport.close().catch(() => {});
      for (const transport of sseSessions.values()) await transport.close().catch(() => {});
      await modern?.close().catch(() => {});
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function jsonError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status });
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

/** Parses `MCPX_HTTP_FAULT` (`unavailable:2,redirect,expire-session:3,drop-stream:1,slow:500,bad-session-id`). */
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
      case 'bad-session-id':
        faults.badSessionId = true;
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
  const server = await startHttpTestServer({
    port,
    era,
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
