import { type ParseError, parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import { splitCommandLine } from '../../config/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';

/** One line typed at the console, by the grammar of seeds 002 (`@server tool …`) and 003/004 (`/mcp …`). */
export type ShellLine =
  | { readonly kind: 'empty' }
  /** `/name arg …`: `/mcp tools demo` → name `mcp`, args `['tools', 'demo']`. */
  | { readonly kind: 'command'; readonly name: string; readonly args: readonly string[] }
  /** `@server`, `@server ?`, `@server tool ?`, `@server tool {json}`, `@server tool k=v …`. */
  | {
      readonly kind: 'at';
      readonly server: string;
      readonly tool?: string;
      /** `?` after the server or the tool. */
      readonly help: boolean;
      /** The raw text of a JSON object argument, and where it starts in the line. */
      readonly json?: { readonly text: string; readonly offset: number };
      /** `key=value` words, quotes removed. */
      readonly pairs: readonly string[];
    }
  /** Anything else: words for the chat model. */
  | { readonly kind: 'text'; readonly text: string };

/** Parse one console line; throws a usage `McpxError` for unbalanced quotes. */
export function parseLine(line: string): ShellLine {
  const text = line.trim();
  if (text === '') return { kind: 'empty' };
  if (text.startsWith('/')) {
    const [head = '', ...args] = tokenize(text);
    return { kind: 'command', name: head.slice(1), args };
  }
  if (!text.startsWith('@')) return { kind: 'text', text };
  const match = /^@(\S*)\s*(\S*)\s*/.exec(text);
  const server = match?.[1] ?? '';
  const second = match?.[2] ?? '';
  if (second === '?') return { kind: 'at', server, help: true, pairs: [] };
  const tool = second === '' ? undefined : second;
  const restOffset = line.indexOf(text) + (match?.[0].length ?? text.length);
  const rest = text.slice(match?.[0].length ?? text.length);
  if (rest.trim() === '?') return { kind: 'at', server, ...(tool ? { tool } : {}), help: true, pairs: [] };
  if (rest.startsWith('{')) {
    return {
      kind: 'at',
      server,
      ...(tool ? { tool } : {}),
      help: false,
      json: { text: rest, offset: restOffset },
      pairs: [],
    };
  }
  return { kind: 'at', server, ...(tool ? { tool } : {}), help: false, pairs: tokenize(rest) };
}

/**
 * Split into words the way a POSIX shell does (the same rules as a `--stdio`
 * command line): whitespace separates, `'…'` and `"…"` keep spaces, `\`
 * escapes one character, nothing is expanded.
 */
export const tokenize: (text: string) => string[] = splitCommandLine;

/**
 * A JSON object typed after a tool name. A syntax error says where: the
 * column in the line, with the line and a caret under the spot.
 */
export function parseJsonArguments(
  json: { text: string; offset: number },
  line: string,
): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.text);
  } catch (error) {
    // V8's message has no position on Node 20; the JSONC parser says where, in strict mode.
    const errors: ParseError[] = [];
    parseJsonc(json.text, errors, { disallowComments: true, allowTrailingComma: false });
    const first = errors[0];
    const index = first ? json.offset + first.offset : undefined;
    const where =
      index === undefined
        ? ''
        : ` at column ${index + 1}, near '${line.slice(Math.max(0, index - 12), index + 8)}'`;
    const reason = first ? describeJsonError(first) : (error as Error).message;
    throw new McpxError(ErrorCode.InvalidArguments, `the arguments are not valid JSON${where}: ${reason}`, {
      excerpt: [line, `${' '.repeat(index ?? line.length)}^`],
      fixes: ['write one JSON object, e.g. {"message": "hi"}, or key=value pairs'],
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new McpxError(ErrorCode.InvalidArguments, 'the JSON arguments must be an object', {
      fixes: ['e.g. {"message": "hi"}'],
    });
  }
  return parsed as Record<string, unknown>;
}

/** The JSONC parser's error names, as people read them. */
const JSON_ERRORS: Record<string, string> = {
  ValueExpected: 'a value is expected',
  PropertyNameExpected: 'a quoted property name is expected',
  CommaExpected: 'a comma is expected',
  ColonExpected: 'a colon is expected',
  CloseBraceExpected: "'}' is expected",
  CloseBracketExpected: "']' is expected",
  EndOfFileExpected: 'nothing may follow the object',
  UnexpectedEndOfString: 'a string is not closed',
  InvalidSymbol: 'this is not JSON',
};

function describeJsonError(error: ParseError): string {
  const name = printParseErrorCode(error.error);
  return JSON_ERRORS[name] ?? name;
}
