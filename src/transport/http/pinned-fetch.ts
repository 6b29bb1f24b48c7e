import type { LookupAddress, LookupOptions } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { linkSignal } from '../linked-signal.js';

/** The fetch shape the SDK transports accept. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Resolves and checks a connection's host; throws to refuse it. */
export type CheckedResolve = (url: URL, hostname: string) => Promise<readonly LookupAddress[]>;

/** A network error from {@link createPinnedFetch}, saying whether the request had left. */
export interface PinnedFetchError extends Error {
  /** True once the whole request (headers and body) was handed to the socket. */
  readonly requestSent?: boolean;
}

/** A kept-alive socket no request used for this long is closed, whatever the server allows. */
export const IDLE_SOCKET_TIMEOUT_MS = 60_000;

export interface PinnedFetch {
  readonly fetch: FetchLike;
  /** Ends the keep-alive sockets. */
  close(): void;
}

/**
 * A fetch over `node:http`/`node:https` whose sockets connect only to
 * addresses `resolve` has checked: the check runs inside the socket's own DNS
 * lookup, so a name cannot resolve to a safe address for the check and to
 * another one for the connection (DNS rebinding). Redirects are never
 * followed; compression is never asked for. Errors carry `requestSent`.
 *
 * Node's global fetch (undici) cannot take a lookup function without undici's
 * own Agent, which is not a dependency; this is the dependency-free way.
 */
export function createPinnedFetch(resolve: CheckedResolve): PinnedFetch {
  // Node's agent honours a server's `Keep-Alive: timeout=N` (dropping an idle socket a second
  // before the server does) only when the agent has a timeout of its own. Without one it reuses a
  // socket the server is closing at that moment, and the request fails with ECONNRESET: under
  // load a gateway lost calls to an HTTP upstream this way. For a socket in use the timeout only
  // notifies; a long response or event stream is not cut.
  const options = { keepAlive: true, timeout: IDLE_SOCKET_TIMEOUT_MS };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };

  const fetch: FetchLike = async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body = init.body === undefined || init.body === null ? undefined : await bodyBytes(init.body);
    if (body !== undefined) headers['content-length'] = String(body.byteLength);
    const lookup: LookupFunction = (hostname, options: LookupOptions, callback) => {
      resolve(url, hostname).then(
        (addresses) => {
          if (options.all) return callback(null, addresses as LookupAddress[]);
          const chosen =
            addresses.find((a) => !options.family || a.family === options.family) ?? addresses[0];
          if (!chosen)
            return callback(
              Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }),
              '',
            );
          callback(null, chosen.address, chosen.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, ''),
      );
    };
    const secure = url.protocol === 'https:';
    // The SDK hands every POST of a 2025 session the transport's one signal: give each request a
    // child of it, or `http.request` adds one listener per request in flight to that signal.
    const link = init.signal ? linkSignal(init.signal) : undefined;
    return new Promise<Response>((settle, reject) => {
      let sent = false;
      const request = (secure ? https : http).request(url, {
        method,
        headers,
        agent: secure ? agents.https : agents.http,
        lookup,
        ...(link ? { signal: link.signal } : {}),
      });
      // 'close' comes once the response has been read or the request destroyed.
      if (link) request.once('close', link.release);
      request.once('finish', () => {
        sent = true;
      });
      request.once('error', (error) => reject(Object.assign(error, { requestSent: sent })));
      request.once('response', (response) => {
        const status = response.statusCode ?? 0;
        const responseHeaders = new Headers();
        const raw = response.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2)
          responseHeaders.append(raw[i] as string, raw[i + 1] as string);
        const noBody = method === 'HEAD' || status === 204 || status === 205 || status === 304;
        if (noBody) response.resume();
        try {
          settle(
            new Response(noBody ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), {
              status,
              statusText: response.statusMessage ?? '',
              headers: responseHeaders,
            }),
          );
        } catch (error) {
          response.destroy();
          reject(error);
        }
      });
      request.end(body);
    });
  };

  return {
    fetch,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

async function bodyBytes(body: NonNullable<RequestInit['body']>): Promise<Buffer> {
  if (typeof body === 'string') return Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}
