import {
  findNodeAtLocation,
  type Node,
  type ParseErrorCode,
  parseTree,
  printParseErrorCode,
  stripComments,
  visit,
} from 'jsonc-parser';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { formatJsonPath, type JsonPath } from './json-path.js';
import { createLineIndex, type LineIndex, type SourcePosition, sourceExcerpt } from './source-excerpt.js';

/** A config file parsed as JSONC, with a way back from a value to its line. */
export interface ParsedDocument {
  readonly file: string;
  /** The parsed value; `undefined` for an empty file (or one holding only comments). */
  readonly value: unknown;
  /**
   * Where the value at `path` starts (1-based), or its property key with
   * `target: 'key'`. `undefined` when the path does not exist.
   */
  locate(path: JsonPath, target?: 'key' | 'value'): SourcePosition | undefined;
  /** The line at `position` with a caret under the column, for error excerpts. */
  excerpt(position: SourcePosition, note?: string): string[];
}

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false };

/**
 * Parse JSON with comments and trailing commas (the dialect VS Code and most
 * MCP client apps write). Syntax errors become `ConfigInvalidJson` naming the file,
 * line and column with the offending line as an excerpt; a key given twice in
 * one object becomes `ConfigInvalid` naming both lines, because JSON parsers
 * silently keep the last one and the user then edits the wrong entry.
 *
 * @example
 * const doc = parseJsonc('{"mcpServers": {}, // note\n}', '/p/.mcp.json');
 * doc.locate(['mcpServers']); // { line: 1, column: 16 }
 */
export function parseJsonc(source: string, file: string): ParsedDocument {
  // A BOM (Notepad) is not JSON; blank it instead of slicing so offsets stay put.
  const text = source.charCodeAt(0) === 0xfeff ? ` ${source.slice(1)}` : source;
  const index = createLineIndex(text);
  const excerpt = (position: SourcePosition, note?: string) => sourceExcerpt(index, position, note);

  if (stripComments(text).trim() === '') {
    return { file, value: undefined, locate: () => undefined, excerpt };
  }
  const syntax = firstSyntaxError(text);
  if (syntax) throw syntaxError(file, text, index, syntax);

  const root = parseTree(text, [], PARSE_OPTIONS);
  if (!root) return { file, value: undefined, locate: () => undefined, excerpt };
  const value = toValue(root, [], file, index);
  return {
    file,
    value,
    excerpt,
    locate(path, target = 'value') {
      const node = path.length === 0 ? root : findNodeAtLocation(root, [...path]);
      if (!node) return undefined;
      const key = node.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
      return index.position(target === 'key' && key ? key.offset : node.offset);
    },
  };
}

interface SyntaxProblem {
  readonly code: ParseErrorCode;
  readonly offset: number;
  readonly length: number;
  /** The innermost open container when the error happened, to word "comma expected" precisely. */
  readonly container: 'object' | 'array' | undefined;
}

function firstSyntaxError(text: string): SyntaxProblem | undefined {
  const stack: Array<'object' | 'array'> = [];
  let first: SyntaxProblem | undefined;
  visit(
    text,
    {
      onObjectBegin: () => {
        stack.push('object');
      },
      onObjectEnd: () => {
        stack.pop();
      },
      onArrayBegin: () => {
        stack.push('array');
      },
      onArrayEnd: () => {
        stack.pop();
      },
      onError: (code, offset, length) => {
        // Later errors are almost always knock-on effects of the first.
        first ??= { code, offset, length, container: stack.at(-1) };
      },
    },
    PARSE_OPTIONS,
  );
  return first;
}

