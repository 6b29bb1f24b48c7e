import type { AuthProvider, FetchLike, OAuthTokens } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { acquireLock, type FileLock } from '../home/index.js';
import { authError, type McpxOAuthProvider } from './oauth-provider.js';
import type { StoredCredentials, TokenStore } from './token-store.js';

/** How long a process waits for another one's refresh before giving up (a refresh is one request). */
const LOCK_WAIT_MS = 30_000;
/** A refresh that takes longer than this is abandoned, well inside the others' wait. */
const REFRESH_TIMEOUT_MS = 20_000;
/**
 * A token is renewed ahead of its expiry when less than a minute, or a quarter of its lifetime
 * for one that lives under four minutes, is left: it would lapse on its way to the server or in
 * the middle of a request, and every process would meet the server's 401 at once.
 */
const AHEAD_MS = 60_000;
const AHEAD_SHARE = 0.25;

type Tokens = OAuthTokens & { obtained_at?: number };
type Sdk = typeof import('@modelcontextprotocol/client');

/** What a `SharedSignIn` works with: the server, its stored sign-in, and the provider the SDK's OAuth reads it through. */
export interface SharedSignInOptions {
  readonly server: ServerConfig & { readonly url: string };
  readonly store: TokenStore;
  readonly provider: McpxOAuthProvider;
  /** How long to wait for another process's refresh (default 30 s). */
  readonly lockWaitMs?: number;
  /**
   * Told when a request finds the sign-in ended (the authorization server refused to renew it,
   * here or in another process), with the error every request now fails with and when it ended:
   * a long-running process says so once, not with every call.
   */
  readonly onEnded?: (error: McpxError, endedAt: number) => void;
}

/** The fetch a renewal goes through: the transport's own, guarded one. */
export type SignInFetch = FetchLike;
type FetchFn = SignInFetch;

/**
 * A server's sign-in shared by every mcpx process on the machine (CLI
 * commands, the daemon, each `mcpx serve`): what the SDK's HTTP transports
 * ask for a token, and tell when the server refused one.
 *
 * Authorization servers rotate refresh tokens, and one presented twice revokes
 * the whole grant: processes that each refreshed on their own would sign the
 * person out everywhere. So a refresh happens only under the server's refresh
 * lock (`TokenStore.refreshLockFor`), after reading the store again: a token
 * another process got meanwhile is used as it is, and the refresh token sent is
 * always the newest one stored. A holder that dies mid-refresh is taken over at
 * once (`home/file-lock.ts`). A refusal to renew is recorded in the store with
 * its reason, so every other process says why instead of asking again.
 *
 * Before each request the token file is looked at (a stat): a token another
 * process stored, or a logout, is seen at the next request. A token close to
 * its expiry (`isDue`) is renewed then, the same way, before it is sent: a
 * long-running process (the daemon, `mcpx serve`) and every session it serves
 * never meet the server's 401 for an expiry (`renewThrough` names the fetch).
 */
export class SharedSignIn implements AuthProvider {
  readonly #options: SharedSignInOptions;
  /** The token file as last read: another version on disk is read again. */
  #version: string | undefined;
  #seen = false;
  /** One renewal at a time in this process: requests refused together wait for the same one. */
  #renewing: Promise<void> | undefined;
  /** The transport's fetch, for renewals ahead of expiry (a refusal brings its own). */
  #fetch: SignInFetch | undefined;

  constructor(options: SharedSignInOptions) {
    this.#options = options;
  }

  /** Renew ahead of expiry through this fetch (the transport's guarded one); without it, only at a 401. */
  renewThrough(fetchFn: SignInFetch): void {
    this.#fetch = fetchFn;
  }

  async token(): Promise<string | undefined> {
    const { provider } = this.#options;
    await this.#follow();
    const held = await provider.tokens();
    if (held && isDue(held)) {
      // About to expire: another process may have renewed it already; if not, renew it now.
      provider.reload();
      const current = await provider.tokens();
      if (current?.access_token && current.refresh_token && isDue(current) && this.#fetch) {
        // A renewal that fails here is told by the server's 401 that follows (`onUnauthorized`).
        await this.#renewOnce(current.access_token, this.#fetch).catch(() => {});
      }
    }
    return (await provider.tokens())?.access_token;
  }

