import { ErrorCode, McpxError } from '../../errors/index.js';

/**
 * Split a command line into words the way a POSIX shell would, without
 * running or expanding anything: whitespace separates words, `'…'` is
 * literal, `"…"` is literal except for `\"`, `\\`, `\$` and `` \` ``, and a
 * backslash outside quotes escapes the next character (`my\ file`). `$VAR`,
 * `$(…)`, backticks, globs and `~` stay as written.
 *
 * @example splitCommandLine(`node "my server.js" --name 'a b' x\\ y`)
 * // ['node', 'my server.js', '--name', 'a b', 'x y']
 * @throws McpxError(Usage) on an unterminated quote.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  // A word exists once anything was seen for it, so `""` yields an empty argument.
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string))
        word += line[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) {
    throw new McpxError(
      ErrorCode.Usage,
      `unterminated ${quote === '"' ? 'double' : 'single'} quote in command line: ${line}`,
      {
        fixes: [`close the ${quote} quote, or escape it with a backslash`],
      },
    );
  }
  if (inWord) words.push(word);
  return words;
}
