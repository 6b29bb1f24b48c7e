import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { GuardedHttp, guardedHttpOptions } from '../transport/http/index.js';
import { outsideSdkScope, withSdkDiagnostics } from '../transport/index.js';
import { startLoopbackListener } from './loopback.js';
import { describeOAuthFailure } from './oauth-failure.js';
import { McpxOAuthProvider } from './oauth-provider.js';
import type { SignInOptions, SignInOutcome } from './sign-in.js';

/** The sign-in itself (see `signIn`), loaded with the SDK's OAuth client on first use. */
export async function runSignIn(
  server: ServerConfig & { readonly url: string },
  options: SignInOptions,
): Promise<SignInOutcome> {
  const listener = await startLoopbackListener(
    options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
  );
  // Every request of the sign-in goes through the guard: the endpoints come from the server's
  // metadata, so they must be https and no more private than the server itself.
  const http = new GuardedHttp({
    ...guardedHttpOptions(server),
    passAuthChallenges: true,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.resolver ? { resolver: options.resolver } : {}),
  });
  try {
    let presented = false;
    const provider = new McpxOAuthProvider({
      server,
      store: options.store,
      redirectUrl: listener.redirectUrl,
      onAuthorize: outsideSdkScope(async (url: URL) => {
        presented = true;
        await options.present(url);
      }),
    });
    void options.pasted?.then((url) => url && listener.accept(url));
    const fetchFn = http.fetch as typeof fetch;
    const asked = await challengeOf(server, fetchFn);
    // Registering a client at a server that asks for no token only earns an error page.
    if (asked === 'accepted') return 'not-needed';
    const challenge = options.scope ? { ...asked, scope: options.scope } : asked;
    // Discover afresh at every sign-in: the server may have moved to another authorization server.
    await provider.invalidateCredentials('discovery');
    // A client registered for the device grant (`mcpx auth --device`) has no redirect URI: register anew.
    const client = (await provider.clientInformation()) as { grant_types?: string[] } | undefined;
    if (client?.grant_types && !client.grant_types.includes('authorization_code'))
      await provider.invalidateCredentials('client');
    // The SDK's auth() reports fallbacks with console.warn; the library never prints.
    const sdk = <T>(work: () => Promise<T>) => withSdkDiagnostics(server.name, options.onSdkDiagnostic, work);
    const first = await sdk(() =>
      auth(provider, {
        serverUrl: server.url,
        forceReauthorization: true,
        ...challenge,
        fetchFn,
      }),
    );
    if (first === 'AUTHORIZED' && !presented) return 'signed-in';
    const response = await untilAbandoned(listener.response, server, options.signal);
    const expected = await provider.expectedState();
    if (!expected || response.state !== expected) {
      throw new McpxError(
        ErrorCode.AuthRequired,
        `sign-in to '${server.name}' refused: the response's state does not match the request`,
        {
          server: server.name,
          causes: ['the redirect did not come from this sign-in (a stale tab, or a forged request)'],
          fixes: [`run \`mcpx auth ${server.name}\` again`],
        },
      );
    }
    await sdk(() =>
      auth(provider, {
        serverUrl: server.url,
        ...challenge,
        authorizationCode: response.code,
        ...(response.iss ? { iss: response.iss } : {}),
        fetchFn,
      }),
    );
    await provider.invalidateCredentials('verifier');
    return 'signed-in';
  } catch (error) {
    if (error instanceof McpxError) throw error;
    throw new McpxError(
      ErrorCode.AuthRequired,
      `sign-in to '${server.name}' failed: ${describeOAuthFailure(error)}`,
      {
        server: server.name,
        origin: server.origin,
        url: server.url,
        cause: error,
        fixes: [`run \`mcpx auth ${server.name}\` again; with --verbose for details`],
      },
    );
  } finally {
    await listener.close();
    http.close();
  }
}

/** The redirect, unless the person gives up waiting for it first. */
function untilAbandoned<T>(
  waiting: Promise<T>,
  server: ServerConfig,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (!signal) return waiting;
  const abandoned = () =>
    new McpxError(ErrorCode.Cancelled, `the sign-in to '${server.name}' was cancelled`, {
      server: server.name,
    });
  if (signal.aborted) return Promise.reject(abandoned());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abandoned());
    signal.addEventListener('abort', onAbort, { once: true });
    waiting.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * What the server itself asks for: an unauthenticated request answered 401
 * names its resource metadata and the scope it wants (`WWW-Authenticate`),
 * which the spec ranks above the scopes the metadata lists. `accepted` when
 * the server answered without asking for a token: a success, or a JSON-RPC
 * answer (a 2025 server's "no session" 400 comes from the MCP layer, which
 * sits behind any authorization).
 */
export async function challengeOf(
  server: ServerConfig & { readonly url: string },
  fetchFn: typeof fetch,
): Promise<{ resourceMetadataUrl?: URL; scope?: string } | 'accepted'> {
  try {
    const response = await fetchFn(server.url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...server.headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
      signal: AbortSignal.timeout(10_000),
    });
    if (response.status !== 401 && response.status !== 403) {
      const accepted = response.ok || (await isJsonRpcAnswer(response));
      await response.body?.cancel().catch(() => {});
      return accepted ? 'accepted' : {};
    }
    await response.body?.cancel().catch(() => {});
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  } catch {
    return {};
  }
}

const MAX_PROBE_BODY = 64 * 1024;

async function isJsonRpcAnswer(response: Response): Promise<boolean> {
  if (!(response.headers.get('content-type') ?? '').includes('json')) return false;
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MAX_PROBE_BODY) return false;
  try {
    const text = await response.text();
    if (text.length > MAX_PROBE_BODY) return false;
    const message = JSON.parse(text) as { jsonrpc?: unknown; error?: unknown; result?: unknown };
    return message.jsonrpc === '2.0' && (message.error !== undefined || message.result !== undefined);
  } catch {
    return false;
  }
}
