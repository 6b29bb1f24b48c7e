// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the config syntax under test
import { realpath, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createConfigFileCache,
  loadConfig,
  loadTrustStore,
  trustServers,
} from '../../../../src/config/index.js';
import { tempDir } from '../helpers.js';

const entry = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ mcpServers: { [name]: { command: 'node', args: ['s.js'], ...extra } } });

describe('the config file cache', () => {
  it('keeps a parsed file while it is unchanged', async () => {
    const dir = await tempDir();
    const file = join(dir, 'mcp.json');
    await writeFile(file, entry('one'));
    const cache = createConfigFileCache();
    const first = await cache.load(file, 'explicit', 'mcpx');
    expect(first?.drafts.map((d) => d.base.name)).toEqual(['one']);
    expect(await cache.load(file, 'explicit', 'mcpx')).toBe(first);
  });

  it('reads a changed file again, even with the same size and modification time', async () => {
    const dir = await tempDir();
    const file = join(dir, 'mcp.json');
    await writeFile(file, entry('one'));
    const cache = createConfigFileCache();
    await cache.load(file, 'explicit', 'mcpx');
    await writeFile(file, entry('two'));
    expect((await cache.load(file, 'explicit', 'mcpx'))?.drafts.map((d) => d.base.name)).toEqual(['two']);

    // Same length, modification time put back: the change time still tells.
    const before = await stat(file);
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(file, entry('six'));
    await utimes(file, before.atime, before.mtime);
    expect((await stat(file)).size).toBe(before.size);
    expect((await cache.load(file, 'explicit', 'mcpx'))?.drafts.map((d) => d.base.name)).toEqual(['six']);
  });

  it('forgets a removed file, and keys by layer and dialect too', async () => {
    const dir = await tempDir();
    const file = join(dir, 'mcp.json');
    await writeFile(file, entry('one'));
    const cache = createConfigFileCache();
    const asExplicit = await cache.load(file, 'explicit', 'mcpx');
    const asProject = await cache.load(file, 'project', 'foreign');
    expect(asProject).not.toBe(asExplicit);
    expect(asProject?.layer).toBe('project');
    await rm(file);
    expect(await cache.load(file, 'explicit', 'mcpx')).toBeUndefined();
  });

  it('keeps at most its limit of files, the least recently used leaving first', async () => {
    const dir = await tempDir();
    const [a, b] = [join(dir, 'a.json'), join(dir, 'b.json')];
    await writeFile(a, entry('a'));
    await writeFile(b, entry('b'));
    const cache = createConfigFileCache(1);
    const first = await cache.load(a, 'explicit', 'mcpx');
    await cache.load(b, 'explicit', 'mcpx');
    const again = await cache.load(a, 'explicit', 'mcpx');
    expect(again).not.toBe(first);
    expect(again?.drafts.map((d) => d.base.name)).toEqual(['a']);
  });

  it('never serves one load the values of another load’s environment', async () => {
    const dir = await tempDir();
    const file = join(dir, 'mcp.json');
    await writeFile(file, entry('api', { env: { TOKEN: '${TOKEN}' } }));
    const fileCache = createConfigFileCache();
    const load = (env: Record<string, string>) =>
      loadConfig({
        includeUnapproved: true,
        cwd: dir,
        env,
        home: join(dir, 'home'),
        configFile: file,
        includeBuiltin: false,
        fileCache,
      });
    const alice = await load({ TOKEN: 'alice' });
    const bob = await load({ TOKEN: 'bob' });
    const nobody = await load({});
    expect(alice.servers[0]?.env).toEqual({ TOKEN: 'alice' });
    expect(bob.servers[0]?.env).toEqual({ TOKEN: 'bob' });
    expect(nobody.servers).toEqual([]);
    expect(nobody.unusable.get('api')?.message).toContain('TOKEN');
  });
});

describe('the config file cache’s real paths', () => {
  it('follows a link to the file, and gives a missing path back resolved', async () => {
    const dir = await tempDir();
    const file = join(dir, 'mcp.json');
    await writeFile(file, entry('one'));
    await symlink(file, join(dir, 'link.json'));
    const cache = createConfigFileCache();
    expect(cache.realpath(join(dir, 'link.json'))).toBe(await realpath(file));
    expect(cache.realpath(join(dir, 'sub', '..', 'missing.json'))).toBe(join(dir, 'missing.json'));
  });
});

describe('the trust store kept by the config file cache', () => {
  it('is read again when trust.json changes (an approval rewrites it), and a failed read is not kept', async () => {
    const home = await tempDir();
    const cache = createConfigFileCache();
    let reads = 0;
    const read = () => {
      reads += 1;
      return loadTrustStore(home);
    };
    const absent = await cache.trustStore(home, read);
    expect(await cache.trustStore(home, read)).toBe(absent);
    expect(reads).toBe(1);

    const dir = await tempDir();
    const file = join(dir, '.mcp.json');
    await writeFile(file, entry('proj'));
    const loaded = await loadConfig({
      includeUnapproved: true,
      cwd: dir,
      env: {},
      home,
      includeBuiltin: false,
    });
    await trustServers(home, loaded.servers);
    const approved = await cache.trustStore(home, read);
    expect(reads).toBe(2);
    expect(approved.entries.get(file)?.has('proj')).toBe(true);
    expect(await cache.trustStore(home, read)).toBe(approved);

    const failing = () => Promise.reject(new Error('unsafe home'));
    await writeFile(join(home, 'trust.json'), '{}');
    await expect(cache.trustStore(home, failing)).rejects.toThrow('unsafe home');
    expect((await cache.trustStore(home, read)).entries.size).toBe(0);
  });
});
