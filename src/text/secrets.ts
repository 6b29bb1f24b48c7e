/**
 * What looks like a credential, by its name or by its shape. An import of another host's file
 * turns such values into `${VAR}` references (`config/hosts/protect-secrets.ts`); the audit log
 * masks them in the arguments it records (`audit/call-arguments.ts`).
 */

// The last word of a name that names a credential: `--api-key`, `--token`, `?key=`, `clientSecret`.
// Only the last word: `--key-file` and `--token-env` name where a secret is, not the secret itself.
const SECRET_WORD =
  /^(?:key|apikey|token|secret|password|passwd|pass|pwd|pat|credentials?|auth|authorization|bearer|cookie|sig|signature|[a-z]*(?:apikey|accesskey|secretkey|privatekey|token|secret|password))$/;
// Well-known token shapes, for a value standing alone.
const TOKEN_SHAPE =
  /^(?:sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})$/;

/** Whether a flag, query parameter or argument name says it holds a credential (`apiKey`, `--token`). */
export function namesSecret(name: string): boolean {
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
