import { randomBytes } from 'node:crypto';
import type {
  DpopSession,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { VERSION } from '../version.js';
import { dpopWanted, storedDpopSession } from './dpop.js';
import type { StoredCredentials, TokenStore } from './token-store.js';

/**
 * A server's `oauth` block as read (`${VAR}` already filled in; mcpx's and
 * camelCase spellings; empty strings count as absent): a pre-registered
 * client, a client metadata document, or a machine's client credentials.
 */
export interface OAuthSettings {
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly scope?: string;
  /**
   * An https URL where the user hosts mcpx's client metadata document (CIMD):
   * used as the client id by authorization servers that accept one, instead
   * of registering a new client.
   */
  readonly clientMetadataUrl?: string;
  /** `client_credentials` for a machine that signs in by itself (see `machineCredentials`). */
  readonly grantType?: string;
  /** `private_key_jwt`: a PKCS#8 PEM key. */
  readonly privateKey?: string;
  readonly signingAlgorithm?: string;
  /** The authorization server the credentials belong to. */
  readonly issuer?: string;
}

export function oauthSettings(server: ServerConfig): OAuthSettings {
  const raw = (server.oauth ?? {}) as Record<string, unknown>;
  const text = (...keys: string[]) =>
    keys.map((k) => raw[k]).find((v): v is string => typeof v === 'string' && v !== '');
  const scopes = raw.scopes;
  const read: Record<keyof OAuthSettings, string | undefined> = {
    clientId: text('client_id', 'clientId'),
    clientSecret: text('client_secret', 'clientSecret'),
    scope: text('scope') ?? (Array.isArray(scopes) ? scopes.join(' ') : undefined),
    clientMetadataUrl: text('client_metadata_url', 'clientMetadataUrl'),
    grantType: text('grant_type', 'grantType', 'grant'),
    privateKey: text('private_key', 'privateKey'),
    signingAlgorithm: text('signing_algorithm', 'signingAlgorithm', 'algorithm'),
    issuer: text('issuer'),
  };
  return Object.fromEntries(Object.entries(read).filter(([, v]) => v !== undefined));
}

/** What `McpxOAuthProvider` needs: the remote server, the token store, and for an interactive sign-in where to send the person. */
export interface McpxOAuthProviderOptions {
  readonly server: ServerConfig & { readonly url: string };
  readonly store: TokenStore;
  /** The loopback callback URL of an interactive sign-in; absent for ordinary connects. */
  readonly redirectUrl?: string;
  /** Interactive sign-in: take the person to this URL. Absent: an expired sign-in is an AUTH_REQUIRED error. */
  readonly onAuthorize?: (url: URL) => Promise<void>;
}

/**
 * The SDK's OAuthClientProvider over mcpx's token store, with the checks the
 * SDK leaves to the host: a state value per sign-in (verified by the caller on
 * the callback), S256 PKCE advertised by the authorization server, and an
 * authorization URL that is https (http only on loopback).
 */
export class McpxOAuthProvider implements OAuthClientProvider {
  readonly #options: McpxOAuthProviderOptions;
  readonly #preRegistered: OAuthSettings;
  #stored: StoredCredentials | undefined;
  #loaded = false;
  // A sign-in's own secrets live as long as it does, in its process: never in the shared file,
  // where a running connection's attempt at a step-up (which cannot present a browser) would
  // replace them in the middle of the person's sign-in.
  #state: string | undefined;
  #codeVerifier: string | undefined;

  /**
   * Present only with `"dpop": true`: the SDK then binds the tokens it gets to this key (RFC 9449),
   * and the transport signs each request with it. The key is kept with the tokens.
   */
  readonly dpop?: () => Promise<DpopSession>;
  #dpop: Promise<DpopSession> | undefined;

  constructor(options: McpxOAuthProviderOptions) {
    this.#options = options;
    this.#preRegistered = oauthSettings(options.server);
    if (dpopWanted(options.server))
      this.dpop = () =>
        (this.#dpop ??= (async () =>
          storedDpopSession((await this.#load())?.dpopKey, async (made) => {
            await this.#change((current) => ({ ...current, dpopKey: current.dpopKey ?? made }));
            return this.#stored?.dpopKey ?? made;
          }))());
  }

  get redirectUrl(): string | undefined {
    return this.#options.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.#preRegistered.clientMetadataUrl;
  }

  /** Read the store again on next use (another provider, such as a sign-in, has written it). */
  reload(): void {
    this.#loaded = false;
    this.#stored = undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcpx',
      client_uri: 'https://github.com/mcpx',
      software_version: VERSION,
      redirect_uris: this.#options.redirectUrl ? [this.#options.redirectUrl] : [],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.#preRegistered.clientSecret ? 'client_secret_basic' : 'none',
      ...(this.#preRegistered.scope ? { scope: this.#preRegistered.scope } : {}),
    };
  }

  /** The state sent with the authorization request; the callback must bring it back unchanged. */
  async state(): Promise<string> {
    this.#state = randomBytes(24).toString('base64url');
    return this.#state;
  }

  async expectedState(): Promise<string | undefined> {
    return this.#state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.#preRegistered.clientId) {
      return {
        client_id: this.#preRegistered.clientId,
        ...(this.#preRegistered.clientSecret ? { client_secret: this.#preRegistered.clientSecret } : {}),
      };
    }
    return (await this.#load())?.clientInformation;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.#update({ clientInformation: info });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.#load())?.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    // New tokens are a sign-in again: whatever ended the previous one is past.
    await this.#change(({ ended: _, ...current }) => ({
      ...current,
      tokens: { ...tokens, obtained_at: Date.now() },
    }));
  }

  /** What the store holds for this server, as last read (`reload()` reads it again). */
  async stored(): Promise<StoredCredentials | undefined> {
    return this.#load();
  }

  /**
   * The authorization server refused to renew the sign-in: forget its tokens and record why, so
   * that every process says so without asking again. Only while the store still holds the refused
   * refresh token: a sign-in that landed meanwhile is kept.
   */
  async endSignIn(refusedRefreshToken: string, reason: string): Promise<void> {
    await this.#change((current) => {
      if (current.tokens?.refresh_token !== refusedRefreshToken) return current;
      const { tokens: _, ...rest } = current;
      return { ...rest, ended: { at: Date.now(), reason } };
    });
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    this.#codeVerifier = codeVerifier;
  }

  async codeVerifier(): Promise<string> {
    const verifier = this.#codeVerifier;
    if (!verifier)
      throw authError(
        this.#options.server,
        'the sign-in has no PKCE verifier (it was started elsewhere or expired)',
      );
    return verifier;
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#load())?.discoveryState;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.#update({ discoveryState: state });
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    await this.#change((current) => {
      const next: StoredCredentials = { ...current };
      if (scope === 'all' || scope === 'tokens') delete next.tokens;
      if (scope === 'all' || scope === 'client') delete next.clientInformation;
      if (scope === 'all' || scope === 'verifier') {
        this.#codeVerifier = undefined;
        delete next.codeVerifier;
      }
      if (scope === 'all' || scope === 'discovery') delete next.discoveryState;
      return next;
    });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const { server, onAuthorize } = this.#options;
    if (!onAuthorize) {
      throw authError(server, 'it needs you to sign in (or the sign-in expired)');
    }
    const metadata = (await this.discoveryState())?.authorizationServerMetadata as
      | { code_challenge_methods_supported?: string[] }
      | undefined;
    if (!metadata?.code_challenge_methods_supported?.includes('S256')) {
      throw new McpxError(
        ErrorCode.AuthRequired,
        `refusing to sign in to '${server.name}': its authorization server does not advertise S256 PKCE`,
        {
          server: server.name,
          origin: server.origin,
          fixes: ['ask the server operator to enable PKCE with S256'],
        },
      );
    }
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
      throw new McpxError(
        ErrorCode.AuthRequired,
        `refusing to sign in to '${server.name}': its authorization URL is not https (${url.protocol}//${url.host})`,
        {
          server: server.name,
          origin: server.origin,
          fixes: ['the server must use an https authorization server'],
        },
      );
    }
    await onAuthorize(url);
  }

  async #load(): Promise<StoredCredentials | undefined> {
    if (!this.#loaded) {
      this.#stored = await this.#options.store.load(this.#options.server.name, this.#options.server.url);
      this.#loaded = true;
    }
    return this.#stored;
  }

  async #update(change: Partial<StoredCredentials>): Promise<void> {
    await this.#change((current) => ({ ...current, ...change }));
  }

  /**
   * Every write merges into what the store holds now: a sign-in running beside this
   * provider may have saved new tokens since it last read, and saving a PKCE verifier
   * must not put the old ones back.
   */
  async #change(change: (current: StoredCredentials) => StoredCredentials): Promise<void> {
    const { server, store } = this.#options;
    this.#stored = await store.update(server.name, server.url, change);
    this.#loaded = true;
  }
}

export function authError(server: ServerConfig, why: string): McpxError {
  return new McpxError(ErrorCode.AuthRequired, `'${server.name}' requires authorization: ${why}`, {
    server: server.name,
    origin: server.origin,
    ...(server.url ? { url: server.url } : {}),
    fixes: [
      `sign in with \`mcpx auth ${server.name}\``,
      'or give a bearer token in the server\'s "headers" in the config',
    ],
  });
}
