// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are what this module writes
import { looksLikeToken, namesSecret } from '../../text/index.js';
import type { McpxEntry } from './types.js';

const SCHEME = /^(Bearer|Basic|Token)\s+(.+)$/i;
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One value an import found in a place secrets sit, named without its value. */
export interface ImportedSecret {
  readonly server: string;
  /** Where in the entry: `env OPENAI_KEY`, `header Authorization`, `args --api-key`, `url query key`. */
  readonly where: string;
  /** The variable the entry now references (unset when the value was copied). */
  readonly variable: string;
  /** The client app file (and line) the value was read from. */
  readonly source: string;
  /** `--copy-values`: written in clear as the client app had it. */
  readonly copied: boolean;
}

export interface ProtectOptions {
  /** `--copy-values`: keep the values, only name them. */
  readonly copyValues?: boolean;
  /**
   * Variables already chosen in this import, and the value each stands for:
   * a second server whose `API_KEY` differs gets a variable of its own.
   */
  readonly chosen: Map<string, string>;
}

export interface ProtectedEntry {
  /** What is written: references, or the values with `copyValues`. */
  readonly entry: McpxEntry;
  /** Always with references: what a preview may show. */
  readonly shown: McpxEntry;
  readonly secrets: readonly ImportedSecret[];
}

export function variableName(...parts: string[]): string {
  return parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(\d)/, '_$1');
}

/** A value written in clear (not empty, not already a `${…}` reference). */
function literal(value: string): boolean {
  return value !== '' && !value.includes('${');
}

/**
 * The entry with every value in a place credentials sit replaced by a
 * `${VAR}` reference, and each named: every `env` and header value (a client app's
 * file says nothing about which are secret, and `OPENAI_KEY=abc` has no shape
 * to recognise), credential flags in `args` (`--api-key=…`, `--token …`,
 * well-known token shapes) and URLs (`https://user:pass@…`, `?key=…`). An
 * import copies configuration, never credentials, unless asked to
 * (`copyValues`): then the values stay and are still named.
 */
export function protectSecrets(
  server: string,
  entry: McpxEntry,
  source: string,
  options: ProtectOptions,
): ProtectedEntry {
  const secrets: ImportedSecret[] = [];
  /** The first of `names` free for `value` (or already standing for it), else the last one numbered. */
  const choose = (names: readonly string[], value: string): string => {
    const free = (name: string) => {
      const held = options.chosen.get(name);
      return held === undefined || held === value;
    };
    let name = names.find(free);
    const last = names.at(-1) as string;
    for (let n = 2; name === undefined; n++) if (free(`${last}_${n}`)) name = `${last}_${n}`;
    options.chosen.set(name, value);
    return name;
  };
  /** The reference for one found value, recorded; `names` in order of preference. */
  const mask = (where: string, value: string, ...names: string[]): string => {
    const variable = choose(names, value);
    secrets.push({ server, where, variable, source, copied: options.copyValues === true });
    return `\${${variable}}`;
  };

  const shown: Record<string, unknown> = { ...entry };
  const env = entry.env as Record<string, string> | undefined;
  if (env) {
    const safe: Record<string, string> = {};
    for (const [key, value] of Object.entries(env)) {
      safe[key] = literal(value)
        ? mask(`env ${key}`, value, IDENTIFIER.test(key) ? key : variableName(key), variableName(server, key))
        : value;
    }
    shown.env = safe;
  }
  const headers = entry.headers as Record<string, string> | undefined;
  if (headers) {
    const safe: Record<string, string> = {};
    for (const [key, value] of Object.entries(headers)) {
      const scheme = SCHEME.exec(value);
      const secret = scheme ? (scheme[2] as string) : value;
      if (!literal(secret)) safe[key] = value;
      else {
        const reference = mask(`header ${key}`, secret, variableName(server, key));
        safe[key] = scheme ? `${scheme[1]} ${reference}` : reference;
      }
    }
    shown.headers = safe;
  }
  const args = entry.args as string[] | undefined;
  if (args) shown.args = protectArgs(args, (where, value, name) => mask(where, value, name), server);
  if (typeof entry.url === 'string')
    shown.url = protectUrls(entry.url, (where, value, name) => mask(`url ${where}`, value, name), server);
  return { entry: options.copyValues ? entry : shown, shown, secrets };
}

type Mask = (where: string, value: string, variable: string) => string;

function protectArgs(args: readonly string[], mask: Mask, server: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const flag = /^(--?)([A-Za-z][\w.-]*)(?:=([\s\S]*))?$/.exec(arg);
    if (flag && namesSecret(flag[2] as string)) {
      const name = flag[2] as string;
      const value = flag[3];
      if (value !== undefined) {
        out.push(
          literal(value)
            ? `${flag[1]}${name}=${mask(`args ${flag[1]}${name}`, value, variableName(server, name))}`
            : arg,
        );
        continue;
      }
      const next = args[i + 1];
      out.push(arg);
      if (next !== undefined && !next.startsWith('-') && literal(next)) {
        out.push(mask(`args ${arg}`, next, variableName(server, name)));
        i++;
      }
      continue;
    }
    if (looksLikeToken(arg)) {
      out.push(mask(`args[${i}]`, arg, variableName(server, 'token')));
      continue;
    }
    out.push(protectUrls(arg, (where, value, name) => mask(`args[${i}] ${where}`, value, name), server));
  }
  return out;
}

/** Every URL in `text` with its password and credential query parameters replaced. */
function protectUrls(text: string, mask: Mask, server: string): string {
  return text.replace(URL_IN_TEXT, (url) => {
    let out = url.replace(
      /^([a-z][a-z0-9+.-]*:\/\/[^/@?#:]*):([^/@?#]+)@/i,
      (whole, head: string, password: string) =>
        literal(password)
          ? `${head}:${mask('password', password, variableName(server, 'password'))}@`
          : whole,
    );
    const query = out.indexOf('?');
    if (query === -1) return out;
    const hash = out.indexOf('#', query);
    const end = hash === -1 ? out.length : hash;
    const params = out
      .slice(query + 1, end)
      .split('&')
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at <= 0) return pair;
        const raw = pair.slice(0, at);
        const value = pair.slice(at + 1);
        let name = raw;
        try {
          name = decodeURIComponent(raw);
        } catch {}
        if (!namesSecret(name) || !literal(value)) return pair;
        return `${raw}=${mask(`query ${name}`, value, variableName(server, name))}`;
      });
    out = `${out.slice(0, query + 1)}${params.join('&')}${out.slice(end)}`;
    return out;
  });
}
