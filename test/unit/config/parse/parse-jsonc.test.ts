import { describe, expect, it } from 'vitest';
import { parseJsonc } from '../../../../src/config/index.js';
import { ErrorCode, type McpxError } from '../../../../src/errors/index.js';
import { loadError } from '../helpers.js';

function syntaxError(text: string): McpxError {
  try {
    parseJsonc(text, '/cfg/mcp.json');
  } catch (error) {
    return error as McpxError;
  }
  throw new Error('expected a syntax error');
}

describe('parseJsonc', () => {
  it('accepts comments and trailing commas', () => {
    const doc = parseJsonc('{\n  // servers\n  "a": [1, 2,], /* x */\n  "b": {"c": true,},\n}\n', '/f.json');
    expect(doc.value).toEqual({ a: [1, 2], b: { c: true } });
  });

  it('treats an empty file and a comments-only file as empty', () => {
    expect(parseJsonc('', '/f.json').value).toBeUndefined();
    expect(parseJsonc('  // nothing here\n/* yet */\n', '/f.json').value).toBeUndefined();
  });

  it('maps a JSON path to its line and column, for a value or its key', () => {
    const text = '{\n  "mcpServers": {\n    "fs": {\n      "args": ["a",\n               "b"]\n    }\n  }\n}';
    const doc = parseJsonc(text, '/f.json');
    expect(doc.locate(['mcpServers', 'fs', 'args', 1])).toEqual({ line: 5, column: 16 });
    expect(doc.locate(['mcpServers', 'fs'], 'key')).toEqual({ line: 3, column: 5 });
    expect(doc.locate(['mcpServers', 'nope'])).toBeUndefined();
  });

  it('reports a missing comma with file, exact line:column, words and a caret excerpt', () => {
    const error = syntaxError('{\n  "servers": [\n    { "name": "test" "command": ["echo"] }\n  ]\n}\n');
    expect(error.code).toBe(ErrorCode.ConfigInvalidJson);
    expect(error.message).toBe('/cfg/mcp.json:3:22: invalid JSON: expected a comma or closing brace');
    expect(error.context.origin).toEqual({ file: '/cfg/mcp.json', line: 3, column: 22 });
    const [line, caret] = error.context.excerpt ?? [];
    expect(line).toBe('3 |     { "name": "test" "command": ["echo"] }');
    expect(caret?.indexOf('^')).toBe(line?.indexOf('"command"'));
    expect(caret).toContain('^ expected a comma or closing brace');
  });

  it('words a missing comma in an array as "closing bracket"', () => {
    const error = syntaxError('{"args": ["a" "b"]}');
    expect(error.message).toBe('/cfg/mcp.json:1:15: invalid JSON: expected a comma or closing bracket');
  });

  it('says when the file ends too early', () => {
    const error = syntaxError('{\n  "mcpServers": {\n    "a": {"command": "x"}\n');
    expect(error.message).toContain("the file ends before the closing brace '}'");
    expect(error.context.origin?.line).toBe(4);
  });

  it('explains single quotes and raw backslashes', () => {
    expect(syntaxError("{'a': 1}").fixes[0]).toContain('double quotes');
    const backslash = syntaxError('{"cwd": "C:\\Users\\me"}');
    expect(backslash.message).toContain('invalid escape sequence');
    expect(backslash.fixes[0]).toContain('C:/Users');
  });

  it('keeps the caret aligned after tabs', () => {
    const error = syntaxError('{\n\t"a": 1\n\t"b": 2\n}');
    expect(error.context.origin).toMatchObject({ line: 3, column: 2 });
    expect(error.context.excerpt?.[1]).toBe('  | \t^ expected a comma or closing brace');
  });

  it('rejects a duplicate key, naming the key and both lines', () => {
    const text =
      '{\n  "mcpServers": {\n    "fs": {"command": "a"},\n    "db": {"command": "b"},\n    "fs": {"command": "c"}\n  }\n}';
    let error: McpxError | undefined;
    try {
      parseJsonc(text, '/cfg/mcp.json');
    } catch (e) {
      error = e as McpxError;
    }
    expect(error?.code).toBe(ErrorCode.ConfigInvalid);
    expect(error?.message).toBe(
      "/cfg/mcp.json:5:5: duplicate key 'fs' in mcpServers (first at line 3, again at line 5)",
    );
    expect(error?.context.field).toBe('mcpServers.fs');
  });

  it('keeps a "__proto__" key as data', () => {
    const doc = parseJsonc('{"mcpServers": {"__proto__": {"command": "x"}}}', '/f.json');
    const servers = (doc.value as { mcpServers: object }).mcpServers;
    expect(Object.keys(servers)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(servers)).toBe(Object.prototype);
  });

  it('adds the layer when a config file has a syntax error', async () => {
    const { error, file } = await loadError('{"mcpServers": {"a": {"command": "x",, }}}');
    expect(error.code).toBe(ErrorCode.ConfigInvalidJson);
    expect(
      error.message.startsWith(`${file}:1:38: invalid JSON: expected a property name in double quotes`),
    ).toBe(true);
    expect(error.context.origin).toEqual({ file, line: 1, column: 38, layer: 'explicit' });
  });
});
