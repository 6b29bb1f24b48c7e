/**
 * What `env [OPTION]… [-] [NAME=VALUE]… [COMMAND [ARG]…]` runs, read as GNU coreutils' env reads
 * its arguments (getopt with `+`: options end at the first operand), so that `env -i`, `env -u
 * NAME`, `env -C DIR` and `env -S "…"` around a command do not hide it.
 */

/** What an `env` command line does before it runs its command. */
export interface EnvCommand {
  /** The command and its arguments. */
  readonly command: readonly string[];
  /** `-i`, `--ignore-environment` or a lone `-`: the command starts with no inherited variables. */
  readonly cleared: boolean;
  /** `-u NAME`, `--unset=NAME`. */
  readonly unset: readonly string[];
  /** `NAME=VALUE` operands. */
  readonly set: Readonly<Record<string, string>>;
  /** `-C DIR`, `--chdir=DIR`: where the command starts (relative to where env started). */
  readonly chdir?: string;
}

/** Long options, with whether each takes a value (`required`) or only in the `=` form (`optional`). */
const LONG_OPTIONS: Record<string, 'none' | 'required' | 'optional' | 'exits'> = {
  'ignore-environment': 'none',
  null: 'none',
  unset: 'required',
  chdir: 'required',
  'split-string': 'required',
  argv0: 'required',
  debug: 'none',
  'block-signal': 'optional',
  'default-signal': 'optional',
  'ignore-signal': 'optional',
  'list-signal-handling': 'none',
  help: 'exits',
  version: 'exits',
};
const LONG_TO_SHORT: Record<string, string> = {
  'ignore-environment': 'i',
  unset: 'u',
  chdir: 'C',
  'split-string': 'S',
};
/** Short options and whether each takes a value. */
const SHORT_OPTIONS: Record<string, boolean> = {
  i: false,
  '0': false,
  v: false,
  u: true,
  C: true,
  S: true,
  a: true,
};

/**
 * The command `env` would run with `args` (the words after `env`), and what it changes first;
 * `undefined` when it runs none (no command, `--help`, an option env refuses).
 *
 * @example parseEnvCommand(['-i', 'PATH=/bin', '-C', '/srv', 'mcpx']) // undefined: options end at PATH=/bin
 * @example parseEnvCommand(['-iC', '/srv', '-S', 'mcpx serve', '--config', 'x.json'])
 * // { command: ['mcpx', 'serve', '--config', 'x.json'], cleared: true, chdir: '/srv', … }
 */
export function parseEnvCommand(args: readonly string[]): EnvCommand | undefined {
  let words = [...args];
  let cleared = false;
  let chdir: string | undefined;
  const unset: string[] = [];
  const apply = (option: string, value: string | undefined): boolean => {
    if (option === 'i') cleared = true;
    else if (option === 'u') unset.push(value as string);
    else if (option === 'C') chdir = value;
    return true;
  };
  let i = 0;
  while (i < words.length) {
    const word = words[i] as string;
    if (word === '--') {
      i++;
      break;
    }
    if (!word.startsWith('-') || word === '-') break;
    if (word.startsWith('--')) {
      const equals = word.indexOf('=');
      const given = equals < 0 ? word.slice(2) : word.slice(2, equals);
      const name = longOption(given);
      if (name === undefined) return undefined;
      const kind = LONG_OPTIONS[name];
      if (kind === 'exits' || (kind === 'none' && equals >= 0)) return undefined;
      let value = equals < 0 ? undefined : word.slice(equals + 1);
      i++;
      if (kind === 'required' && value === undefined) {
        value = words[i++];
        if (value === undefined) return undefined;
      }
      if (name === 'split-string') {
        words = [...splitEnvString(value as string), ...words.slice(i)];
        i = 0;
        continue;
      }
      apply(LONG_TO_SHORT[name] ?? '', value);
      continue;
    }
    // A cluster of short options: `-iv`, `-iu NAME`, `-uNAME`, `-S'mcpx serve'`.
    let resumeAt: number | undefined;
    for (let at = 1; at < word.length; at++) {
      const option = word[at] as string;
      const takesValue = Object.hasOwn(SHORT_OPTIONS, option) ? SHORT_OPTIONS[option] : undefined;
      if (takesValue === undefined) return undefined;
      if (!takesValue) {
        apply(option, undefined);
        continue;
      }
      let value = word.slice(at + 1);
      let next = i + 1;
      if (value === '') {
        value = words[next++] as string;
        if (value === undefined) return undefined;
      }
      if (option === 'S') {
        words = [...splitEnvString(value), ...words.slice(next)];
        resumeAt = 0;
      } else {
        apply(option, value);
        resumeAt = next;
      }
      break;
    }
    i = resumeAt ?? i + 1;
  }
  if (words[i] === '-') {
    cleared = true;
    i++;
  }
  const set: Record<string, string> = {};
  for (; i < words.length && (words[i] as string).includes('='); i++) {
    const word = words[i] as string;
    set[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
  }
  const command = words.slice(i);
  if (command.length === 0) return undefined;
  return { command, cleared, unset, set, ...(chdir === undefined ? {} : { chdir }) };
}

/** getopt_long's rule: an exact name, or a prefix of exactly one. */
function longOption(given: string): string | undefined {
  if (Object.hasOwn(LONG_OPTIONS, given)) return given;
  const matches = Object.keys(LONG_OPTIONS).filter((name) => name.startsWith(given));
  return matches.length === 1 ? matches[0] : undefined;
}

const ENV_ESCAPES: Record<string, string> = {
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '#': '#',
  $: '$',
  ' ': ' ',
};

/**
 * `env -S STRING` split as env splits it: blanks separate, `'…'` and `"…"` quote, backslash
 * escapes (`\_` is a blank outside quotes and a space inside double quotes, `\c` ends the
 * string), `#` at a word's start comments out the rest. `${VAR}` stays as written.
 */
export function splitEnvString(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  const end = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else if (ch === '\\' && (text[i + 1] === "'" || text[i + 1] === '\\')) word += text[++i];
      else word += ch;
      continue;
    }
    if (ch === '\\') {
      const next = text[++i] ?? '';
      if (next === 'c') break;
      if (next === '_') {
        if (quote) word += ' ';
        else end();
        continue;
      }
      word += ENV_ESCAPES[next] ?? next;
      inWord = true;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      end();
    } else if (ch === '#' && !inWord) {
      break;
    } else {
      word += ch;
      inWord = true;
    }
  }
  end();
  return words;
}
