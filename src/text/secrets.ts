/**
 * What looks like a credential, by its name or by its shape. An import of another client app's file
 * turns such values into `${VAR}` references (`config/client-apps/protect-secrets.ts`); the audit log
 * (`audit/call-arguments.ts`) and traces recorded with `--trace-content` (`tracing/content.ts`)
 * mask them with {@link maskSecrets}.
 */

// The last word of a name that names a credential: `--api-key`, `--token`, `?key=`, `clientSecret`.
// Only the last word: `--key-file` and `--token-env` name where a secret is, not the secret itself.
const SECRET_WORD =
  /^(?:key|apikey|token|secret|password|passwd|pass|pwd|pat|credentials?|auth|authorization|bearer|cookie|sig|signature|[a-z]*(?:apikey|accesskey|secretkey|privatekey|token|secret|password))$/;
// Well-known token shapes, for a value standing alone.
const TOKEN_SHAPE =
  /^(?:sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})$/;
// A credential with its scheme, as an Authorization header carries it.
const SCHEME_CREDENTIAL = /^(?:Bearer|Basic|Token)\s+\S+/i;

/** Whether a flag, query parameter or argument name says it holds a credential (`apiKey`, `--token`). */
export function namesSecret(name: string): boolean {
  // The same few argument names come back on every call a log masks: each is judged once.
  let said = judged.get(name);
  if (said === undefined) {
    said = judgeName(name);
    if (judged.size >= JUDGED_NAMES) judged.clear();
    judged.set(name, said);
  }
  return said;
}

/** Names remembered by {@link namesSecret}; past this the memory starts again (a bound, not a cache policy). */
const JUDGED_NAMES = 1_024;
const judged = new Map<string, boolean>();

function judgeName(name: string): boolean {
  const words = name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words[0] === 'no') return false;
  return SECRET_WORD.test(words.at(-1) ?? '');
}

/** Whether a value has the shape of a well-known token (`ghp_…`, `sk-…`, `AKIA…`), whatever it is called. */
export function looksLikeToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

export interface MaskOptions {
  /** What stands in for a masked value (default `‹masked›`). */
  readonly marker?: string;
  /** Deeper than this, a value is `‹…›` (default 32). */
  readonly maxDepth?: number;
  /** Longer strings are cut, saying how long they were (default: never). */
  readonly maxString?: number;
}

/**
 * A copy of `value` (JSON-like) with every credential masked: whatever sits under a key that
 * names a secret (`apiKey`, `password`, `Authorization`, at any depth), every string shaped
 * like a well-known token, and `Bearer …` credentials.
 *
 * @example maskSecrets({ q: 'x', apiKey: 'abc' }) // { q: 'x', apiKey: '‹masked›' }
 */
export function maskSecrets(value: unknown, options: MaskOptions = {}): unknown {
  const { marker = '‹masked›', maxDepth = 32, maxString } = options;
  const mask = (inner: unknown, depth: number): unknown => {
    if (typeof inner === 'string') {
      const word = inner.trim();
      if (looksLikeToken(word) || SCHEME_CREDENTIAL.test(word)) return marker;
      return maxString !== undefined && inner.length > maxString
        ? `${inner.slice(0, maxString)}… (${inner.length} chars)`
        : inner;
    }
    if (inner === null || typeof inner !== 'object') return inner;
    if (depth > maxDepth) return '‹…›';
    if (Array.isArray(inner)) return inner.map((item) => mask(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(inner))
      out[key] = namesSecret(key) && item !== null && item !== undefined ? marker : mask(item, depth + 1);
    return out;
  };
  return mask(value, 0);
}
