import type { DpopSession } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';

/** The key that binds a stored sign-in's tokens (RFC 9449), kept in the token file beside them. */
export interface StoredDpopKey {
  readonly alg: string;
  /** The private key as a JWK: as secret as the refresh token it sits beside (file 0600). */
  readonly privateJwk: Record<string, unknown>;
}

/** One session per provider, made on first use. */
export interface DpopSessionHolder {
  session?: Promise<DpopSession>;
}

/**
 * Whether the server's `oauth` block asks for DPoP-bound tokens (`"dpop": true`,
 * SEP-1932): each token is bound to a key of mcpx's, and each request carries
 * a proof signed with it, so a stolen token is worthless without the key.
 * Throws ConfigInvalid for anything but a boolean.
 */
export function dpopWanted(server: ServerConfig): boolean {
  const value = (server.oauth as Record<string, unknown> | undefined)?.dpop;
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  throw new McpxError(
    ErrorCode.ConfigInvalid,
    `server '${server.name}': oauth "dpop" must be true or false`,
    {
      server: server.name,
      origin: server.origin,
      field: 'oauth.dpop',
      expected: 'true or false',
      received: typeof value,
      fixes: ['write "dpop": true (no quotes) to bind tokens to a key of mcpx\'s'],
    },
  );
}

/**
 * The DPoP session of a stored sign-in: its key must outlive the process
 * (`mcpx auth` binds the tokens; every later command presents them), so it is
 * made extractable and kept in the token store. `keep` stores a new key
 * unless one is there already, and answers with the one kept: two processes
 * that make one at once end up with the same. ES256, the SDK's default and
 * what authorization servers support first.
 */
export async function storedDpopSession(
  stored: StoredDpopKey | undefined,
  keep: (made: StoredDpopKey) => Promise<StoredDpopKey>,
): Promise<DpopSession> {
  const sdk = await import('@modelcontextprotocol/client');
  const { subtle } = globalThis.crypto;
  let key = stored?.alg === 'ES256' ? stored : undefined;
  if (!key) {
    const made = await sdk.generateDpopKeyPair({ alg: 'ES256', extractable: true });
    key = await keep({
      alg: 'ES256',
      privateJwk: ecJwk({ ...(await subtle.exportKey('jwk', made.privateKey)) }, true),
    });
  }
  const curve = { name: 'ECDSA', namedCurve: 'P-256' };
  const privateKey = await subtle.importKey('jwk', key.privateJwk, curve, false, ['sign']);
  const publicJwk = ecJwk(key.privateJwk, false);
  const publicKey = await subtle.importKey('jwk', publicJwk, curve, true, ['verify']);
  return sdk.DpopSession.create({
    keyPair: { privateKey, publicKey, publicJwk, thumbprint: await thumbprintOf(publicJwk), alg: 'ES256' },
  });
}

/** An EC JWK's key members only (no `ext`, `key_ops`): the private one with `d`, the public one without. */
function ecJwk(jwk: Record<string, unknown>, withPrivate: boolean): Record<string, string> {
  const { kty, crv, x, y, d } = jwk as Record<string, string>;
  return {
    kty: kty as string,
    crv: crv as string,
    x: x as string,
    y: y as string,
    ...(withPrivate ? { d: d as string } : {}),
  };
}

/** RFC 7638: SHA-256 of the required members in lexicographic order, base64url. */
async function thumbprintOf(jwk: Record<string, string>): Promise<string> {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonical));
  return Buffer.from(digest).toString('base64url');
}
