import { describe, expect, it } from 'vitest';
import { describeJsonError } from '../../../../src/cli/arguments/json-error.js';

describe('describeJsonError', () => {
  it.each([
    ['{"id": ', 'expected a value but found the end at position 7'],
    ['{"id": x}', "expected a value but found 'x' at position 7"],
    ["{'a': 1}", "expected a key in double quotes but found ''' at position 1"],
    ['{"a": 1,}', "expected a key in double quotes but found '}' at position 8"],
    ['[1 2]', "expected ',' or ']' but found '2' at position 3"],
    ['{"a": tru}', "expected 'true' but found '}' at position 9"],
    ['{"a": "b}', `expected a closing '"' but found the end at position 9`],
    ['{} x', "expected the end but found 'x' at position 3"],
    ['007', "expected the end but found '0' at position 1"],
  ])('%s → %s', (text, message) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(describeJsonError(text)).toBe(message);
  });
});
