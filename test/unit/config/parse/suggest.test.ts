import { describe, expect, it } from 'vitest';
import { levenshtein, suggest } from '../../../../src/config/index.js';

describe('suggest', () => {
  it('computes edit distance', () => {
    expect(levenshtein('comand', 'command')).toBe(1);
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('', 'abc')).toBe(3);
  });

  it('suggests within distance 2 and case/underscore variants', () => {
    expect(suggest('comand', ['args', 'command'])).toBe('command');
    expect(suggest('ENV_PASSTHROUGH', ['env', 'env_passthrough'])).toBe('env_passthrough');
    expect(suggest('env-pass-through', ['envPassthrough'])).toBe('envPassthrough');
    expect(suggest('zzzzzz', ['command', 'args'])).toBeUndefined();
    expect(suggest('ab', ['cd'])).toBeUndefined();
  });
});
