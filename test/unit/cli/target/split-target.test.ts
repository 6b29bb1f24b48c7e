import { describe, expect, it } from 'vitest';
import { splitTarget } from '../../../../src/cli/target/split-target.js';

describe('splitTarget', () => {
  it('splits at the first dot; the tool name may contain dots', () => {
    expect(splitTarget('fs.read.file')).toEqual({ server: 'fs', name: 'read.file' });
    expect(splitTarget('echo')).toBeUndefined();
    expect(splitTarget('.echo')).toBeUndefined();
    expect(splitTarget('demo.')).toBeUndefined();
  });
});
