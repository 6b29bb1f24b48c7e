import { describe, expect, it } from 'vitest';
import { MASKED, maskArguments } from '../../../src/audit/index.js';

describe('maskArguments', () => {
  it('masks values under secret-looking keys at any depth, and token-shaped values under any key', () => {
    expect(
      maskArguments({
        path: '/etc/hosts',
        apiKey: 'abc',
        headers: { Authorization: 'Bearer x', accept: 'json' },
        list: ['ghp_0123456789abcdefghijABCD', 'plain'],
        note: 'sk_live_0123456789abcdef',
        token_file: '/run/secret',
      }),
    ).toEqual({
      path: '/etc/hosts',
      apiKey: MASKED,
      headers: { Authorization: MASKED, accept: 'json' },
      list: [MASKED, 'plain'],
      note: MASKED,
      // Names where a secret is, not the secret.
      token_file: '/run/secret',
    });
  });

  it('reads a model’s JSON text, and gives nothing for what is not an object', () => {
    expect(maskArguments('{"password":"hunter2","q":1}')).toEqual({ password: MASKED, q: 1 });
    expect(maskArguments('not json')).toEqual({});
    expect(maskArguments([1, 2])).toEqual({});
  });

  it('cuts long strings', () => {
    const masked = maskArguments({ text: 'x'.repeat(2000) }).text as string;
    expect(masked.length).toBeLessThan(600);
    expect(masked).toContain('(2000 chars)');
  });
});
