/**
 * A protected MCP server for tests: an OAuth 2.1 authorization server
 * (RFC 9728 resource metadata, RFC 8414 metadata, dynamic registration, an
 * authorize endpoint that approves at once, a token endpoint with PKCE S256
 * and refresh tokens) in front of the HTTP test server, which it reaches only
 * with a valid, unexpired bearer token. Every OAuth request is recorded.
 */
import { createHash, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkDpopProof } from './dpop-check.js';
import { type HttpTestEra, type HttpTestServer, startHttpTestServer } from './http-test-server.js';

export interface OAuthTestServerOptions {
  /**
   * Lifetime of an access token issued by a sign-in or a client-credentials grant, in seconds.
   * Default 3600. A token issued by a refresh always lives the default hour, so a test that lets
   * the first one lapse cannot see the refreshed one lapse too on a slow machine before it is used.
   */
  readonly accessTokenSeconds?: number;
  /** Misbehaviour: leave S256 out of `code_challenge_methods_supported`. */
  readonly noS256?: boolean;
  /** Misbehaviour: send this `iss` on the redirect instead of the real issuer. */
  readonly wrongIss?: string;
  /** Send `iss` on the redirect and advertise it (RFC 9207). */
  readonly sendIss?: boolean;
  /** Misbehaviour: advertise this (e.g. plain-http, non-loopback) authorization endpoint. */
  readonly authorizationEndpoint?: string;
  /** Advertise this registration endpoint (e.g. one on a private network). */
  readonly registrationEndpoint?: string;
  /**
   * The origin the metadata names instead of the real one (a "public" name a
   * test maps back to this server with its own fetch and resolver).
   */
  readonly advertisedBase?: string;
  /**
   * Step-up: every request needs `basic` (named in the 401 challenge), and
   * `tools/call` also needs this scope; a token without it gets 403
   * `insufficient_scope`.
   */
  readonly toolCallScope?: string;
  /** Every `tools/call` of this tool is refused with a plain 403 (no scope would help). */
  readonly forbiddenTool?: string;
  /**
   * A machine client for the `client_credentials` grant: client_secret_basic with
   * `secret`, private_key_jwt (an RS256 assertion) with `publicKey` (PEM).
   */
  readonly machineClient?: { readonly id: string; readonly secret?: string; readonly publicKey?: string };
  /** Misbehaviour: registration answers this status with an HTML error page (as many web frameworks do). */
  readonly registrationErrorPage?: number;
  /** The protocol era of the MCP server behind the authorization. Default `legacy`. */
  readonly era?: HttpTestEra;
  /** Lifetime of an access token issued by a refresh, in seconds. Default 3600. */
  readonly refreshedTokenSeconds?: number;
  /**
   * Offer the device authorization grant (RFC 8628): a device endpoint, and a page where "the
   * person" approves or denies a user code (`approveDevice`, `denyDevice`).
   */
  readonly device?: DeviceGrantOptions;
  /**
   * DPoP (RFC 9449): a token request with a valid proof gets a token bound to its key, which the
   * resource then takes only as `Authorization: DPoP` with a fresh proof by that key. With
   * `nonce`, both first answer `use_dpop_nonce` until a proof carries the nonce they gave.
   */
  readonly dpop?: { readonly nonce?: boolean };
  /** Workload identity: the JWT-bearer grant with an RS256 assertion by this key (PEM) for this server. */
  readonly workloadKey?: string;
}

/** How the test authorization server's device grant behaves. */
export interface DeviceGrantOptions {
  /** The polling interval it asks for, in seconds. Default 1. */
  readonly interval?: number;
  /** How long a device code lives, in seconds. Default 600. */
  readonly expiresIn?: number;
  /** Answer the first poll `slow_down`. */
  readonly slowDownOnce?: boolean;
  /** Cut the connection of this many polls first, unanswered (a network that drops out). */
  readonly dropPolls?: number;
  /** The user code to hand out instead of a random one (hostile text, say). */
  readonly userCode?: string;
  /** Leave `verification_uri_complete` out. */
  readonly noCompleteUri?: boolean;
}

