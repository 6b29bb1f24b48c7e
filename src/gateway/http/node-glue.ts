import type { IncomingMessage, Server as NodeServer, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { type InitializeRequest, isInitializeRequest } from '@modelcontextprotocol/server';

/**
 * A web-standard Request for a node:http request (the SDK's server handlers speak fetch).
 * `body`: the body already read (the gateway reads it first, to cap its size); else it streams.
 * `signal`: ends what the handler streams back when it aborts (a drain ending a listen stream).
 */
export function toWebRequest(
  req: IncomingMessage,
  origin: string,
  body?: Uint8Array,
  signal?: AbortSignal,
): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    ...(signal ? { signal } : {}),
    ...(hasBody ? { body: body ?? (Readable.toWeb(req) as ReadableStream<Uint8Array>), duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * A node:http request's headers read as a web `Headers` would read them (repeated ones joined
 * with ", "), without building one: the gateway's guard asks for three of them per request.
 */
export function headerLookup(req: IncomingMessage): { get(name: string): string | null } {
  return {
    get(name) {
      const wanted = name.toLowerCase();
      const raw = req.rawHeaders;
      let value: string | null = null;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        if ((raw[i] as string).toLowerCase() !== wanted) continue;
        value = value === null ? (raw[i + 1] as string) : `${value}, ${raw[i + 1]}`;
      }
      return value;
    },
  };
}

/** An SSE stream is written as it comes (its headers first: the client waits on them). */
function isEventStream(response: Response): boolean {
  return response.headers.get('content-type')?.toLowerCase().startsWith('text/event-stream') ?? false;
}

/** Decides, chunk by chunk, whether to cut the connection (the dropped-stream fault). */
export type StreamCutter = (text: string) => boolean;

/**
 * Write a web Response to a node:http response, streaming the body. `cut`
 * sees each chunk after it is written and may end the connection abruptly
 * (socket destroyed, as a crashing proxy would).
 */
export async function writeWebResponse(
  res: ServerResponse,
  response: Response,
  cut?: StreamCutter,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  if (response.body && !cut && !isEventStream(response)) {
    // A whole answer (JSON, an error): headers and body leave in one write, with a length.
    const data = new Uint8Array(await response.arrayBuffer());
    headers['content-length'] = String(data.byteLength);
    if (response.statusText) res.writeHead(response.status, response.statusText, headers);
    else res.writeHead(response.status, headers);
    res.end(data);
    return;
  }
  if (response.statusText) res.writeHead(response.status, response.statusText, headers);
  else res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.once('close', () => {
    reader.cancel().catch(() => {});
  });
  // A fault-injecting cutter sees each chunk leave on its own; else what one turn of the event
  // loop writes leaves in one system call: the headers with the first event, the last with the end.
  const together = cut ? () => {} : coalescer(res);
  together();
  res.flushHeaders();
  if (cut?.('')) {
    res.socket?.destroy();
    return;
  }
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      together();
      const written = new Promise<unknown>((resolve) => res.write(value, resolve));
      if (cut?.(decoder.decode(value, { stream: true }))) {
        // Let the chunk that triggered the cut reach the client first: destroy() drops unflushed data.
        await written;
        res.socket?.destroy();
        return;
      }
    }
    res.end();
  } catch {
    res.destroy();
  }
}

/**
 * Corks the response's socket once per turn of the event loop and uncorks it once the turn's
 * callbacks are done (`setImmediate`: a next tick would run before the promise callbacks that
 * read the stream), so the writes in between, and an `end()`, are one. The socket itself, not
 * the response: since Node 22 a corked response holds its writes back while `end()` sends its
 * terminating chunk at once, so a client read an empty body, then the events as garbage.
 */
function coalescer(res: ServerResponse): () => void {
  const target = res.socket ?? res;
  let corked = false;
  const uncork = () => {
    corked = false;
    target.uncork();
  };
  return () => {
    if (corked) return;
    corked = true;
    target.cork();
    setImmediate(uncork);
  };
}

/** How long an idle kept-alive connection stays open (Node's default, 5 s, drops busy clients' requests). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Keep idle connections open longer than any client keeps its own (undici and most proxies: 60 s).
 * With Node's 5 s default, a client whose event loop was busy for a few seconds writes its next
 * request onto a socket the server has just closed ("other side closed"). The headers timeout
 * must exceed the keep-alive one, or Node cuts a slow request that starts late on an idle socket;
 * the request timeout (whole request received) stays Node's 300 s.
 */
export function outliveClientKeepAlive(server: NodeServer, keepAliveMs = KEEP_ALIVE_TIMEOUT_MS): void {
  server.keepAliveTimeout = keepAliveMs;
  server.headersTimeout = keepAliveMs + 1_000;
  server.requestTimeout = Math.max(300_000, server.headersTimeout);
}

/**
 * The open connections of a node HTTP server, so close can end the kept-alive
 * ones (`server.close()` alone waits for every client to hang up).
 * Returns the function that destroys them.
 */
export function trackSockets(server: NodeServer): () => void {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return () => {
    for (const socket of sockets) socket.destroy();
  };
}

/**
 * The body of a sessionless 2025-11-25 POST when it opens a session (an `initialize`
 * request), else undefined. Read from a clone, so the transport can still read the request.
 */
export async function initializeBody(request: Request): Promise<InitializeRequest | undefined> {
  if (request.method !== 'POST') return undefined;
  const body: unknown = await request
    .clone()
    .json()
    .catch(() => undefined);
  return isInitializeRequest(body) ? body : undefined;
}
