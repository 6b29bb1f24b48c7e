/**
 * The checks a DPoP-protected test server makes of a proof (RFC 9449 §4.3):
 * an ES256 `dpop+jwt` signed by the public key it carries, for this method and
 * URL, recent, with a `jti`, and — at a resource — the hash of the token it
 * comes with. Node's crypto only, so the test servers need no JOSE library.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';

/** A proof that passed: the key's thumbprint (the token's `cnf.jkt`), its `jti` and the nonce it carried. */
export interface DpopProof {
  readonly jkt: string;
  readonly jti: string;
  readonly nonce?: string;
}

/** What the proof must be for. */
export interface DpopExpectation {
  readonly method: string;
  readonly url: string;
  /** At a resource: the access token the proof must be bound to (`ath`). */
  readonly accessToken?: string;
}

/** The proof if it holds, else why not. */
export function checkDpopProof(
  header: string | string[] | undefined,
  expected: DpopExpectation,
): DpopProof | string {
  if (typeof header !== 'string' || header.includes(',')) return 'missing or repeated DPoP header';
  const [head, body, signature] = header.split('.');
  if (!head || !body || !signature) return 'not a JWT';
  let jose: { typ?: string; alg?: string; jwk?: Record<string, string> };
  let claims: Record<string, unknown>;
  try {
    jose = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return 'not a JWT';
  }
  if (jose.typ !== 'dpop+jwt' || jose.alg !== 'ES256' || !jose.jwk || jose.jwk.d !== undefined)
    return 'wrong header (typ, alg or jwk)';
  const key = createPublicKey({ key: jose.jwk, format: 'jwk' });
  const signed = verify(
    'sha256',
    Buffer.from(`${head}.${body}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) return 'bad signature';
  if (claims.htm !== expected.method) return 'htm does not match';
  if (claims.htu !== expected.url) return 'htu does not match';
  if (typeof claims.iat !== 'number' || Math.abs(claims.iat - Date.now() / 1000) > 300) return 'stale iat';
  if (typeof claims.jti !== 'string') return 'no jti';
  if (expected.accessToken !== undefined && claims.ath !== sha256(expected.accessToken))
    return 'ath does not match';
  const { crv, kty, x, y } = jose.jwk;
  return {
    jkt: sha256(JSON.stringify({ crv, kty, x, y })),
    jti: claims.jti,
    ...(typeof claims.nonce === 'string' ? { nonce: claims.nonce } : {}),
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