/** A DPoP proof the test server judged: where, and its `jti` or what was wrong with it. */
export interface DpopRecord {
  readonly path: string;
  readonly jti?: string;
  readonly nonce?: string;
  readonly problem?: string;
}

/** How the test authorization server has dealt with refresh requests so far. */
export interface RefreshCounts {
  /** Refresh requests that arrived at the token endpoint (a stalled one included). */
  readonly arrived: number;
  /** Refreshes answered with new tokens. */
  readonly granted: number;
  /** Spent refresh tokens presented again: each one revoked its whole grant. */
  readonly reused: number;
  /** Stalled refreshes whose client hung up before an answer (killed mid-refresh): nothing was spent. */
  readonly abandoned: number;
}

export interface OAuthRequestRecord {
  readonly path: string;
  readonly params: Record<string, string>;
}

export interface OAuthTestServer {
  /** The protected MCP endpoint. */
  readonly url: string;
  readonly requests: readonly OAuthRequestRecord[];
  /** JSON-RPC methods that passed authorization and reached the MCP server, in order. */
  readonly forwarded: readonly string[];
  /** Forget every access and refresh token issued so far (a revoked grant): the next request needs a new sign-in. */
  revokeAll(): void;
  /**
   * End the life of every access token issued so far, as time would (refresh tokens stay good):
   * the next request with one is answered 401, whatever lifetime the client was told.
   */
  expireAccessTokens(): void;
  /**
   * Hold every refresh request from now on without answering or spending its refresh token,
   * until `stallRefreshes(false)` (then they are served) or the client hangs up (then nothing
   * happened): a client is caught mid-refresh.
   */
  stallRefreshes(on: boolean): void;
  /** Refresh requests so far. Refresh tokens rotate: each is good once, and a second use revokes the grant. */
  refreshes(): RefreshCounts;
  /** Every access and refresh token and code issued so far, for tests that look for leaks. */
  issuedSecrets(): readonly string[];
  /** Requests to the MCP endpoint answered 401 (no token, or an unknown or expired one). */
  unauthorized(): number;
  /** "The person" approves the device sign-in with this user code (the latest one when omitted). */
  approveDevice(userCode?: string): Promise<void>;
  /** "The person" refuses it. */
  denyDevice(userCode?: string): Promise<void>;
  /** When each device-code poll arrived (ms since the epoch), in order. */
  devicePolls(): readonly number[];
  /** With `dpop`: every proof presented, in order. */
  readonly dpopProofs: readonly DpopRecord[];
  close(): Promise<void>;
}