  async onUnauthorized(ctx: Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0]): Promise<void> {
    const refused = (await this.#options.provider.tokens())?.access_token;
    await this.#renewOnce(refused, ctx.fetchFn);
  }

  #renewOnce(refused: string | undefined, fetchFn: FetchFn): Promise<void> {
    this.#renewing ??= this.#renew(refused, fetchFn)
      .catch((error: unknown) => {
        const endedAt = error instanceof McpxError ? ENDED.get(error) : undefined;
        if (endedAt !== undefined) this.#options.onEnded?.(error as McpxError, endedAt);
        throw error;
      })
      .finally(() => {
        this.#renewing = undefined;
      });
    return this.#renewing;
  }

  /** Read the store again when its file changed on disk (another process's refresh, sign-in or logout). */
  async #follow(): Promise<void> {
    const { server, store, provider } = this.#options;
    const version = await store.version(server.name, server.url);
    if (this.#seen && version === this.#version) return;
    this.#seen = true;
    this.#version = version;
    provider.reload();
  }

  async #renew(refused: string | undefined, fetchFn: FetchFn): Promise<void> {
    const { server, provider } = this.#options;
    const lock = await this.#lock();
    try {
      provider.reload();
      const stored = await provider.stored();
      const tokens = stored?.tokens as Tokens | undefined;
      if (!tokens?.access_token) throw signedOut(server, stored);
      // Another process renewed it while this one waited: use theirs, ask nobody.
      if (tokens.access_token !== refused && !isDue(tokens)) return;
      if (!tokens.refresh_token) throw authError(server, 'the sign-in expired and cannot renew itself');
      await this.#refresh(tokens.refresh_token, stored as StoredCredentials, fetchFn);
    } finally {
      await lock.release();
      this.#version = await this.#options.store.version(server.name, server.url);
    }
  }

  async #lock(): Promise<FileLock> {
    const { server, store, lockWaitMs = LOCK_WAIT_MS } = this.#options;
    const path = store.refreshLockFor(server.name, server.url);
    try {
      return await acquireLock(path, { waitMs: lockWaitMs, file: store.fileFor(server.name, server.url) });
    } catch (error) {
      // The oauth folder is gone (removed by hand): there is no sign-in left to renew.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw signedOut(server, undefined);
      if (!(error instanceof McpxError) || error.code !== ErrorCode.FileLocked) throw error;
      throw new McpxError(
        ErrorCode.FileLocked,
        `the sign-in to '${server.name}' is being renewed by another mcpx, which has not finished after ${Math.round(lockWaitMs / 1000)} s`,
        {
          server: server.name,
          origin: server.origin,
          causes: error.causes,
          fixes: [...error.fixes, `or sign in again with \`mcpx auth ${server.name}\``],
          cause: error,
        },
      );
    }
  }

  /** One refresh with the newest refresh token, saved before the lock is let go. */
  async #refresh(refreshToken: string, stored: StoredCredentials, through: FetchFn): Promise<void> {
    const { server, provider } = this.#options;
    // Loaded at the first refresh, not with `import 'mcpx'`: most commands never refresh.
    const sdk = await import('@modelcontextprotocol/client');
    const { describeOAuthFailure } = await import('./oauth-failure.js');
    const { auth, refreshAuthorization, selectResourceURL } = sdk;
    const discovery = stored.discoveryState;
    const client = await provider.clientInformation();
    const fetchFn = withTimeout(through);
    if (!discovery?.authorizationServerMetadata || !client) {
      // A sign-in stored before discovery was kept: the SDK discovers and refreshes, still under the lock.
      const outcome = await auth(provider, { serverUrl: server.url, fetchFn });
      if (outcome !== 'AUTHORIZED')
        throw authError(server, 'it needs you to sign in (or the sign-in expired)');
      return;
    }
    const metadata = discovery.authorizationServerMetadata;
    const issuer = metadata.issuer ?? String(discovery.authorizationServerUrl);
    let tokens: OAuthTokens;
    try {
      const resource = await selectResourceURL(server.url, provider, discovery.resourceMetadata);
      tokens = await refreshAuthorization(discovery.authorizationServerUrl, {
        metadata,
        clientInformation: client,
        refreshToken,
        ...(resource ? { resource } : {}),
        dpop: await provider.dpop?.(),
        fetchFn,
      });
    } catch (error) {
      const ended = grantEnded(sdk, error, describeOAuthFailure);
      if (ended) {
        await provider.endSignIn(refreshToken, ended);
        // As recorded (its time too): every process that reads it tells the same ending.
        const recorded = await provider.stored();
        throw signedOut(
          server,
          recorded?.ended ? recorded : { serverUrl: server.url, ended: { at: Date.now(), reason: ended } },
        );
      }
      if (error instanceof McpxError) throw error;
      // Anything else (the network, a 5xx) ends nothing: the tokens stay, the next request tries again.
      throw new McpxError(
        ErrorCode.AuthRequired,
        `could not renew the sign-in to '${server.name}': ${describeOAuthFailure(error)}`,
        {
          server: server.name,
          origin: server.origin,
          url: server.url,
          cause: error,
          fixes: [
            'try again: the sign-in is kept',
            `if it keeps failing, sign in again with \`mcpx auth ${server.name}\``,
          ],
        },
      );
    }
    await provider.saveTokens({ ...tokens, issuer } as OAuthTokens);
  }
}

