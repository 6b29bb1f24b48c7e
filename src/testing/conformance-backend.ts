/**
 * `mcpx-conformance-backend`: the surface the official MCP conformance suite's server
 * scenarios expect (see `conformance-catalog.ts`), served over stdio (default; a gateway can
 * spawn it as a configured server) or over Streamable HTTP on 127.0.0.1 in both eras.
 *
 *   node dist/testing/conformance-backend.js                 # stdio, both eras
 *   node dist/testing/conformance-backend.js --port 0        # HTTP; prints `listening on http://127.0.0.1:PORT/mcp`
 *
 * Over HTTP, each request is routed by era: 2026-07-28 requests to the SDK's stateless
 * `createMcpHandler`, 2025 requests to a session of their own with resumable streams
 * (an event store, so `test_reconnection` can close a stream and the client resumes it).
 * Host and Origin are checked first (DNS rebinding: 403).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServer,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import {
  createSseEventLog,
  initializeBody,
  toWebRequest,
  trackSockets,
  writeWebResponse,
} from '../gateway/server-kit.js';
import { createConformanceServer } from './conformance-catalog.js';
import {
  CONFORMANCE_BACKEND_NAME,
  type ConformanceState,
  createConformanceState,
} from './conformance-kit.js';

export interface ConformanceBackend {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  close(): Promise<void>;
}

/** Serve the backend over Streamable HTTP on 127.0.0.1 (both eras); resolves once it listens. */
export async function startConformanceBackend(options: { port?: number } = {}): Promise<ConformanceBackend> {
  const state = createConformanceState();
  const modern = createMcpHandler(() => createConformanceServer(state), { legacy: 'reject', keepAliveMs: 0 });
  const sessions = new Map<
    string,
    { transport: WebStandardStreamableHTTPServerTransport; server: McpServer }
  >();
  state.onListChanged = (kind) => {
    if (kind === 'tools') modern.notify.toolsChanged();
    else modern.notify.promptsChanged();
    for (const { server } of sessions.values()) {
      if (kind === 'tools') server.sendToolListChanged();
      else server.sendPromptListChanged();
    }
  };

  const legacy = async (request: Request): Promise<Response> => {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return jsonError(404, -32001, 'Session not found');
      return session.transport.handleRequest(request);
    }
    const body = await initializeBody(request);
    if (!body) return jsonError(400, -32000, 'Bad Request: No valid session ID provided');
    const server = createConformanceServer(state);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // A bounded log of its own per session, collected with the transport.
      eventStore: createSseEventLog().forSession('session'),
      retryInterval: 100,
      keepAliveMs: 0,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  };

  const handle = async (request: Request): Promise<Response> => {
    const refused =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
      originValidationResponse(request, localhostAllowedOrigins());
    if (refused) return refused;
    if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 });
    return (await isLegacyRequest(request)) ? legacy(request) : modern.fetch(request);
  };

  const http: NodeServer = createServer((req, res) => {
    void handle(toWebRequest(req, 'http://127.0.0.1'))
      .then((response) => writeWebResponse(res, response))
      .catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
        else res.destroy();
      });
  });
  const destroySockets = trackSockets(http);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen({ port: options.port ?? 0, host: '127.0.0.1' }, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      for (const session of sessions.values()) await session.transport.close().catch(() => {});
      await modern.close().catch(() => {});
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      destroySockets();
      await closed;
    },
  };
}

/** Serve the backend on this process's stdin/stdout (either era, chosen by the client's first message). */
export function serveConformanceBackendOnStdio(onerror: (error: Error) => void): void {
  const state: ConformanceState = createConformanceState();
  const live = new Set<McpServer>();
  state.onListChanged = (kind) => {
    for (const server of live) {
      if (kind === 'tools') server.sendToolListChanged();
      else server.sendPromptListChanged();
    }
  };
  serveStdio(
    () => {
      const server = createConformanceServer(state);
      live.add(server);
      return server;
    },
    { onerror },
  );
}

function jsonError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status });
}

async function main(argv: readonly string[]): Promise<void> {
  const portIndex = argv.indexOf('--port');
  if (portIndex === -1) {
    // A client that hangs up must not turn a late write into an uncaught EPIPE.
    process.stdout.on('error', () => {});
    process.stdin.once('end', () => setTimeout(() => process.exit(0), 500).unref());
    serveConformanceBackendOnStdio((error) =>
      process.stderr.write(`${CONFORMANCE_BACKEND_NAME}: ${error.message}\n`),
    );
    return;
  }
  const port = Number(argv[portIndex + 1]);
  if (!Number.isInteger(port) || port < 0) throw new Error(`--port needs a port number (0: any free port)`);
  const backend = await startConformanceBackend({ port });
  process.stdout.write(`listening on ${backend.url}\n`);
  const stop = () => {
    void backend.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${CONFORMANCE_BACKEND_NAME}: ${(error as Error).message}\n`);
    process.exit(2);
  });
}
