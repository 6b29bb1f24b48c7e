import { describe, expect, it } from 'vitest';
import { parseJsonArguments, parseLine, tokenize } from '../../../../src/cli/shell/parse-line.js';
import { McpxError } from '../../../../src/errors/index.js';

describe('parseLine', () => {
  it('reads / commands with their words', () => {
    expect(parseLine('  /mcp connect demo --allow-all ')).toEqual({
      kind: 'command',
      name: 'mcp',
      args: ['connect', 'demo', '--allow-all'],
    });
    expect(parseLine('')).toEqual({ kind: 'empty' });
    expect(parseLine('what time is it?')).toEqual({ kind: 'text', text: 'what time is it?' });
  });

  it('reads the @ grammar: help after a server or a tool, key=value pairs, a JSON object', () => {
    expect(parseLine('@demo ?')).toEqual({ kind: 'at', server: 'demo', help: true, pairs: [] });
    expect(parseLine('@demo echo ?')).toEqual({
      kind: 'at',
      server: 'demo',
      tool: 'echo',
      help: true,
      pairs: [],
    });
    expect(parseLine(`@demo echo message="hello world" n=2`)).toEqual({
      kind: 'at',
      server: 'demo',
      tool: 'echo',
      help: false,
      pairs: ['message=hello world', 'n=2'],
    });
    const line = '@demo echo {"message": "x"}';
    expect(parseLine(line)).toEqual({
      kind: 'at',
      server: 'demo',
      tool: 'echo',
      help: false,
      json: { text: '{"message": "x"}', offset: 11 },
      pairs: [],
    });
    expect(parseLine('@demo')).toEqual({ kind: 'at', server: 'demo', help: false, pairs: [] });
  });
});

describe('tokenize', () => {
  it('keeps quoted spaces and escaped characters, and refuses an open quote', () => {
    expect(tokenize(`a='x y' b="say \\"hi\\"" c=d\\ e ''`)).toEqual(['a=x y', 'b=say "hi"', 'c=d e', '']);
    expect(() => tokenize(`message="open`)).toThrow(McpxError);
  });
});

describe('parseJsonArguments', () => {
  it('says at which column of the line the JSON breaks', () => {
    const line = '@demo add {"a": 1 "b": 2}';
    const json = { text: '{"a": 1 "b": 2}', offset: 10 };
    try {
      parseJsonArguments(json, line);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(McpxError);
      expect((error as McpxError).message).toBe(
        `the arguments are not valid JSON at column 19, near 'add {"a": 1 "b": 2}': a comma is expected`,
      );
    }
    expect(parseJsonArguments({ text: '{"a": 1}', offset: 0 }, '{"a": 1}')).toEqual({ a: 1 });
    expect(() => parseJsonArguments({ text: '[1]', offset: 0 }, '[1]')).toThrow('must be an object');
  });
});