/** Whether the token has expired by its own `expires_in`, or is close enough to renew ahead (see `AHEAD_MS`). */
export function isDue(tokens: Tokens, now = Date.now()): boolean {
  const expiry = expiresAt(tokens);
  if (expiry === undefined) return false;
  const lifetime = (tokens.expires_in ?? 0) * 1000;
  return expiry - now <= Math.min(AHEAD_MS, lifetime * AHEAD_SHARE);
}

/** When the access token expires (ms since the epoch), if the authorization server said. */
export function expiresAt(tokens: Tokens): number | undefined {
  const { expires_in: seconds, obtained_at: obtained } = tokens;
  return typeof seconds === 'number' && typeof obtained === 'number' ? obtained + seconds * 1000 : undefined;
}

/** The reason a refused refresh ends the sign-in (the grant is gone), or undefined when it may work later. */
function grantEnded(
  { OAuthError, OAuthErrorCode }: Sdk,
  error: unknown,
  describeOAuthFailure: (error: unknown) => string,
): string | undefined {
  if (!(error instanceof OAuthError)) return undefined;
  const final: string[] = [
    OAuthErrorCode.InvalidGrant,
    OAuthErrorCode.InvalidClient,
    OAuthErrorCode.UnauthorizedClient,
  ];
  if (!final.includes(error.code)) return undefined;
  const detail = error.message && error.message !== error.code ? `: ${error.message}` : '';
  return `the authorization server refused to renew it (${describeOAuthFailure(new Error(`${error.code}${detail}`))})`;
}

/** The errors that say a sign-in has ended, with when it ended. */
const ENDED = new WeakMap<McpxError, number>();

function signedOut(server: ServerConfig, stored: StoredCredentials | undefined): McpxError {
  const ended = stored?.ended;
  if (!ended) return authError(server, 'it needs you to sign in (or the sign-in expired)');
  const error = new McpxError(
    ErrorCode.AuthRequired,
    `the sign-in to '${server.name}' has ended: ${ended.reason}`,
    {
      server: server.name,
      origin: server.origin,
      ...(server.url ? { url: server.url } : {}),
      causes: [
        'the grant was revoked, expired, or its refresh token was used twice (by another program, or a copy of the token file)',
      ],
      fixes: [`sign in again with \`mcpx auth ${server.name}\``],
    },
  );
  ENDED.set(error, ended.at);
  return error;
}

function withTimeout(fetchFn: FetchFn): FetchFn {
  return (input: Parameters<FetchFn>[0], init?: Parameters<FetchFn>[1]) => {
    const timeout = AbortSignal.timeout(REFRESH_TIMEOUT_MS);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return fetchFn(input, { ...init, signal });
  };
}
