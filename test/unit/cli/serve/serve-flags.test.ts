import { describe, expect, it } from 'vitest';
import { readServeSettings } from '../../../../src/cli/serve/serve-flags.js';

describe('readServeSettings: --skills-only', () => {
  it('asks the gateway for the skill pair alone, with --servers', () => {
    const settings = readServeSettings({ skillsOnly: true, servers: 'docs,wiki' }, undefined);
    expect(settings.skillsOnly).toBe(true);
    expect(settings.servers).toEqual(['docs', 'wiki']);
    expect(readServeSettings({}, undefined).skillsOnly).toBeUndefined();
  });

  it('refuses it with --server, whose bridge re-serves one server unchanged', () => {
    expect(() => readServeSettings({ skillsOnly: true, server: 'docs' }, undefined)).toThrow(
      /--server re-serves one server unchanged; --skills-only serves only skills/,
    );
  });
});
