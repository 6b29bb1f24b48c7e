import { mkdir, readdir, stat, symlink } from 'node:fs/promises';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMPILE_CACHE_DIR, startCompileCache } from '../../../src/cli/compile-cache.js';
import { tempDir } from '../../helpers/cli.js';

const posix = process.platform !== 'win32';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function scratch(): Promise<string> {
  const dir = await tempDir('mcpx-compile-cache-');
  cleanups.push(dir.remove);
  return dir.path;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('V8 compile cache for the CLI', () => {
  it('hands Node a 0700 folder under the mcpx home (MCPX_HOME honoured)', async () => {
    const root = await scratch();
    const asked: string[] = [];
    const started = await startCompileCache({
      env: { MCPX_HOME: join(root, 'custom-home') },
      homedir: root,
      enable: (dir) => asked.push(dir),
    });
    const folder = join(root, 'custom-home', COMPILE_CACHE_DIR);
    expect(started).toBe(true);
    expect(asked).toEqual([folder]);
    if (posix) expect((await stat(folder)).mode & 0o777).toBe(0o700);
  });

  it('does nothing where Node has no compile cache (Node 20): no folder, no home', async () => {
    const root = await scratch();
    const started = await startCompileCache({ env: {}, homedir: root, enable: undefined });
    expect(started).toBe(false);
    expect(await readdir(root)).toEqual([]);
  });

  it('uses the running Node API only where it exists', async () => {
    const root = await scratch();
    const available =
      typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
    // The cache would be turned on for this test process: keep it off, whatever Node this is.
    const before = process.env.NODE_DISABLE_COMPILE_CACHE;
    process.env.NODE_DISABLE_COMPILE_CACHE = '1';
    try {
      expect(await startCompileCache({ env: {}, homedir: root })).toBe(available);
      expect(await exists(join(root, '.mcpx', COMPILE_CACHE_DIR))).toBe(available);
    } finally {
      if (before === undefined) delete process.env.NODE_DISABLE_COMPILE_CACHE;
      else process.env.NODE_DISABLE_COMPILE_CACHE = before;
    }
  });

  it.runIf(posix)('skips the cache silently when the home is unsafe (a planted link)', async () => {
    const root = await scratch();
    const elsewhere = join(root, 'elsewhere');
    await mkdir(elsewhere);
    await symlink(elsewhere, join(root, '.mcpx'));
    const asked: string[] = [];
    const started = await startCompileCache({ env: {}, homedir: root, enable: (dir) => asked.push(dir) });
    expect(started).toBe(false);
    expect(asked).toEqual([]);
    expect(await readdir(elsewhere)).toEqual([]);
  });
});
