import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { FetchLike } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';

/** The RFC 7523 JWT-bearer authorization grant (workload identity, SEP-1933; enterprise-managed authorization, SEP-990). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * Where a credential that is not mcpx's to keep is read from, each time it is
 * needed (a workload's token is rotated by the platform that mounts it): a
 * file, or an environment variable named (never written) in the config.
 */
export type CredentialSource = { readonly file: string } | { readonly env: string };

/**
 * The JWT-bearer grant of a server's `oauth` block: the assertion is a
 * workload's own token (SEP-1933), or an identity assertion grant (ID-JAG) the
 * enterprise IdP issues for the person's ID token (SEP-990, RFC 8693 token
 * exchange).
 */
export type AssertionGrant =
  | { readonly kind: 'workload'; readonly assertion: CredentialSource }
  | {
      readonly kind: 'enterprise';
      readonly idToken: CredentialSource;
      /** The IdP's token endpoint, or its issuer to discover it from. */
      readonly idp: { readonly tokenEndpoint: string } | { readonly issuer: string };
      readonly idpClientId: string;
      readonly idpClientSecret?: string;
    };

/** What a grant needs at token time: the environment, and what the SDK's discovery found. */
export interface AssertionContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The MCP server's authorization server (its issuer): the ID-JAG's audience. */
  readonly authorizationServer?: string;
  /** The MCP server's resource identifier (RFC 9728). */
  readonly resource?: string;
  readonly scope?: string;
  readonly fetchFn?: FetchLike;
}