const b64url = (buffer: Buffer) => buffer.toString('base64url');

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// Long because its endpoints share the test authorization server's codes, tokens and request log in
// one closure.
export async function startOAuthTestServer(options: OAuthTestServerOptions = {}): Promise<OAuthTestServer> {
  const inner: HttpTestServer = await startHttpTestServer({ era: options.era ?? 'legacy' });
  const requests: OAuthRequestRecord[] = [];
  const forwarded: string[] = [];
  const codes = new Map<string, { challenge: string; redirectUri: string; scope: string }>();
  const accessTokens = new Map<string, { expiry: number; scope: string; grant: string; jkt?: string }>();
  // Rotation with reuse detection (OAuth 2.1 §4.3.1): a refresh token is good once; presented again
  // it means two clients hold one grant, and the whole grant is revoked.
  const refreshTokens = new Map<string, { scope: string; grant: string; spent: boolean; jkt?: string }>();
  const dpopProofs: DpopRecord[] = [];
  /** The proof's key, or undefined after answering: a bad proof, or the nonce asked for. */
  const dpopKey = (
    req: IncomingMessage,
    res: import('node:http').ServerResponse,
    url: string,
    accessToken?: string,
  ): string | undefined => {
    const path = new URL(url).pathname;
    const proof = checkDpopProof(req.headers.dpop, { method: req.method ?? '', url, accessToken });
    if (typeof proof === 'string') {
      dpopProofs.push({ path, problem: proof });
      if (accessToken) res.writeHead(401, { 'www-authenticate': 'DPoP error="invalid_dpop_proof"' }).end();
      else json(res, 400, { error: 'invalid_dpop_proof', error_description: proof });
      return undefined;
    }
    dpopProofs.push({ path, jti: proof.jti, ...(proof.nonce ? { nonce: proof.nonce } : {}) });
    if (options.dpop?.nonce && proof.nonce !== DPOP_NONCE) {
      if (accessToken)
        res
          .writeHead(401, { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': DPOP_NONCE })
          .end();
      else
        res
          .writeHead(400, { 'content-type': 'application/json', 'dpop-nonce': DPOP_NONCE })
          .end(JSON.stringify({ error: 'use_dpop_nonce' }));
      return undefined;
    }
    return proof.jkt;
  };
  const issued: string[] = [];
  const devices = new Map<
    string,
    { userCode: string; scope: string; expiry: number; status: 'pending' | 'approved' | 'denied' | 'used' }
  >();
  const polls: number[] = [];
  let slowedDown = false;
  let rejected = 0;
  const counts = { arrived: 0, granted: 0, reused: 0, abandoned: 0 };
  let stalled: Promise<void> | undefined;
  let unstall: (() => void) | undefined;
  let base = '';
  const revokeGrant = (grant: string) => {
    for (const [token, record] of accessTokens) if (record.grant === grant) accessTokens.delete(token);
    for (const [token, record] of refreshTokens) if (record.grant === grant) refreshTokens.delete(token);
  };
  const issue = (
    scope: string,
    seconds = options.accessTokenSeconds ?? 3600,
    grant = b64url(randomBytes(6)),
    jkt?: string,
  ) => {
    const access = b64url(randomBytes(18));
    const refresh = b64url(randomBytes(18));
    const bound = jkt ? { jkt } : {};
    accessTokens.set(access, { expiry: Date.now() + seconds * 1000, scope, grant, ...bound });
    refreshTokens.set(refresh, { scope, grant, spent: false, ...bound });
    issued.push(access, refresh);
    return {
      access_token: access,
      token_type: jkt ? 'DPoP' : 'Bearer',
      expires_in: seconds,
      refresh_token: refresh,
      ...(scope ? { scope } : {}),
    };
  };
  const json = (res: import('node:http').ServerResponse, status: number, value: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

  // Long because it routes every endpoint of the test authorization server, one branch each.
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const path = url.pathname;
    const named = options.advertisedBase ?? base;
    if (path.startsWith('/.well-known/oauth-protected-resource')) {
      return json(res, 200, {
        resource: `${named}/mcp`,
        authorization_servers: [named],
        ...(options.toolCallScope ? { scopes_supported: ['basic', options.toolCallScope] } : {}),
      });
    }
    if (path === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: named,
        authorization_endpoint: options.authorizationEndpoint ?? `${named}/authorize`,
        token_endpoint: `${named}/token`,
        registration_endpoint: options.registrationEndpoint ?? `${named}/register`,
        response_types_supported: ['code'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          ...(options.machineClient ? ['client_credentials'] : []),
          ...(options.device ? [DEVICE_GRANT] : []),
          ...(options.workloadKey ? [JWT_BEARER_GRANT] : []),
        ],
        ...(options.device ? { device_authorization_endpoint: `${named}/device_authorization` } : {}),
        ...(options.dpop ? { dpop_signing_alg_values_supported: ['ES256'] } : {}),
        code_challenge_methods_supported: options.noS256 ? ['plain'] : ['S256'],
        ...(options.sendIss || options.wrongIss
          ? { authorization_response_iss_parameter_supported: true }
          : {}),
        token_endpoint_auth_methods_supported: options.machineClient
          ? ['none', 'client_secret_basic', ...(options.machineClient.publicKey ? ['private_key_jwt'] : [])]
          : ['none'],
      });
    }
    if (path === '/register' && req.method === 'POST' && options.registrationErrorPage !== undefined) {
      requests.push({ path, params: {} });
      return res
        .writeHead(options.registrationErrorPage, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          '<!DOCTYPE html>\n<html lang="en">\n<head><title>Error</title></head>\n<body>\n<pre>Cannot POST /register\u001b[2J</pre>\n</body>\n</html>\n',
        );
    }
    if (path === '/register' && req.method === 'POST') {
      const metadata = JSON.parse(await body(req)) as Record<string, unknown>;
      requests.push({ path, params: {} });
      return json(res, 201, {
        ...metadata,
        client_id: `client-${b64url(randomBytes(6))}`,
        token_endpoint_auth_method: 'none',
      });
    }
    if (path === '/authorize') {
      const params = Object.fromEntries(url.searchParams);
      requests.push({ path, params });
      const code = b64url(randomBytes(12));
      issued.push(code);
      codes.set(code, {
        challenge: params.code_challenge ?? '',
        redirectUri: params.redirect_uri ?? '',
        scope: params.scope ?? '',
      });
      const back = new URL(params.redirect_uri ?? '');
      back.searchParams.set('code', code);
      if (params.state) back.searchParams.set('state', params.state);
      if (options.wrongIss) back.searchParams.set('iss', options.wrongIss);
      else if (options.sendIss) back.searchParams.set('iss', named);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (path === '/device_authorization' && req.method === 'POST' && options.device) {
      const params = Object.fromEntries(new URLSearchParams(await body(req)));
      requests.push({ path, params });
      if (!params.client_id && !req.headers.authorization) return json(res, 401, { error: 'invalid_client' });
      const device = b64url(randomBytes(18));
      const userCode = options.device.userCode ?? userCodeOf(randomBytes(8));
      issued.push(device);
      const expiresIn = options.device.expiresIn ?? 600;
      devices.set(device, {
        userCode,
        scope: params.scope ?? '',
        expiry: Date.now() + expiresIn * 1000,
        status: 'pending',
      });
      return json(res, 200, {
        device_code: device,
        user_code: userCode,
        verification_uri: `${named}/device`,
        ...(options.device.noCompleteUri
          ? {}
          : { verification_uri_complete: `${named}/device?user_code=${encodeURIComponent(userCode)}` }),
        expires_in: expiresIn,
        interval: options.device.interval ?? 1,
      });
    }
    if (path === '/device' && req.method === 'POST' && options.device) {
      const params = Object.fromEntries(new URLSearchParams(await body(req)));
      const entry = [...devices.values()]
        .filter((d) => params.user_code === undefined || d.userCode === params.user_code)
        .at(-1);
      if (entry?.status !== 'pending') return json(res, 404, { error: 'no such code' });
      entry.status = params.action === 'deny' ? 'denied' : 'approved';
      return json(res, 200, { status: entry.status });
    }
    if (path === '/token' && req.method === 'POST') {
      const params = Object.fromEntries(new URLSearchParams(await body(req)));
      requests.push({ path, params });
      const jkt = options.dpop ? dpopKey(req, res, `${named}/token`) : undefined;
      if (options.dpop && !jkt) return;
      if (params.grant_type === DEVICE_GRANT && options.device) {
        polls.push(Date.now());
        if (polls.length <= (options.device.dropPolls ?? 0)) return void req.socket.destroy();
        const entry = devices.get(params.device_code ?? '');
        if (!entry || entry.status === 'used') return json(res, 400, { error: 'invalid_grant' });
        if (entry.expiry < Date.now()) return json(res, 400, { error: 'expired_token' });
        if (entry.status === 'denied') return json(res, 400, { error: 'access_denied' });
        if (options.device.slowDownOnce && !slowedDown) {
          slowedDown = true;
          return json(res, 400, { error: 'slow_down' });
        }
        if (entry.status === 'pending') return json(res, 400, { error: 'authorization_pending' });
        entry.status = 'used';
        return json(res, 200, issue(entry.scope, undefined, undefined, jkt));
      }
      if (params.grant_type === JWT_BEARER_GRANT && options.workloadKey) {
        const audience = (claims: Record<string, unknown>) => claims.aud === named;
        if (!signedRs256(options.workloadKey, params.assertion, audience))
          return json(res, 400, { error: 'invalid_grant', error_description: 'assertion not accepted' });
        return json(res, 200, issue(params.scope ?? '', undefined, undefined, jkt));
      }
      if (params.grant_type === 'client_credentials') {
        const machine = options.machineClient;
        const authenticated =
          params.client_assertion_type === JWT_BEARER
            ? machine?.publicKey !== undefined &&
              assertionFrom(machine.id, machine.publicKey, params.client_assertion)
            : machine?.secret !== undefined && basicAuthIs(req, machine.id, machine.secret);
        if (!authenticated)
          return json(res, 401, {
            error: 'invalid_client',
            error_description: 'unknown client or wrong secret',
          });
        return json(res, 200, issue(params.scope ?? '', undefined, undefined, jkt));
      }
      if (params.grant_type === 'authorization_code') {
        const grant = codes.get(params.code ?? '');
        codes.delete(params.code ?? '');
        const verified =
          grant &&
          b64url(
            createHash('sha256')
              .update(params.code_verifier ?? '')
              .digest(),
          ) === grant.challenge;
        return verified
          ? json(res, 200, issue(grant.scope, undefined, undefined, jkt))
          : json(res, 400, { error: 'invalid_grant' });
      }
      if (params.grant_type === 'refresh_token') {
        counts.arrived++;
        if (stalled && !(await heldUntilServed(req, stalled))) {
          counts.abandoned++;
          return;
        }
        const refreshed = refreshTokens.get(params.refresh_token ?? '');
        if (refreshed?.spent) {
          counts.reused++;
          revokeGrant(refreshed.grant);
          return json(res, 400, {
            error: 'invalid_grant',
            error_description: 'refresh token already used; the grant is revoked',
          });
        }
        if (refreshed && refreshed.jkt === jkt) {
          refreshed.spent = true;
          counts.granted++;
          return json(
            res,
            200,
            issue(refreshed.scope, options.refreshedTokenSeconds ?? 3600, refreshed.grant, jkt),
          );
        }
      }
      return json(res, 400, { error: 'invalid_grant' });
    }
    if (path === '/mcp') {
      const [, scheme, token] = /^(Bearer|DPoP) (.+)$/.exec(req.headers.authorization ?? '') ?? [];
      const grant = token ? accessTokens.get(token) : undefined;
      const metadata = `resource_metadata="${named}/.well-known/oauth-protected-resource/mcp"`;
      // A bound token goes only with the DPoP scheme and a proof by its key; an unbound one only as Bearer.
      if (grant && (scheme === 'DPoP') !== (grant.jkt !== undefined)) {
        return res
          .writeHead(401, { 'www-authenticate': `${grant.jkt ? 'DPoP' : 'Bearer'} ${metadata}` })
          .end();
      }
      if (grant?.jkt && token && grant.expiry >= Date.now()) {
        const presented = dpopKey(req, res, `${base}${path}`, token);
        if (presented === undefined) return;
        if (presented !== grant.jkt)
          return res.writeHead(401, { 'www-authenticate': 'DPoP error="invalid_token"' }).end();
      }
      if (!grant || grant.expiry < Date.now()) {
        rejected++;
        const scope = options.toolCallScope ? 'scope="basic", ' : '';
        return res.writeHead(401, { 'www-authenticate': `Bearer ${scope}${metadata}` }).end();
      }
      const payload = req.method === 'POST' ? await body(req) : undefined;
      const granted = grant.scope.split(' ');
      if (
        options.toolCallScope &&
        payload?.includes('"tools/call"') &&
        !granted.includes(options.toolCallScope)
      ) {
        return res
          .writeHead(403, {
            'www-authenticate': `Bearer error="insufficient_scope", scope="${options.toolCallScope}", ${metadata}`,
          })
          .end();
      }
      if (options.forbiddenTool && payload?.includes(`"name":"${options.forbiddenTool}"`)) {
        return json(res, 403, { error: 'forbidden' });
      }
      // Valid: pass the request on to the MCP test server, streaming the answer back.
      for (const method of payload?.match(/"method"\s*:\s*"([^"]+)"/g) ?? [])
        forwarded.push(method.replace(/^"method"\s*:\s*"|"$/g, ''));
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && k !== 'host' && k !== 'authorization') headers[k] = v;
      const answer = await fetch(inner.url, {
        method: req.method ?? 'GET',
        headers,
        ...(payload === undefined ? {} : { body: payload }),
      });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (answer.body) for await (const chunk of answer.body) res.write(chunk);
      return res.end();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    requests,
    forwarded,
    revokeAll: () => {
      accessTokens.clear();
      refreshTokens.clear();
    },
    expireAccessTokens: () => {
      for (const record of accessTokens.values()) record.expiry = 0;
    },
    stallRefreshes: (on) => {
      if (on && !stalled) {
        stalled = new Promise((resolve) => {
          unstall = resolve;
        });
      } else if (!on && stalled) {
        unstall?.();
        stalled = undefined;
      }
    },
    refreshes: () => ({ ...counts }),
    issuedSecrets: () => [...issued],
    unauthorized: () => rejected,
    approveDevice: (userCode) => person(base, 'approve', userCode),
    denyDevice: (userCode) => person(base, 'deny', userCode),
    devicePolls: () => [...polls],
    dpopProofs,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await inner.close();
    },
  };
}

