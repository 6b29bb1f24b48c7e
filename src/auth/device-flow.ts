import {
  type AuthorizationServerMetadata,
  discoverOAuthServerInfo,
  fetchToken,
  type OAuthClientInformationMixed,
  type OAuthClientProvider,
  OAuthError,
  type OAuthTokens,
  registerClient,
  selectClientAuthMethod,
  selectResourceURL,
} from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { acquireLock } from '../home/index.js';
import { GuardedHttp, guardedHttpOptions } from '../transport/http/index.js';
import { outsideSdkScope, withSdkDiagnostics } from '../transport/index.js';
import type { DevicePrompt, DeviceSignInOptions, DeviceSignInOutcome } from './device-sign-in.js';
import { describeOAuthFailure } from './oauth-failure.js';
import { McpxOAuthProvider, oauthSettings } from './oauth-provider.js';

/** RFC 8628 §3.4: the grant type of a device-code token request. */
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.5: the interval when the server names none, and what `slow_down` adds to it. */
const DEFAULT_INTERVAL_S = 5;
const SLOW_DOWN_S = 5;
/** A poll that could not reach the authorization server doubles the wait (RFC 8628 §3.5), up to this. */
const MAX_BACKOFF_MS = 60_000;
/** Server-supplied text shown to the person is kept short: a user code is a few characters. */
const MAX_USER_CODE = 64;
const MAX_URI = 2048;

/** What the device authorization endpoint answers (RFC 8628 §3.2). */
interface DeviceAuthorization {
  readonly device_code: string;
  readonly user_code: string;
  readonly verification_uri: string;
  readonly verification_uri_complete?: string;
  readonly expires_in: number;
  readonly interval?: number;
}

