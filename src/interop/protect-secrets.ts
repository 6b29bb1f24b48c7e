import type { McpxEntry } from './types.js';

const SECRET_NAME = /token|secret|password|passwd|api[-_]?key|apikey|credential|auth|private[-_]?key/i;
const SCHEME = /^(Bearer|Basic|Token)\s+(.+)$/i;

function variableName(...parts: string[]): string {
  return parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(\d)/, '_$1');
}

/**
 * The entry with every secret-looking value written in clear (an env
 * variable or header whose name says token, key, password, auth…) replaced
 * by a `${VAR}` reference, and a note per value saying which variable to
 * set: an import copies configuration, never credentials.
 */
export function protectSecrets(
  server: string,
  entry: McpxEntry,
  source: string,
): { entry: McpxEntry; notes: string[] } {
  const notes: string[] = [];
  const out: Record<string, unknown> = { ...entry };
  const env = entry.env as Record<string, string> | undefined;
  if (env) {
    const safe: Record<string, string> = {};
    for (const [key, value] of Object.entries(env)) {
      if (SECRET_NAME.test(key) && value !== '' && !value.includes('${')) {
        const variable = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : variableName(key);
        safe[key] = `\${${variable}}`;
        notes.push(`${server}: env ${key} holds a secret in ${source}; not copied — set ${variable} to it`);
      } else safe[key] = value;
    }
    out.env = safe;
  }
  const headers = entry.headers as Record<string, string> | undefined;
  if (headers) {
    const safe: Record<string, string> = {};
    for (const [key, value] of Object.entries(headers)) {
      if (SECRET_NAME.test(key) && value !== '' && !value.includes('${')) {
        const variable = variableName(server, key);
        const scheme = SCHEME.exec(value);
        safe[key] = scheme ? `${scheme[1]} \${${variable}}` : `\${${variable}}`;
        notes.push(
          `${server}: header ${key} holds a secret in ${source}; not copied — set ${variable} to ${scheme ? `the ${scheme[1]} token` : 'it'}`,
        );
      } else safe[key] = value;
    }
    out.headers = safe;
  }
  return { entry: out, notes };
}
