/**
 * The simple commands a POSIX shell would run for a command string (`sh -c "…"`), read without
 * running anything, so that `runs-mcpx.ts` can look at each. Enough of the shell's grammar to see
 * every command a line starts: quotes and backslashes, `;` `&` `&&` `||` `|` newlines and
 * parentheses between commands, redirections (left out of the words), comments, the positional
 * parameters (`"$@"`, `$1`: the arguments after `sh -c STRING`), and the commands inside `$(…)`
 * and backticks. Other expansions (`$VAR`, globs, `~`) stay as written.
 */

/** What {@link shellCommands} returns: each simple command's words, in the order they appear. */
export type SimpleCommands = string[][];

/**
 * The simple commands in `line`, or `[]` when the shell would refuse it (an unterminated quote or
 * substitution: a syntax error runs nothing). `params` are `$0`, `$1`, … (the words after the
 * string in `sh -c STRING $0 $1 …`).
 *
 * @example shellCommands(`cd /x && FOO=1 exec "$0" serve 2>/dev/null`, ['mcpx'])
 * // [['cd', '/x'], ['FOO=1', 'exec', 'mcpx', 'serve']]
 */
export function shellCommands(line: string, params: readonly string[] = []): SimpleCommands {
  try {
    return new Reader(line, params).read();
  } catch (error) {
    if (error instanceof Unterminated) return [];
    throw error;
  }
}

class Unterminated extends Error {}

const OPERATOR = new Set([';', '&', '|', '(', ')', '\n']);
const BLANK = new Set([' ', '\t', '\r']);

class Reader {
  readonly #line: string;
  readonly #params: readonly string[];
  /** Commands found inside substitutions, returned after the line's own. */
  readonly #nested: SimpleCommands = [];
  readonly #commands: SimpleCommands = [];
  #words: string[] = [];
  #word = '';
  /** Whether anything (even `""`) was seen for the current word. */
  #inWord = false;
  /** The next word is a redirection's target, not an argument. */
  #redirect = false;
  #at = 0;

  constructor(line: string, params: readonly string[]) {
    this.#line = line;
    this.#params = params;
  }

  read(): SimpleCommands {
    const line = this.#line;
    while (this.#at < line.length) {
      const ch = line[this.#at] as string;
      if (BLANK.has(ch)) {
        this.#endWord();
        this.#at++;
      } else if (OPERATOR.has(ch)) {
        this.#endCommand();
        this.#at++;
      } else if (ch === '<' || ch === '>') {
        this.#redirection();
      } else if (ch === '#' && !this.#inWord) {
        const end = line.indexOf('\n', this.#at);
        this.#at = end < 0 ? line.length : end;
      } else if (ch === "'") {
        const end = line.indexOf("'", this.#at + 1);
        if (end < 0) throw new Unterminated();
        this.#word += line.slice(this.#at + 1, end);
        this.#inWord = true;
        this.#at = end + 1;
      } else if (ch === '"') {
        this.#doubleQuoted();
      } else if (ch === '\\') {
        // A backslash before a newline continues the line; before anything else, takes it as is.
        if (line[this.#at + 1] !== '\n') {
          this.#word += line[this.#at + 1] ?? '';
          this.#inWord = true;
        }
        this.#at += 2;
      } else if (ch === '$' || ch === '`') {
        this.#expansion(false);
      } else {
        this.#word += ch;
        this.#inWord = true;
        this.#at++;
      }
    }
    this.#endCommand();
    return [...this.#commands, ...this.#nested];
  }

  #endWord(): void {
    if (this.#inWord) {
      if (this.#redirect) this.#redirect = false;
      else this.#words.push(this.#word);
    }
    this.#word = '';
    this.#inWord = false;
  }

  #endCommand(): void {
    this.#endWord();
    this.#redirect = false;
    if (this.#words.length) this.#commands.push(this.#words);
    this.#words = [];
  }

  /** `>file`, `2>&1`, `>>log`, `<in`, `<<EOF`: the operator and its target are not words. */
  #redirection(): void {
    // A word of digits right before the operator is the descriptor it redirects (`2>`).
    if (/^\d+$/.test(this.#word)) {
      this.#word = '';
      this.#inWord = false;
    } else {
      this.#endWord();
    }
    const line = this.#line;
    if (line[this.#at + 1] === '(') {
      // `<(cmd)`, `>(cmd)`: a process substitution runs cmd.
      this.#expansion(false);
      return;
    }
    while (this.#at < line.length && '<>&|-'.includes(line[this.#at] as string)) this.#at++;
    this.#redirect = true;
  }

  #doubleQuoted(): void {
    const line = this.#line;
    this.#inWord = true;
    this.#at++;
    while (this.#at < line.length && line[this.#at] !== '"') {
      const ch = line[this.#at] as string;
      if (ch === '\\' && '"\\$`\n'.includes(line[this.#at + 1] ?? '')) {
        if (line[this.#at + 1] !== '\n') this.#word += line[this.#at + 1];
        this.#at += 2;
      } else if (ch === '$' || ch === '`') {
        this.#expansion(true);
      } else {
        this.#word += ch;
        this.#at++;
      }
    }
    if (this.#at >= line.length) throw new Unterminated();
    this.#at++;
  }

  /** `$(…)`, `` `…` ``, `<(…)`, `$@`, `$1`, `${2}`; any other `$…` stays as written. */
  #expansion(quoted: boolean): void {
    const line = this.#line;
    const rest = line.slice(this.#at);
    if (rest.startsWith('`') || /^[$<>]\(/.test(rest)) {
      const open = rest.startsWith('`') ? 1 : 2;
      const end = rest.startsWith('`')
        ? closingBacktick(line, this.#at + 1)
        : closingParen(line, this.#at + 2);
      const inner = line.slice(this.#at + open, end);
      this.#nested.push(...new Reader(inner, this.#params).read());
      // What the substitution prints is unknown: the word keeps it as written.
      this.#word += line.slice(this.#at, end + 1);
      this.#inWord = true;
      this.#at = end + 1;
      return;
    }
    const param = /^\$(?:([@*0-9])|\{([@*]|\d+)\})/.exec(rest);
    if (!param) {
      this.#word += '$';
      this.#inWord = true;
      this.#at++;
      return;
    }
    this.#at += param[0].length;
    const name = (param[1] ?? param[2]) as string;
    const given = name === '@' || name === '*' ? this.#params.slice(1) : [this.#params[Number(name)] ?? ''];
    this.#inWord ||= quoted && name !== '@' && name !== '*';
    // `"$@"` is one word per parameter (none when there are none); unquoted, each is split at blanks.
    const values = quoted ? given : given.flatMap((value) => value.split(/[ \t\n]+/).filter(Boolean));
    values.forEach((value, i) => {
      if (i > 0) this.#endWord();
      this.#word += value;
      this.#inWord = true;
    });
  }
}

/** The index of the `)` that closes a `$(` whose contents start at `from`. */
function closingParen(line: string, from: number): number {
  let depth = 1;
  for (let i = from; i < line.length; i++) {
    const ch = line[i];
    if (ch === '\\') i++;
    else if (ch === "'") {
      i = line.indexOf("'", i + 1);
      if (i < 0) break;
    } else if (ch === '"') {
      for (i++; i < line.length && line[i] !== '"'; i++) if (line[i] === '\\') i++;
    } else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  throw new Unterminated();
}

/** The index of the backtick that closes one whose contents start at `from`. */
function closingBacktick(line: string, from: number): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '`') return i;
  }
  throw new Unterminated();
}