/** The device sign-in itself (see `signInWithDevice`), loaded with the SDK's OAuth client on first use. */
export async function runDeviceSignIn(
  server: ServerConfig & { readonly url: string },
  options: DeviceSignInOptions,
): Promise<DeviceSignInOutcome> {
  // Every request goes through the guard: the endpoints come from the server's metadata.
  const http = deviceHttp(server, options, {});
  // A poll is never retried at once by the fetch layer: the loop waits `interval` or longer between
  // polls (RFC 8628 §3.5), backing off itself while the server cannot be reached.
  const polling = deviceHttp(server, options, { maxRetries: 0 });
  const fetchFn = http.fetch as typeof fetch;
  const sdk = <T>(work: () => Promise<T>) => withSdkDiagnostics(server.name, options.onSdkDiagnostic, work);
  try {
    const { challengeOf } = await import('./sign-in-flow.js');
    const asked = await challengeOf(server, fetchFn);
    if (asked === 'accepted') return 'not-needed';
    const info = await sdk(() =>
      discoverOAuthServerInfo(server.url, {
        ...(asked.resourceMetadataUrl ? { resourceMetadataUrl: asked.resourceMetadataUrl } : {}),
        fetchFn,
      }),
    );
    const metadata = info.authorizationServerMetadata;
    const endpoint = (metadata as { device_authorization_endpoint?: unknown } | undefined)
      ?.device_authorization_endpoint;
    if (!metadata || typeof endpoint !== 'string') return 'unsupported';
    const provider = new McpxOAuthProvider({ server, store: options.store });
    const issuer = metadata.issuer ?? String(info.authorizationServerUrl);
    await provider.saveDiscoveryState({
      authorizationServerUrl: String(info.authorizationServerUrl),
      ...(asked.resourceMetadataUrl ? { resourceMetadataUrl: asked.resourceMetadataUrl.href } : {}),
      ...(info.resourceMetadata ? { resourceMetadata: info.resourceMetadata } : {}),
      authorizationServerMetadata: metadata,
    });
    const scope = scopeFor(
      options.scope ?? asked.scope,
      info.resourceMetadata?.scopes_supported,
      metadata,
      provider,
    );
    const preRegistered = oauthSettings(server).clientId !== undefined;
    const client = await deviceClient(
      provider,
      preRegistered,
      metadata,
      info.authorizationServerUrl,
      issuer,
      scope,
      fetchFn,
    );
    const selected = await selectResourceURL(server.url, provider, info.resourceMetadata);
    // As the SDK's auth(): the metadata's own string, not the URL's href (a pathless one gains a slash).
    const resource = selected && info.resourceMetadata ? info.resourceMetadata.resource : selected?.href;
    const started = Date.now();
    const grant = await requestDeviceCode(server, endpoint, client, metadata, { scope, resource }, fetchFn);
    await outsideSdkScope(options.show)(promptOf(server, grant));
    const tokens = await sdk(() =>
      poll(server, grant, started, {
        provider: pollingProvider(provider, client, grant.device_code),
        metadata,
        authorizationServerUrl: info.authorizationServerUrl,
        ...(resource ? { resource: new URL(resource) } : {}),
        fetchFn: polling.fetch as typeof fetch,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
    // Under the refresh lock, as a renewal: a refresh running elsewhere cannot put the old grant back.
    const lock = await acquireLock(options.store.refreshLockFor(server.name, server.url), {
      file: options.store.fileFor(server.name, server.url),
    });
    try {
      await provider.saveTokens({ ...tokens, issuer } as OAuthTokens);
    } finally {
      await lock.release();
    }
    return 'signed-in';
  } catch (error) {
    if (error instanceof McpxError) throw error;
    throw new McpxError(
      ErrorCode.AuthRequired,
      `device sign-in to '${server.name}' failed: ${describeOAuthFailure(error)}`,
      {
        server: server.name,
        origin: server.origin,
        url: server.url,
        cause: error,
        fixes: [`run \`mcpx auth ${server.name} --device\` again; with --verbose for details`],
      },
    );
  } finally {
    http.close();
    polling.close();
  }
}

function deviceHttp(
  server: ServerConfig & { readonly url: string },
  options: DeviceSignInOptions,
  retries: { readonly maxRetries?: number },
): GuardedHttp {
  return new GuardedHttp({
    ...guardedHttpOptions(server),
    ...retries,
    passAuthChallenges: true,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.resolver ? { resolver: options.resolver } : {}),
  });
}

/** The scope the SDK's auth() would ask for: the server's challenge, else its metadata, else the config's; offline_access where offered. */
function scopeFor(
  asked: string | undefined,
  supported: readonly string[] | undefined,
  metadata: AuthorizationServerMetadata,
  provider: McpxOAuthProvider,
): string | undefined {
  const scope = asked || supported?.join(' ') || provider.clientMetadata.scope;
  if (
    scope &&
    metadata.scopes_supported?.includes('offline_access') &&
    !scope.split(' ').includes('offline_access')
  )
    return `${scope} offline_access`;
  return scope;
}

/**
 * The client that asks for the device code: the config's pre-registered one, a stored one
 * registered for this grant at this issuer, or a new registration (a client registered for the
 * browser's redirect may not be allowed the device grant).
 */
async function deviceClient(
  provider: McpxOAuthProvider,
  preRegistered: boolean,
  metadata: AuthorizationServerMetadata,
  authorizationServerUrl: string | URL,
  issuer: string,
  scope: string | undefined,
  fetchFn: typeof fetch,
): Promise<OAuthClientInformationMixed> {
  const known = (await provider.clientInformation()) as
    | (OAuthClientInformationMixed & { issuer?: string; grant_types?: string[] })
    | undefined;
  // The config's client is the person's choice: it is used as it is, and the server says if it may not.
  if (known && (preRegistered || (known.issuer === issuer && known.grant_types?.includes(DEVICE_GRANT))))
    return known;
  const base = provider.clientMetadata;
  const registered = await registerClient(authorizationServerUrl, {
    metadata,
    clientMetadata: {
      ...base,
      redirect_uris: [],
      grant_types: [DEVICE_GRANT, 'refresh_token'],
      response_types: [],
    },
    ...(scope ? { scope } : {}),
    fetchFn,
  });
  const client = { ...registered, issuer };
  await provider.saveClientInformation(client);
  return client;
}

/** RFC 8628 §3.1: one POST for a device code and a user code. */
async function requestDeviceCode(
  server: ServerConfig,
  endpoint: string,
  client: OAuthClientInformationMixed,
  metadata: AuthorizationServerMetadata,
  { scope, resource }: { scope: string | undefined; resource: string | undefined },
  fetchFn: typeof fetch,
): Promise<DeviceAuthorization> {
  const url = secureEndpoint(server, endpoint);
  const params = new URLSearchParams();
  const headers = new Headers({
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  });
  const method = selectClientAuthMethod(client, metadata.token_endpoint_auth_methods_supported ?? []);
  if (method === 'client_secret_basic' && client.client_secret) {
    const encode = (part: string) => encodeURIComponent(part);
    headers.set(
      'authorization',
      `Basic ${Buffer.from(`${encode(client.client_id)}:${encode(client.client_secret)}`).toString('base64')}`,
    );
  } else {
    params.set('client_id', client.client_id);
    if (method === 'client_secret_post' && client.client_secret)
      params.set('client_secret', client.client_secret);
  }
  if (scope) params.set('scope', scope);
  if (resource) params.set('resource', resource);
  const response = await fetchFn(url, {
    method: 'POST',
    headers,
    body: params,
    redirect: 'manual',
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) {
    const { parseErrorResponse } = await import('@modelcontextprotocol/client');
    throw await parseErrorResponse(response);
  }
  const answer = (await response.json()) as Partial<DeviceAuthorization>;
  const { device_code, user_code, verification_uri, expires_in } = answer;
  if (
    typeof device_code !== 'string' ||
    typeof user_code !== 'string' ||
    typeof verification_uri !== 'string' ||
    typeof expires_in !== 'number'
  ) {
    throw new McpxError(
      ErrorCode.AuthRequired,
      `the authorization server of '${server.name}' answered the device request without a device code, user code, verification URL or expiry`,
      {
        server: server.name,
        origin: server.origin,
        fixes: [`sign in in a browser instead: \`mcpx auth ${server.name} --no-browser\``],
      },
    );
  }
  return {
    device_code,
    user_code,
    verification_uri,
    expires_in,
    ...(typeof answer.verification_uri_complete === 'string'
      ? { verification_uri_complete: answer.verification_uri_complete }
      : {}),
    ...(typeof answer.interval === 'number' && answer.interval > 0 ? { interval: answer.interval } : {}),
  };
}

/**
 * What the person is shown. The codes and URLs are the server's text: the front end makes them
 * fit for a terminal; here a URL that is not https (http only on this computer) is refused.
 */
function promptOf(server: ServerConfig, grant: DeviceAuthorization): DevicePrompt {
  const verificationUri = webUrl(grant.verification_uri);
  if (!verificationUri || grant.user_code.length > MAX_USER_CODE || grant.user_code.trim() === '') {
    throw new McpxError(
      ErrorCode.AuthRequired,
      `refusing the device sign-in to '${server.name}': its verification URL is not https or its user code is not a short code`,
      {
        server: server.name,
        origin: server.origin,
        fixes: [`sign in in a browser instead: \`mcpx auth ${server.name} --no-browser\``],
      },
    );
  }
  const complete = grant.verification_uri_complete ? webUrl(grant.verification_uri_complete) : undefined;
  return {
    userCode: grant.user_code,
    verificationUri,
    ...(complete ? { verificationUriComplete: complete } : {}),
    expiresInSeconds: grant.expires_in,
  };
}

interface PollOptions {
  readonly provider: OAuthClientProvider;
  readonly metadata: AuthorizationServerMetadata;
  readonly authorizationServerUrl: string | URL;
  readonly resource?: URL;
  readonly fetchFn: typeof fetch;
  readonly signal?: AbortSignal;
}

/** RFC 8628 §3.4–3.5: ask for the tokens every `interval` until the person answers or the code expires. */
async function poll(
  server: ServerConfig,
  grant: DeviceAuthorization,
  started: number,
  options: PollOptions,
): Promise<OAuthTokens> {
  let interval = (grant.interval ?? DEFAULT_INTERVAL_S) * 1000;
  // While the network is out the wait doubles; the next answer brings it back to `interval`.
  let wait = interval;
  let unreachable: McpxError | undefined;
  const deadline = started + grant.expires_in * 1000;
  for (;;) {
    await pause(Math.min(wait, Math.max(0, deadline - Date.now())), server, options.signal);
    if (Date.now() >= deadline) throw expired(server, grant, unreachable);
    try {
      return await fetchToken(options.provider, options.authorizationServerUrl, {
        metadata: options.metadata,
        ...(options.resource ? { resource: options.resource } : {}),
        fetchFn: options.fetchFn,
      });
    } catch (error) {
      // The code stays good while the network is out (a laptop changing networks, a proxy's
      // restart): keep polling, less often, until it expires, instead of losing the sign-in.
      if (error instanceof McpxError && error.code === ErrorCode.HttpUnreachable) {
        unreachable = error;
        wait = Math.min(wait * 2, MAX_BACKOFF_MS);
        continue;
      }
      unreachable = undefined;
      if (!(error instanceof OAuthError)) throw error;
      if (error.code === 'authorization_pending') {
        wait = interval;
        continue;
      }
      if (error.code === 'slow_down') {
        interval += SLOW_DOWN_S * 1000;
        wait = interval;
        continue;
      }
      if (error.code === 'access_denied') {
        throw new McpxError(ErrorCode.AuthRequired, `the device sign-in to '${server.name}' was refused`, {
          server: server.name,
          origin: server.origin,
          causes: ['the request was denied on the verification page (or by the authorization server)'],
          fixes: [`run \`mcpx auth ${server.name} --device\` again and approve the request`],
        });
      }
      if (error.code === 'expired_token') throw expired(server, grant, undefined);
      throw error;
    }
  }
}

function expired(
  server: ServerConfig,
  grant: DeviceAuthorization,
  unreachable: McpxError | undefined,
): McpxError {
  const minutes = Math.max(1, Math.round(grant.expires_in / 60));
  return new McpxError(
    ErrorCode.AuthRequired,
    `the device sign-in to '${server.name}' expired before it was approved`,
    {
      server: server.name,
      origin: server.origin,
      causes: unreachable
        ? [`the authorization server could not be reached when its code ran out: ${unreachable.message}`]
        : [
            `the code is good for about ${minutes} min, and nobody approved it on the verification page in time`,
          ],
      fixes: [`run \`mcpx auth ${server.name} --device\` again and enter the new code`],
    },
  );
}

/** What fetchToken needs to ask for the device grant's tokens with the right client authentication. */
function pollingProvider(
  provider: McpxOAuthProvider,
  client: OAuthClientInformationMixed,
  deviceCode: string,
): OAuthClientProvider {
  return {
    redirectUrl: undefined,
    clientMetadata: provider.clientMetadata,
    clientInformation: () => client,
    tokens: () => undefined,
    saveTokens: () => {},
    redirectToAuthorization: () => {
      throw new Error('the device grant opens no browser');
    },
    saveCodeVerifier: () => {},
    codeVerifier: () => {
      throw new Error('the device grant uses no PKCE verifier');
    },
    prepareTokenRequest: () => new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: deviceCode }),
  };
}

function pause(ms: number, server: ServerConfig, signal: AbortSignal | undefined): Promise<void> {
  const cancelled = () =>
    new McpxError(ErrorCode.Cancelled, `the sign-in to '${server.name}' was cancelled`, {
      server: server.name,
    });
  if (signal?.aborted) return Promise.reject(cancelled());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function secureEndpoint(server: ServerConfig, endpoint: string): URL {
  const url = webUrl(endpoint);
  if (url) return new URL(url);
  throw new McpxError(
    ErrorCode.AuthRequired,
    `refusing the device sign-in to '${server.name}': its device authorization endpoint is not https`,
    {
      server: server.name,
      origin: server.origin,
      fixes: ['the server must use an https authorization server'],
    },
  );
}

/** An https URL (http only on this computer), as the browser sign-in's rule; undefined otherwise. */
function webUrl(text: string): string | undefined {
  if (text.length > MAX_URI) return undefined;
  try {
    const url = new URL(text);
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    return url.protocol === 'https:' || (url.protocol === 'http:' && loopback) ? url.href : undefined;
  } catch {
    return undefined;
  }
}
