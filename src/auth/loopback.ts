import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, McpxError } from '../errors/index.js';

/** What the authorization server sent back to the redirect URI. */
export interface AuthorizationResponse {
  readonly code: string;
  readonly state?: string;
  readonly iss?: string;
}

/** Parse a redirected URL (from the loopback listener, or pasted by a person on a remote machine). */
export function parseAuthorizationResponse(input: string | URL): AuthorizationResponse {
  const url = typeof input === 'string' ? new URL(input.trim()) : input;
  const error = url.searchParams.get('error');
  if (error) {
    const description = url.searchParams.get('error_description');
    throw new McpxError(
      ErrorCode.AuthRequired,
      `the authorization server refused the sign-in: ${error}${description ? ` (${description})` : ''}`,
      {
        fixes: ['try `mcpx auth <server>` again, and accept the request in the browser'],
      },
    );
  }
  const code = url.searchParams.get('code');
  if (!code) {
    throw new McpxError(ErrorCode.AuthRequired, 'the redirected URL carries no authorization code', {
      fixes: ['paste the whole URL the browser ended on (it contains ?code=...)'],
    });
  }
  const state = url.searchParams.get('state') ?? undefined;
  const iss = url.searchParams.get('iss') ?? undefined;
  return { code, ...(state ? { state } : {}), ...(iss ? { iss } : {}) };
}

export interface LoopbackListener {
  /** `http://127.0.0.1:PORT/callback` */
  readonly redirectUrl: string;
  /** The first callback that arrives (or a pasted URL handed to `accept`). */
  readonly response: Promise<AuthorizationResponse>;
  /** Finish with a URL obtained some other way (pasted by the person). */
  accept(url: string): void;
  close(): Promise<void>;
}

const PAGE = (ok: boolean) =>
  `<!doctype html><meta charset="utf-8"><title>mcpx</title><p>${ok ? 'Signed in. You can close this tab and return to the terminal.' : 'Sign-in failed; see the terminal.'}</p>`;

/** A one-shot listener on 127.0.0.1 for the authorization redirect. */
export async function startLoopbackListener(
  options: { port?: number; timeoutMs?: number } = {},
): Promise<LoopbackListener> {
  let settle: { resolve: (r: AuthorizationResponse) => void; reject: (e: Error) => void } | undefined;
  const response = new Promise<AuthorizationResponse>((resolve, reject) => {
    settle = { resolve, reject };
  });
  response.catch(() => {});
  let done = false;
  const finish = (input: string | URL) => {
    if (done) return false;
    try {
      const parsed = parseAuthorizationResponse(input);
      done = true;
      settle?.resolve(parsed);
      return true;
    } catch (error) {
      done = true;
      settle?.reject(error as Error);
      return false;
    }
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const ok = finish(url);
    res.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE(ok));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const timer = setTimeout(() => {
    if (done) return;
    done = true;
    settle?.reject(
      new McpxError(
        ErrorCode.AuthRequired,
        `no sign-in arrived within ${Math.round((options.timeoutMs ?? 300_000) / 1000)} s`,
        {
          fixes: [
            'run `mcpx auth <server>` again; on a remote machine use --no-browser and paste the redirected URL',
          ],
        },
      ),
    );
  }, options.timeoutMs ?? 300_000);
  timer.unref();
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    response,
    accept: (url) => void finish(url),
    close: () => {
      clearTimeout(timer);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
