import { inputVariable } from './input-variable.js';

/** Environment as given to the loader; `undefined` means unset. */
export type EnvLookup = Readonly<Record<string, string | undefined>>;

export type InterpolationResult =
  | { readonly ok: true; readonly value: string }
  | {
      readonly ok: false;
      /** `missing`: unset without a default; `invalid`: not `${NAME}` / `${NAME:-default}`; `unterminated`: no closing brace. */
      readonly reason: 'missing' | 'invalid' | 'unterminated';
      /** The variable name (missing) or the placeholder text (invalid, unterminated). */
      readonly variable: string;
      /** Every variable this value needs that is unset, for a message that lists them all. */
      readonly missing: readonly string[];
    };

// `${env:NAME}` is VS Code's spelling of the same thing.
const PLACEHOLDER = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;
// VS Code's `${input:id}`: answered at the terminal or by the variable `inputVariable(id)`.
const INPUT = /^input:([^}]+)$/;

/** The variable a placeholder's inner text names, and its default; `undefined` when it is not a placeholder. */
function placeholder(inner: string): { name: string; fallback?: string } | undefined {
  const input = INPUT.exec(inner);
  if (input?.[1]) return { name: inputVariable(input[1]) };
  const match = PLACEHOLDER.exec(inner);
  if (!match) return undefined;
  return { name: match[1] as string, ...(match[2] === undefined ? {} : { fallback: match[2] }) };
}

/**
 * Replace `${NAME}`, `${NAME:-default}`, `${env:NAME}` and `${input:id}`
 * (the variable `MCPX_INPUT_<ID>`, see `inputVariable`) in one string. The default is used
 * when NAME is unset or empty (the shell's `:-`). `$$` is a literal `$`.
 *
 * Deliberately small: inserted values are not scanned again (a variable
 * holding `${X}` is inserted as written), nothing is executed (`$(cmd)` and
 * backticks stay literal), and a lone `$NAME` without braces is left alone —
 * configs routinely hold such text meant for the server itself.
 *
 * @example interpolate('Bearer ${TOKEN}', { TOKEN: 'abc' }) // { ok: true, value: 'Bearer abc' }
 */
export function interpolate(template: string, env: EnvLookup): InterpolationResult {
  let out = '';
  let firstFailure: { reason: 'missing' | 'invalid' | 'unterminated'; variable: string } | undefined;
  const missing: string[] = [];
  for (let i = 0; i < template.length; i++) {
    const ch = template[i];
    if (ch !== '$') {
      out += ch;
      continue;
    }
    const next = template[i + 1];
    if (next === '$') {
      out += '$';
      i++;
      continue;
    }
    if (next !== '{') {
      out += ch;
      continue;
    }
    const close = template.indexOf('}', i + 2);
    if (close === -1) {
      firstFailure ??= { reason: 'unterminated', variable: template.slice(i) };
      break;
    }
    const inner = template.slice(i + 2, close);
    const match = placeholder(inner);
    i = close;
    if (!match) {
      firstFailure ??= { reason: 'invalid', variable: `\${${inner}}` };
      continue;
    }
    const { name, fallback } = match;
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (fallback !== undefined) out += value === undefined || value === '' ? fallback : value;
    else if (value !== undefined) out += value;
    else {
      firstFailure ??= { reason: 'missing', variable: name };
      if (!missing.includes(name)) missing.push(name);
    }
  }
  return firstFailure ? { ok: false, ...firstFailure, missing } : { ok: true, value: out };
}

/**
 * The names of the variables `template` uses (`${NAME}`, `${NAME:-default}`,
 * `${env:NAME}`), in order of first use; `$${…}` is literal text, not a use.
 */
export function variablesIn(template: string): string[] {
  const names: string[] = [];
  for (const match of template.replace(/\$\$/g, '').matchAll(/\$\{([^}]*)\}/g)) {
    const name = placeholder(match[1] ?? '')?.name;
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}