/** The JWT-bearer grant the block asks for, or throws ConfigInvalid naming what is missing or doubled. */
export function assertionGrant(server: ServerConfig): AssertionGrant {
  const raw = (server.oauth ?? {}) as Record<string, unknown>;
  const text = (key: string) => {
    const value = raw[key];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const workload = source(server, text('assertion_file'), text('assertion_env'), 'assertion');
  const idToken = source(server, text('id_token_file'), text('id_token_env'), 'id_token');
  const tokenEndpoint = text('idp_token_endpoint');
  const issuer = text('idp_issuer');
  const idpClientId = text('idp_client_id');
  const enterprise = idToken !== undefined || tokenEndpoint !== undefined || issuer !== undefined;
  if (workload && enterprise)
    throw invalid(
      server,
      'both a workload assertion (assertion_file/assertion_env) and enterprise IdP settings (idp_*, id_token_*)',
      [
        'keep assertion_file or assertion_env for a workload identity',
        'or the idp_* and id_token_* settings for enterprise-managed authorization',
      ],
    );
  if (workload) return { kind: 'workload', assertion: workload };
  if (!enterprise)
    throw invalid(server, 'no assertion to present', [
      'a workload: "assertion_file": "/var/run/secrets/tokens/mcp" or "assertion_env": "MCP_WORKLOAD_TOKEN"',
      'enterprise-managed authorization: "idp_token_endpoint", "idp_client_id" and "id_token_file" or "id_token_env"',
    ]);
  const missing = [
    ...(idToken ? [] : ['id_token_file or id_token_env']),
    ...(tokenEndpoint || issuer ? [] : ['idp_token_endpoint or idp_issuer']),
    ...(idpClientId ? [] : ['idp_client_id']),
  ];
  if (missing.length > 0 || !idToken || !idpClientId)
    throw invalid(server, `enterprise-managed authorization without ${missing.join(', ')}`, [
      `add ${missing.map((m) => `"${m.split(' ')[0]}"`).join(', ')} to the oauth block`,
    ]);
  if (!text('client_secret'))
    throw invalid(server, 'enterprise-managed authorization without client_secret', [
      `add "client_secret": "\${CLIENT_SECRET}": the MCP authorization server authenticates the client (client_secret_basic)`,
    ]);
  const idpClientSecret = text('idp_client_secret');
  return {
    kind: 'enterprise',
    idToken,
    idp: tokenEndpoint ? { tokenEndpoint } : { issuer: issuer as string },
    idpClientId,
    ...(idpClientSecret ? { idpClientSecret } : {}),
  };
}

/**
 * The assertion for one token request: the workload's token as it is now, or
 * an ID-JAG the IdP issues for the ID token (the SDK's RFC 8693 exchange).
 * Errors name the file or variable, never what it holds.
 */
export async function presentAssertion(
  server: ServerConfig,
  grant: AssertionGrant,
  ctx: AssertionContext,
): Promise<string> {
  if (grant.kind === 'workload')
    return readCredential(server, grant.assertion, ctx.env, 'workload assertion');
  const idToken = await readCredential(server, grant.idToken, ctx.env, 'ID token');
  const { authorizationServer, resource } = ctx;
  if (!authorizationServer || !resource)
    throw new McpxError(
      ErrorCode.AuthRequired,
      `'${server.name}' publishes no protected resource metadata, which enterprise-managed authorization needs (RFC 9728)`,
      { server: server.name, origin: server.origin, fixes: ['ask the server operator to publish it'] },
    );
  const sdk = await import('@modelcontextprotocol/client');
  const common = {
    audience: authorizationServer,
    resource,
    idToken,
    clientId: grant.idpClientId,
    ...(grant.idpClientSecret ? { clientSecret: grant.idpClientSecret } : {}),
    ...(ctx.scope ? { scope: ctx.scope } : {}),
    ...(ctx.fetchFn ? { fetchFn: ctx.fetchFn } : {}),
  };
  try {
    const result =
      'tokenEndpoint' in grant.idp
        ? await sdk.requestJwtAuthorizationGrant({ ...common, tokenEndpoint: grant.idp.tokenEndpoint })
        : await sdk.discoverAndRequestJwtAuthGrant({ ...common, idpUrl: grant.idp.issuer });
    return result.jwtAuthGrant;
  } catch (error) {
    const { describeOAuthFailure } = await import('./oauth-failure.js');
    const idp = 'tokenEndpoint' in grant.idp ? grant.idp.tokenEndpoint : grant.idp.issuer;
    throw new McpxError(
      ErrorCode.AuthRequired,
      `the enterprise IdP (${idp}) did not grant access to '${server.name}': ${describeOAuthFailure(error)}`,
      {
        server: server.name,
        origin: server.origin,
        cause: error,
        causes: [
          'the ID token expired or is not for this IdP client',
          'the IdP does not allow this client to reach the server',
        ],
        fixes: [
          'sign in to your enterprise IdP again to get a new ID token',
          'check idp_client_id and the IdP policy for this server',
        ],
      },
    );
  }
}

function source(
  server: ServerConfig,
  file: string | undefined,
  env: string | undefined,
  what: string,
): CredentialSource | undefined {
  if (file && env)
    throw invalid(server, `both ${what}_file and ${what}_env`, [`keep one of ${what}_file and ${what}_env`]);
  if (env !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(env))
    throw invalid(server, `${what}_env is not a variable name`, [
      `write the variable's name, e.g. "${what}_env": "MCP_TOKEN" (not its value, nor \${MCP_TOKEN})`,
    ]);
  if (env) return { env };
  if (!file) return undefined;
  // Relative to the config file, as `cwd` is: the same wherever mcpx runs from.
  const base = server.origin.file ? dirname(server.origin.file) : undefined;
  if (!isAbsolute(file) && !base)
    throw invalid(server, `${what}_file is a relative path and the server has no config file`, [
      `give an absolute path for ${what}_file`,
    ]);
  return { file: isAbsolute(file) ? file : resolve(base as string, file) };
}

async function readCredential(
  server: ServerConfig,
  from: CredentialSource,
  env: Readonly<Record<string, string | undefined>>,
  what: string,
): Promise<string> {
  if ('env' in from) {
    const value = env[from.env]?.trim();
    if (value) return value;
    throw new McpxError(
      ErrorCode.AuthRequired,
      `the ${what} for '${server.name}' is not there: ${from.env} is not set`,
      {
        server: server.name,
        origin: server.origin,
        fixes: [`set ${from.env} in the environment mcpx runs in`],
      },
    );
  }
  let value: string;
  try {
    value = (await readFile(from.file, 'utf8')).trim();
  } catch (error) {
    throw new McpxError(
      ErrorCode.AuthRequired,
      `cannot read the ${what} for '${server.name}' from ${from.file}`,
      {
        server: server.name,
        origin: server.origin,
        causes: [(error as NodeJS.ErrnoException).code ?? 'the file cannot be read'],
        fixes: ['check that the platform mounts the token there, and that mcpx may read it'],
      },
    );
  }
  if (value) return value;
  throw new McpxError(
    ErrorCode.AuthRequired,
    `the ${what} file for '${server.name}' is empty: ${from.file}`,
    {
      server: server.name,
      origin: server.origin,
      fixes: ['check that the platform has written the token'],
    },
  );
}

function invalid(server: ServerConfig, what: string, fixes: string[]): McpxError {
  return new McpxError(
    ErrorCode.ConfigInvalid,
    `server '${server.name}': oauth with "grant_type": "${JWT_BEARER_GRANT}" has ${what}`,
    { server: server.name, origin: server.origin, field: 'oauth', fixes },
  );
}
