import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/index.js';
import { loadError, loadText } from './helpers.js';

describe('roots in the config', () => {
  it('are directories servers may work in, relative to the file', async () => {
    const config = await loadText(JSON.stringify({ roots: ['./src', '/data'], mcpServers: {} }));
    expect(config.roots).toEqual([join(config.dir, 'src'), '/data']);
  });

  it('are absent unless set', async () => {
    expect((await loadText('{"mcpServers": {}}')).roots).toBeUndefined();
  });

  it('must be a list of paths', async () => {
    const { error } = await loadError('{"roots": "src"}');
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toContain("'roots' must be a list of directories");
  });
});

describe('permission in the config', () => {
  it('sets the level agents get', async () => {
    expect((await loadText('{"permission": "sandboxed", "mcpServers": {}}')).permission).toBe('sandboxed');
  });

  it('must be a known level', async () => {
    const { error } = await loadError('{"permission": "root"}');
    expect(error.message).toContain("'permission' must be yolo, trusted or sandboxed");
  });
});