/** Wait for `served`; false when the client hung up first (it was killed mid-refresh: nothing is spent). */
function heldUntilServed(req: IncomingMessage, served: Promise<void>): Promise<boolean> {
  return new Promise((resolve) => {
    const gone = () => resolve(false);
    req.socket.once('close', gone);
    served.then(() => {
      req.socket.off('close', gone);
      resolve(!req.socket.destroyed);
    });
  });
}

/** "The person" at the verification page: approve or deny a user code. */
async function person(base: string, action: 'approve' | 'deny', userCode: string | undefined): Promise<void> {
  const form = new URLSearchParams({ action, ...(userCode === undefined ? {} : { user_code: userCode }) });
  const response = await fetch(`${base}/device`, { method: 'POST', body: form });
  if (!response.ok) throw new Error(`the test authorization server has no pending code to ${action}`);
}

/** An eight-letter user code from an alphabet without look-alikes (RFC 8628 §6.1), as XXXX-XXXX. */
function userCodeOf(bytes: Buffer): string {
  const letters = 'BCDFGHJKLMNPQRSTVWXZ';
  const code = [...bytes].map((b) => letters[b % letters.length]).join('');
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const DPOP_NONCE = 'test-server-nonce';

function basicAuthIs(req: IncomingMessage, id: string, secret: string): boolean {
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const [sentId, sentSecret] = Buffer.from(basic ?? '', 'base64')
    .toString('utf8')
    .split(':')
    .map((part) => decodeURIComponent(part));
  return sentId === id && sentSecret === secret;
}

/** An RS256 client assertion signed with the client's key, by and about the client, not expired. */
function assertionFrom(id: string, publicKey: string, assertion: string | undefined): boolean {
  return signedRs256(publicKey, assertion, (claims) => claims.iss === id && claims.sub === id);
}

/** An RS256 JWT signed with `publicKey`, not expired, whose claims pass `check`. */
function signedRs256(
  publicKey: string,
  assertion: string | undefined,
  check: (claims: Record<string, unknown>) => boolean,
): boolean {
  const [header, payload, signature] = (assertion ?? '').split('.');
  if (!header || !payload || !signature) return false;
  const signed = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    publicKey,
    Buffer.from(signature, 'base64url'),
  );
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  const alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string }).alg;
  return (
    signed &&
    alg === 'RS256' &&
    check(claims) &&
    typeof claims.exp === 'number' &&
    claims.exp * 1000 > Date.now()
  );
}
