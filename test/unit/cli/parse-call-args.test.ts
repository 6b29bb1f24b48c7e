import { describe, expect, it } from 'vitest';
import { parseToolArguments, splitTarget } from '../../../src/cli/parse-call-args.js';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';

describe('parseToolArguments', () => {
  it('parses key=value with JSON values where they parse', () => {
    expect(
      parseToolArguments(['message=hi there', 'n=3', 'flag=true', 'tags=["a","b"]', 'id="007"', 'eq=a=b']),
    ).toEqual({
      message: 'hi there',
      n: 3,
      flag: true,
      tags: ['a', 'b'],
      id: '007',
      eq: 'a=b',
    });
  });

  it('accepts one JSON object', () => {
    expect(parseToolArguments(['{"a": 1, "b": {"c": null}}'])).toEqual({ a: 1, b: { c: null } });
  });

  it('returns {} for no arguments', () => {
    expect(parseToolArguments([])).toEqual({});
  });

  it.each([
    [['{"a": 1'], /not valid JSON/],
    [['novalue'], /'novalue' is not a key=value pair/],
    [['=x'], /not a key=value pair/],
    [['a=1', 'a=2'], /given twice/],
  ])('rejects %j with a usage error', (raw, message) => {
    try {
      parseToolArguments(raw);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(McpxError);
      expect((error as McpxError).code).toBe(ErrorCode.Usage);
      expect((error as McpxError).message).toMatch(message);
    }
  });

  it('rejects a JSON array as arguments', () => {
    expect(() => parseToolArguments(['[1,2]'])).toThrow(/'\[1,2\]' is not a key=value pair/);
  });
});

describe('splitTarget', () => {
  it('splits at the first dot so tool names may contain dots', () => {
    expect(splitTarget('fs.read.file')).toEqual({ server: 'fs', name: 'read.file' });
    expect(splitTarget('echo')).toBeUndefined();
    expect(splitTarget('.echo')).toBeUndefined();
    expect(splitTarget('demo.')).toBeUndefined();
  });
});
