import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AppCspSources, appCsp } from './app-csp.js';

/** One App page waiting to be loaded by its frame. */
interface WaitingApp {
  readonly html: string;
  readonly sources: AppCspSources;
}

/** The second origin the console's Apps are served from (see `createAppFrames`). */
export interface AppFrames {
  /** `http://127.0.0.1:PORT2`: not the console's origin. */
  readonly origin: string;
  /** Keep `html` for one load; the URL its frame loads (once: a second load is refused). */
  add(html: string, sources: AppCspSources): string;
  close(): Promise<void>;
}

/** How long an App page waits for its frame before it is dropped. */
const WAIT_MS = 60_000;

/**
 * A second loopback listener, on its own port (so its own origin), that serves each App's HTML
 * once, at a random unguessable path, with the CSP its resource declares (`appCsp`) and framed
 * only by the console's page. It serves nothing else: no API, no token, no other page. The frame
 * that loads it is sandboxed (`allow-scripts` only) by the page, so the App runs in an opaque
 * origin besides: it can reach neither this listener's nor the console's.
 */
export async function createAppFrames(consoleOrigin: () => string): Promise<AppFrames> {
  const waiting = new Map<string, WaitingApp>();
  const server = createServer((request, response) => serve(request, response));
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const origin = `http://127.0.0.1:${port}`;
  function serve(request: IncomingMessage, response: ServerResponse): void {
    const id = /^\/app\/([0-9a-f]{48})$/.exec(request.url ?? '')?.[1];
    const app = id === undefined ? undefined : waiting.get(id);
    const headers = {
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    };
    if (request.method !== 'GET' || request.headers.host !== `127.0.0.1:${port}` || !id || !app) {
      response.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('no such app\n');
      return;
    }
    waiting.delete(id);
    response.writeHead(200, {
      ...headers,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': appCsp(app.sources, consoleOrigin()),
    });
    response.end(app.html);
  }
  return {
    origin,
    add(html, sources) {
      const id = randomBytes(24).toString('hex');
      waiting.set(id, { html, sources });
      setTimeout(() => waiting.delete(id), WAIT_MS).unref();
      return `${origin}/app/${id}`;
    },
    close() {
      waiting.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
