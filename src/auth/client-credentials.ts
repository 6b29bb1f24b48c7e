import type {
  AddClientAuthentication,
  DpopSession,
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { VERSION } from '../version.js';
import {
  type AssertionGrant,
  assertionGrant,
  JWT_BEARER_GRANT,
  presentAssertion,
} from './assertion-grant.js';
import { type DpopSessionHolder, dpopWanted } from './dpop.js';
import { oauthSettings } from './oauth-provider.js';
import type { TokenStore } from './token-store.js';

/**
 * A machine's own credentials for a server (the OAuth `client_credentials`
 * grant, an extension of MCP authorization): no person, no browser.
 */
export interface MachineCredentials {
  readonly clientId: string;
  /** `client_secret_basic` authentication. */
  readonly clientSecret?: string;
  /** `private_key_jwt` authentication: a PKCS#8 PEM key that signs each token request. */
  readonly privateKey?: string;
  /** The private key's algorithm, `RS256` by default. */
  readonly algorithm: string;
  readonly scope?: string;
  /** The authorization server the credentials belong to; without it, the first one seen is pinned. */
  readonly issuer?: string;
  /** The JWT-bearer grant (workload identity, enterprise-managed authorization) instead of `client_credentials`. */
  readonly grant?: AssertionGrant;
  /** DPoP-bound tokens (RFC 9449): `"dpop": true`. */
  readonly dpop?: boolean;
}

/**
 * The machine credentials a server's `oauth` block asks for with
 * `"grant_type": "client_credentials"`, or `undefined` for the usual
 * sign-in by a person. Throws ConfigInvalid when the block is incomplete.
 */
export function machineCredentials(server: ServerConfig): MachineCredentials | undefined {
  const { grantType, clientId, clientSecret, privateKey, signingAlgorithm, scope, issuer } =
    oauthSettings(server);
  const dpop = dpopWanted(server);
  if (grantType === JWT_BEARER_GRANT || grantType === 'jwt-bearer') {
    const grant = assertionGrant(server);
    if (!clientId)
      throw new McpxError(
        ErrorCode.ConfigInvalid,
        `server '${server.name}': oauth with "grant_type": "${JWT_BEARER_GRANT}" needs client_id`,
        {
          server: server.name,
          origin: server.origin,
          field: 'oauth',
          fixes: ['add the "client_id" the authorization server knows this client by'],
        },
      );
    return {
      clientId,
      ...(clientSecret ? { clientSecret } : {}),
      algorithm: signingAlgorithm ?? 'RS256',
      ...(scope ? { scope } : {}),
      ...(issuer ? { issuer } : {}),
      grant,
      ...(dpop ? { dpop } : {}),
    };
  }
  if (grantType !== 'client_credentials') return undefined;
  if (!clientId || (!clientSecret && !privateKey)) {
    throw new McpxError(
      ErrorCode.ConfigInvalid,
      `server '${server.name}': oauth with "grant_type": "client_credentials" needs client_id and either client_secret or private_key`,
      {
        server: server.name,
        origin: server.origin,
        field: 'oauth',
        fixes: [
          `add "client_id" and "client_secret": "\${CLIENT_SECRET}" to the oauth block`,
          `or "private_key": "\${CLIENT_KEY_PEM}" (PKCS#8 PEM) with "signing_algorithm": "RS256" or "ES256"`,
        ],
      },
    );
  }
  return {
    clientId,
    ...(clientSecret ? { clientSecret } : { privateKey }),
    algorithm: signingAlgorithm ?? 'RS256',
    ...(scope ? { scope } : {}),
    ...(issuer ? { issuer } : {}),
    ...(dpop ? { dpop } : {}),
  };
}

/** What `ClientCredentialsAuth` signs in with: the remote server, the machine's credentials, and where tokens are kept. */
export interface ClientCredentialsAuthOptions {
  readonly server: ServerConfig & { readonly url: string };
  readonly credentials: MachineCredentials;
  /** Where the pinned authorization server is remembered between runs; without it, for this connection only. */
  readonly store?: TokenStore;
  /** The host's environment, where an `assertion_env` or `id_token_env` is read. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The SDK's OAuthClientProvider for the `client_credentials` grant. Unlike
 * the SDK's own ClientCredentialsProvider it never lets the MCP server choose
 * where the secret goes: the credentials are bound to the configured
 * `issuer`, or to the first authorization server seen (remembered in the
 * token store until `mcpx logout`), and a different one is refused. Tokens
 * are kept in memory only: a new one costs one request.
 */
export class ClientCredentialsAuth implements OAuthClientProvider {
  readonly #options: ClientCredentialsAuthOptions;
  readonly addClientAuthentication?: AddClientAuthentication;
  #tokens: OAuthTokens | undefined;
  #pinned: string | undefined;
  /** What the SDK's discovery found: where an enterprise ID-JAG is meant for. */
  #authorizationServer: string | undefined;
  #resource: string | undefined;
  /** Present only with `"dpop": true`: the SDK then binds tokens to its key and signs each request. */
  readonly dpop?: () => Promise<DpopSession>;

  constructor(options: ClientCredentialsAuthOptions) {
    this.#options = options;
    // Tokens live in this process only, so the key that binds them does too.
    if (options.credentials.dpop) {
      const holder: DpopSessionHolder = {};
      this.dpop = async () => {
        const { DpopSession } = await import('@modelcontextprotocol/client');
        holder.session ??= DpopSession.create();
        return holder.session;
      };
    }
    const { clientId, privateKey, algorithm } = options.credentials;
    if (privateKey) {
      // The SDK signs the assertion; it is loaded with the first token request, not at import.
      let sign: Promise<AddClientAuthentication> | undefined;
      this.addClientAuthentication = async (...args) => {
        sign ??= import('@modelcontextprotocol/client').then((sdk) =>
          sdk.createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey, alg: algorithm }),
        );
        return (await sign)(...args);
      };
    }
  }

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { credentials } = this.#options;
    return {
      client_name: 'mcpx',
      software_version: VERSION,
      redirect_uris: [],
      grant_types: [credentials.grant ? JWT_BEARER_GRANT : 'client_credentials'],
      token_endpoint_auth_method: credentials.clientSecret
        ? 'client_secret_basic'
        : credentials.privateKey
          ? 'private_key_jwt'
          : 'none',
      ...(credentials.scope ? { scope: credentials.scope } : {}),
    };
  }

  async clientInformation(ctx?: OAuthClientInformationContext) {
    const { clientId, clientSecret } = this.#options.credentials;
    const issuer = await this.#bind(ctx?.issuer);
    return { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}), issuer };
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }

  redirectToAuthorization(): void {
    throw new McpxError(
      ErrorCode.AuthRequired,
      `'${this.#options.server.name}' asked for a person to sign in, but it is set up for client credentials`,
      {
        server: this.#options.server.name,
        origin: this.#options.server.origin,
        fixes: ['check the oauth block: remove "grant_type" to sign in with `mcpx auth` instead'],
      },
    );
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error('the client_credentials grant uses no PKCE verifier');
  }

  /** Called by the SDK's `auth()` after discovery (RFC 9728). */
  saveAuthorizationServerUrl(issuer: string): void {
    this.#authorizationServer = issuer;
  }

  saveResourceUrl(resource: string): void {
    this.#resource = resource;
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const { server, credentials, env = {} } = this.#options;
    const wanted = scope ?? credentials.scope;
    const params = new URLSearchParams({
      grant_type: credentials.grant ? JWT_BEARER_GRANT : 'client_credentials',
    });
    if (credentials.grant) {
      // Read at each request: a workload's token is rotated by the platform that mounts it.
      const assertion = await presentAssertion(server, credentials.grant, {
        env,
        ...(this.#authorizationServer ? { authorizationServer: this.#authorizationServer } : {}),
        ...(this.#resource ? { resource: this.#resource } : {}),
        ...(wanted ? { scope: wanted } : {}),
      });
      params.set('assertion', assertion);
    }
    if (wanted) params.set('scope', wanted);
    return params;
  }

  /** The authorization server these credentials may go to; refuses any other. */
  async #bind(seen: string | undefined): Promise<string | undefined> {
    const { server, credentials, store } = this.#options;
    if (this.#pinned === undefined && credentials.issuer) this.#pinned = credentials.issuer;
    if (this.#pinned === undefined) {
      const stored = await store?.load(server.name, server.url);
      this.#pinned = stored?.issuer ?? seen;
      // First use: remember where the credentials went, so no other server ever gets them.
      if (stored?.issuer === undefined && seen !== undefined)
        await store?.update(server.name, server.url, (current) => ({
          ...current,
          issuer: current.issuer ?? seen,
        }));
    }
    if (seen !== undefined && this.#pinned !== seen) {
      throw new McpxError(
        ErrorCode.AuthRequired,
        `refusing to send '${server.name}' credentials to ${seen}: they belong to ${this.#pinned}`,
        {
          server: server.name,
          origin: server.origin,
          causes: [
            'the server moved to another authorization server',
            'the server is trying to collect credentials meant for another one',
          ],
          fixes: [
            credentials.issuer
              ? `if the move is expected, set "issuer": "${seen}" in the oauth block`
              : `if the move is expected, run \`mcpx logout ${server.name}\` to forget ${this.#pinned}`,
          ],
        },
      );
    }
    return this.#pinned;
  }
}
