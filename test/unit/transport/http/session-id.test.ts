import { describe, expect, it } from 'vitest';
import { ErrorCode, McpxError } from '../../../../src/errors/index.js';
import { assertValidSessionId, isValidSessionId } from '../../../../src/transport/http/index.js';

describe('session ids', () => {
  it.each(['a', '1868a90c-0d8b-4a2c-9f42-7c2c2f3f6d0e', '!~', 'x'.repeat(256), 'abc+/=_-.'])(
    'accepts %j',
    (id) => {
      expect(isValidSessionId(id)).toBe(true);
    },
  );

  it.each(['', 'has space', 'tab\there', 'new\nline', 'é', 'x'.repeat(257), '\u007f', 'nul\u0000'])(
    'refuses %j',
    (id) => {
      expect(isValidSessionId(id)).toBe(false);
    },
  );

  it('says what is wrong', () => {
    try {
      assertValidSessionId('x'.repeat(300), 'http://h/mcp');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(McpxError);
      expect((error as McpxError).code).toBe(ErrorCode.InvalidSessionId);
      expect((error as McpxError).message).toContain('300 characters');
    }
  });
});
