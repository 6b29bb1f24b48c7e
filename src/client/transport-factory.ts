import type { SignInFetch, SignInOptions } from '../auth/index.js';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import {
  createStdioServerTransport,
  type HttpTransportHooks,
  type PackageInstallEvent,
} from '../transport/index.js';
import type { ManagedTransport } from './server-connection.js';

/** What `createServerTransport` builds a transport with: the host's environment, and callbacks for what a server says outside the protocol. */
export interface TransportHooks {
  /** The host's environment; only safe keys and `env_passthrough` names reach a stdio server. */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly platform?: NodeJS.Platform;
  readonly onStderrLine?: (line: string) => void;
  readonly onInvalidLine?: (line: string) => void;
  /** A stdio line that looks like a JSON-RPC reply but is malformed, and answers no known request. */
  readonly onMalformedMessage?: (error: McpxError) => void;
  /** A package runner's install (npx, uvx, …): started, finished, waited for, rolled back. */
  readonly onPackageInstall?: (event: PackageInstallEvent) => void;
  /** Remote servers: retry reporting, size cap and (tests) network fakes. */
  readonly http?: HttpTransportHooks;
  /** The mcpx home: remote servers use the OAuth tokens stored under it (`mcpx auth`). */
  readonly oauthHome?: string;
  /**
   * An interactive host: a signed-in server that refuses the token mid-session
   * (step-up to a wider scope, or a move to another authorization server) is
   * signed in to again this way, and the request retried. Absent: such a
   * request fails with AUTH_REQUIRED, naming `mcpx auth`.
   */
  readonly signIn?: Pick<SignInOptions, 'present' | 'pasted' | 'timeoutMs'>;
  /**
   * The keep-alive daemon, which asks no one: its callers sign in at their own
   * terminals. A refused token is replaced by a newer one a caller stored, if
   * there is one; otherwise the request fails with AUTH_REQUIRED saying which
   * scope a sign-in needs (`signIn` in its context), for the caller to act on.
   */
  readonly callerSignsIn?: boolean;
  /**
   * A request found the server's sign-in ended (the authorization server refused to renew it):
   * the error each request now fails with, and when the sign-in ended.
   */
  readonly onSignInEnded?: (error: McpxError, endedAt: number) => void;
}

/**
 * The transport a server's config asks for: stdio, or Streamable HTTP / HTTP+SSE
 * for a `url`. The HTTP stack is loaded only for a remote server (a promise
 * then), so a stdio call never pays for it.
 */
export function createServerTransport(
  server: ServerConfig,
  hooks: TransportHooks,
): ManagedTransport | Promise<ManagedTransport> {
  if ((server.transport === 'http' || server.transport === 'sse') && server.url) {
    return remoteTransport(server as ServerConfig & { url: string }, hooks);
  }
  if (server.transport !== 'stdio' || !server.command) {
    throw new McpxError(
      ErrorCode.UnsupportedTransport,
      `'${server.name}' is a remote (${server.transport}) server, which this mcpx version cannot connect to yet`,
      {
        server: server.name,
        origin: server.origin,
        ...(server.url ? { url: server.url } : {}),
        fixes: ['use a stdio server for now, or a bridge such as `npx mcp-remote <url>` as its command'],
      },
    );
  }
  return createStdioServerTransport({ ...server, command: server.command }, hooks);
}

async function remoteTransport(
  server: ServerConfig & { url: string },
  hooks: TransportHooks,
): Promise<ManagedTransport> {
  const http = await import('../transport/http/index.js');
  if (hooks.http?.authProvider || (hooks.oauthHome === undefined && !server.oauth))
    return http.createHttpTransport(server, hooks.http);
  const { ClientCredentialsAuth, machineCredentials, McpxOAuthProvider, SharedSignIn, TokenStore, signIn } =
    await import('../auth/index.js');
  const store = hooks.oauthHome === undefined ? undefined : new TokenStore(hooks.oauthHome);
  const machine = machineCredentials(server);
  if (machine) {
    // A machine signs in by itself: no `mcpx auth`, no browser, a token fetched when the server asks.
    const authProvider = new ClientCredentialsAuth({
      server,
      credentials: machine,
      ...(store ? { store } : {}),
      env: hooks.hostEnv,
    });
    return http.createHttpTransport(server, { ...hooks.http, authProvider });
  }
  if (!store) return http.createHttpTransport(server, hooks.http);
  // Only a server signed in with `mcpx auth` gets the OAuth provider: an ordinary connect must
  // never register clients or start sign-ins; without tokens a 401 says to run `mcpx auth`. One
  // whose sign-in ended keeps it, to say why (the reason the authorization server gave, once).
  const stored = await store.load(server.name, server.url);
  if (!stored?.tokens && !stored?.ended) return http.createHttpTransport(server, hooks.http);
  // A redirect URL makes the SDK treat a lost sign-in as "ask the user" (an AUTH_REQUIRED naming
  // `mcpx auth`), not as a client-credentials flow; nothing listens there outside `mcpx auth`.
  const authProvider = new McpxOAuthProvider({
    server,
    store,
    redirectUrl: 'http://127.0.0.1/callback',
  });
  // Every process refreshes through the same lock and store: one refresh per expiry, used by all.
  const shared = new SharedSignIn({
    server,
    store,
    provider: authProvider,
    ...(hooks.onSignInEnded ? { onEnded: hooks.onSignInEnded } : {}),
  });
  // Renewals ahead of expiry go through the transport's own guarded fetch, as a 401's would.
  const renewing = (transport: ManagedTransport & { fetch: SignInFetch }) => {
    shared.renewThrough(transport.fetch);
    return transport;
  };
  const interactive = hooks.signIn;
  const { computeScopeUnion, withDpopFromProvider } = await import('@modelcontextprotocol/client');
  // DPoP-bound tokens are presented with a proof signed by the key stored with them.
  const dpop = authProvider.dpop ? { dpop: withDpopFromProvider(authProvider) } : {};
  const signedIn = { ...hooks.http, authProvider: shared, ...dpop };
  if (!interactive && !hooks.callerSignsIn) return renewing(http.createHttpTransport(server, signedIn));
  if (!interactive) {
    const { authError } = await import('../auth/index.js');
    return renewing(
      http.createHttpTransport(server, {
        ...signedIn,
        reauthorize: async (challenge) => {
          const refused = await authProvider.tokens();
          authProvider.reload();
          const stored = await authProvider.tokens();
          if (stored?.access_token && stored.access_token !== refused?.access_token) return;
          const scope = computeScopeUnion(refused?.scope ?? stored?.scope, challenge?.scope);
          // The caller's sign-in writes the store next: the request it sends again must read it there.
          authProvider.reload();
          throw authError(server, 'it needs you to sign in (or the sign-in expired)').withContext({
            signIn: scope ? { scope } : {},
          });
        },
      }),
    );
  }
  return renewing(
    http.createHttpTransport(server, {
      ...signedIn,
      reauthorize: async (challenge) => {
        // Ask for what was granted plus what the server now wants (SEP-2350), never less.
        const granted = (await authProvider.tokens())?.scope;
        const scope = computeScopeUnion(granted, challenge?.scope);
        await signIn(server, { ...interactive, store, ...(scope ? { scope } : {}) });
        authProvider.reload();
      },
    }),
  );
}
