/** A 401/403 `WWW-Authenticate: Bearer …` challenge: what the server wants for the next attempt. */
export interface AuthChallenge {
  readonly status: number;
  /** `insufficient_scope`, `invalid_token`, … */
  readonly error?: string;
  readonly scope?: string;
  readonly resourceMetadata?: string;
}

/** The parameters of a Bearer challenge (RFC 6750 §3): `key="quoted"` or `key=token`. */
export function parseBearerChallenge(header: string): Omit<AuthChallenge, 'status'> {
  const params: Record<string, string> = {};
  for (const match of header.matchAll(/([a-zA-Z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    const [, key, quoted, token] = match;
    if (key)
      params[key.toLowerCase()] = quoted === undefined ? (token ?? '') : quoted.replace(/\\(.)/g, '$1');
  }
  return {
    ...(params.error ? { error: params.error } : {}),
    ...(params.scope ? { scope: params.scope } : {}),
    ...(params.resource_metadata ? { resourceMetadata: params.resource_metadata } : {}),
  };
}
