import { describe, expect, it } from 'vitest';
import { plural } from '../../../src/cli/output/plural.js';

describe('plural', () => {
  it('is singular for exactly one, plural otherwise, with an irregular plural when given', () => {
    expect(plural(1, 'tool')).toBe('1 tool');
    expect(plural(0, 'tool')).toBe('0 tools');
    expect(plural(2, 'server')).toBe('2 servers');
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });
});