function describeSyntax(problem: SyntaxProblem, text: string): { what: string; fix?: string } {
  const atEnd = problem.offset >= text.trimEnd().length;
  const found = text.slice(problem.offset, problem.offset + Math.max(1, Math.min(problem.length, 20)));
  // ParseErrorCode is an ambient const enum (unusable under verbatimModuleSyntax); switch on its names.
  switch (printParseErrorCode(problem.code)) {
    case 'CommaExpected':
      return problem.container === 'array'
        ? { what: 'expected a comma or closing bracket', fix: "add a ',' between the array items" }
        : { what: 'expected a comma or closing brace', fix: "add a ',' after the previous property" };
    case 'CloseBraceExpected':
      return atEnd
        ? { what: "the file ends before the closing brace '}'", fix: "add the missing '}'" }
        : { what: "expected a closing brace '}'" };
    case 'CloseBracketExpected':
      return atEnd
        ? { what: "the file ends before the closing bracket ']'", fix: "add the missing ']'" }
        : { what: "expected a closing bracket ']'" };
    case 'ColonExpected':
      return { what: "expected a colon ':' after the property name" };
    case 'PropertyNameExpected':
      return { what: 'expected a property name in double quotes', fix: 'quote property names: "command"' };
    case 'ValueExpected':
      return { what: atEnd ? 'the file ends where a value was expected' : 'expected a value' };
    case 'InvalidSymbol':
      if (found.startsWith("'")) {
        return { what: 'single quotes are not JSON', fix: 'use double quotes for strings and keys' };
      }
      return { what: `unexpected '${found}'`, fix: 'quote strings and property names with double quotes' };
    case 'UnexpectedEndOfString':
      return { what: 'unterminated string (a string must end on the line it starts)' };
    case 'InvalidEscapeCharacter':
      return {
        what: 'invalid escape sequence in a string',
        fix: 'write a backslash as \\\\ (Windows paths: "C:\\\\Users" or "C:/Users")',
      };
    case 'InvalidCharacter':
      return {
        what: 'control character inside a string',
        fix: 'write \\n or \\t instead of a raw line break or tab',
      };
    case 'InvalidUnicode':
      return { what: 'invalid \\u escape (expected four hex digits)' };
    case 'InvalidNumberFormat':
    case 'UnexpectedEndOfNumber':
      return { what: 'invalid number' };
    case 'UnexpectedEndOfComment':
      return { what: "unterminated block comment (missing '*/')" };
    case 'InvalidCommentToken':
      return { what: 'invalid comment' };
    case 'EndOfFileExpected':
      return { what: 'unexpected text after the end of the top-level object' };
    default:
      return { what: 'invalid JSON' };
  }
}

function syntaxError(file: string, text: string, index: LineIndex, problem: SyntaxProblem): McpxError {
  const position = index.position(problem.offset);
  const { what, fix } = describeSyntax(problem, text);
  return new McpxError(
    ErrorCode.ConfigInvalidJson,
    `${file}:${position.line}:${position.column}: invalid JSON: ${what}`,
    {
      origin: { file, line: position.line, column: position.column },
      excerpt: sourceExcerpt(index, position, what),
      causes: [
        'a missing comma between properties or array items',
        'single quotes or unquoted property names',
        'a missing closing brace or bracket',
      ],
      fixes: [
        fix ?? `fix the JSON at line ${position.line}, column ${position.column}`,
        'comments and trailing commas are allowed',
      ],
    },
  );
}

/**
 * The tree as plain values. Objects are built with `Object.fromEntries`, which
 * defines keys as own properties, so a key such as `__proto__` stays data.
 */
function toValue(node: Node, path: JsonPath, file: string, index: LineIndex): unknown {
  switch (node.type) {
    case 'object': {
      const seen = new Map<string, Node>();
      const entries: Array<[string, unknown]> = [];
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (!keyNode) continue;
        const key = String(keyNode.value);
        const earlier = seen.get(key);
        if (earlier) throw duplicateKey(file, index, [...path, key], earlier, keyNode);
        seen.set(key, keyNode);
        entries.push([key, valueNode ? toValue(valueNode, [...path, key], file, index) : undefined]);
      }
      return Object.fromEntries(entries);
    }
    case 'array':
      return (node.children ?? []).map((child, i) => toValue(child, [...path, i], file, index));
    default:
      return node.value;
  }
}

function duplicateKey(file: string, index: LineIndex, path: JsonPath, first: Node, again: Node): McpxError {
  const a = index.position(first.offset);
  const b = index.position(again.offset);
  const key = String(path.at(-1));
  const parent = path.length > 1 ? ` in ${formatJsonPath(path.slice(0, -1))}` : '';
  return new McpxError(
    ErrorCode.ConfigInvalid,
    `${file}:${b.line}:${b.column}: duplicate key '${key}'${parent} (first at line ${a.line}, again at line ${b.line})`,
    {
      origin: { file, line: b.line, column: b.column },
      field: formatJsonPath(path),
      excerpt: [...sourceExcerpt(index, a, 'first here'), ...sourceExcerpt(index, b, 'and again here')],
      causes: ['JSON keeps only the last of two equal keys, so one of the entries would be silently ignored'],
      fixes: [`remove one of the two '${key}' entries or rename one of them`],
    },
  );
}
