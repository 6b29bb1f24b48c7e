/**
 * What a credential looks like, by its name or its shape: `mcpx config import` turns them
 * into `${VAR}` references, and traces recorded with `--trace-content` mask them.
 */

// The last word of a flag, parameter or field that names a credential: `--api-key`, `--token`,
// `?key=`, `clientSecret`. Only the last word: `--key-file` and `--token-env` name where a secret
// is, not the secret itself.
const SECRET_WORD =
  /^(?:key|apikey|token|secret|password|passwd|pass|pwd|pat|credentials?|auth|authorization|bearer|cookie|sig|signature|[a-z]*(?:apikey|accesskey|secretkey|privatekey|token|secret|password))$/;

/** Well-known token shapes, for a value standing alone. */
export const TOKEN_SHAPE =
  /^(?:sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})$/;

const SCHEME_CREDENTIAL = /^(?:Bearer|Basic|Token)\s+\S+/i;

/** What stands in for a masked value. */
export const MASKED = '***';

/** Whether a flag, parameter or field name says it holds a credential. */
export function namesSecret(name: string): boolean {
  const words = name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words[0] === 'no') return false;
  return SECRET_WORD.test(words.at(-1) ?? '');
}

/**
 * A copy of `value` (JSON-like) with every credential replaced by `***`: values of fields
 * whose name says secret (`apiKey`, `password`, `Authorization`), strings shaped like a
 * well-known token, and `Bearer …` credentials.
 */
export function maskSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string')
    return TOKEN_SHAPE.test(value) || SCHEME_CREDENTIAL.test(value) ? MASKED : value;
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 32) return MASKED;
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      namesSecret(key) && item !== null && typeof item !== 'object' ? MASKED : maskSecrets(item, depth + 1);
  }
  return out;
}
