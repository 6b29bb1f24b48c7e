import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenStore } from '../../../src/auth/token-store.js';
import { openFileEraCache } from '../../../src/client/era-cache.js';
import { loadTrustStore, saveTrustStore, trustStorePath } from '../../../src/config/trust/trust.js';
import { ErrorCode } from '../../../src/errors/index.js';
import { createHomeFiles } from '../../../src/home/index.js';
import { tempDir } from '../../helpers/cli.js';

const posix = process.platform !== 'win32';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A scratch folder holding an mcpx home (`<root>/.mcpx`, not created) and a victim file outside it. */
async function scratch(): Promise<{ root: string; home: string; victim: string }> {
  const dir = await tempDir('mcpx-home-');
  cleanups.push(dir.remove);
  const victim = join(dir.path, 'victim.txt');
  await writeFile(victim, 'precious\n');
  return { root: dir.path, home: join(dir.path, '.mcpx'), victim };
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

/** The error a planted link must produce: names the path, says it is a link, says how to fix it. */
function linkRefused(path: string) {
  return {
    code: ErrorCode.HomeUnsafe,
    message: `${path} is a symbolic link; mcpx does not follow links in its home`,
    fixes: [`remove it (rm '${path}') and run again`],
  };
}

describe('the mcpx home files', () => {
  it('creates folders 0700 and files 0600, replaces atomically, and leaves no temporary file', async () => {
    const { home } = await scratch();
    const files = createHomeFiles(home);
    expect(await files.readText('a/b/c.json')).toBeUndefined();
    await files.writeText('a/b/c.json', 'one');
    await files.writeText('a/b/c.json', 'two');
    expect(await files.readText('a/b/c.json')).toBe('two');
    expect(await readdir(join(home, 'a', 'b'))).toEqual(['c.json']);
    if (posix) {
      for (const folder of [home, join(home, 'a'), join(home, 'a', 'b')])
        expect(await modeOf(folder)).toBe(0o700);
      expect(await modeOf(join(home, 'a', 'b', 'c.json'))).toBe(0o600);
    }
    expect(await files.remove('a/b/c.json')).toBe(true);
    expect(await files.remove('a/b/c.json')).toBe(false);
  });

  it.runIf(posix)('tightens an existing folder that others could enter to 0700', async () => {
    const { home } = await scratch();
    await mkdir(join(home, 'oauth'), { recursive: true });
    await chmod(home, 0o755);
    await chmod(join(home, 'oauth'), 0o777);
    await createHomeFiles(home).writeText('oauth/x.json', '{}');
    expect(await modeOf(home)).toBe(0o700);
    expect(await modeOf(join(home, 'oauth'))).toBe(0o700);
  });

  it.runIf(posix)(
    'refuses a link for a file, for a folder below the home and for the home itself',
    async () => {
      const { root, home, victim } = await scratch();
      const files = createHomeFiles(home);
      await mkdir(home, { mode: 0o700 });
      await symlink(victim, join(home, 'f.json'));
      await expect(files.readText('f.json')).rejects.toMatchObject(linkRefused(join(home, 'f.json')));
      await expect(files.writeText('f.json', 'x')).rejects.toMatchObject(linkRefused(join(home, 'f.json')));
      await expect(files.remove('f.json')).rejects.toMatchObject(linkRefused(join(home, 'f.json')));

      await mkdir(join(root, 'elsewhere'));
      await symlink(join(root, 'elsewhere'), join(home, 'sub'));
      await expect(files.writeText('sub/f.json', 'x')).rejects.toMatchObject(linkRefused(join(home, 'sub')));
      await expect(files.readText('sub/f.json')).rejects.toMatchObject(linkRefused(join(home, 'sub')));
      await expect(files.ensureDir('sub')).rejects.toMatchObject(linkRefused(join(home, 'sub')));
      expect(await readdir(join(root, 'elsewhere'))).toEqual([]);

      const linkedHome = join(root, 'linked-home');
      await symlink(join(root, 'elsewhere'), linkedHome);
      await expect(createHomeFiles(linkedHome).writeText('f.json', 'x')).rejects.toMatchObject(
        linkRefused(linkedHome),
      );
      expect(await readFile(victim, 'utf8')).toBe('precious\n');
      expect(await readdir(join(root, 'elsewhere'))).toEqual([]);
    },
  );

  it.runIf(posix)('refuses a FIFO in place of a file instead of blocking on it', async () => {
    const { home } = await scratch();
    await mkdir(home, { mode: 0o700 });
    execFileSync('mkfifo', [join(home, 'pipe.json')]);
    await expect(createHomeFiles(home).readText('pipe.json')).rejects.toMatchObject({
      code: ErrorCode.HomeUnsafe,
      message: expect.stringContaining('is not a regular file'),
    });
  });

  it('refuses paths that leave the home', async () => {
    const { home } = await scratch();
    await expect(createHomeFiles(home).writeText('../x', 'x')).rejects.toThrow(/not a path inside/);
  });

  it('refuses to read a file larger than maxBytes, and reads one of that size', async () => {
    const { home } = await scratch();
    const files = createHomeFiles(home);
    await files.writeText('cache/big.json', 'x'.repeat(11));
    await expect(files.readText('cache/big.json', { maxBytes: 10 })).rejects.toMatchObject({
      code: ErrorCode.HomeAccess,
      message: `${join(home, 'cache', 'big.json')} is larger than mcpx reads (10 bytes)`,
    });
    expect(await files.readText('cache/big.json', { maxBytes: 11 })).toBe('x'.repeat(11));
  });
});

describe.runIf(posix)('every store under the home refuses a planted link and leaves its target alone', () => {
  it('the trust store: ~/.mcpx/trust.json', async () => {
    const { home, victim } = await scratch();
    await mkdir(home, { mode: 0o700 });
    await writeFile(victim, '{"version":1,"entries":{"/repo/.mcp.json":{"evil":"x"}}}');
    await symlink(victim, trustStorePath(home));
    await expect(loadTrustStore(home)).rejects.toMatchObject(linkRefused(trustStorePath(home)));
    await expect(
      saveTrustStore(home, { version: 2, entries: new Map(), settings: new Map() }),
    ).rejects.toMatchObject(linkRefused(trustStorePath(home)));
    expect(await readFile(victim, 'utf8')).toBe('{"version":1,"entries":{"/repo/.mcp.json":{"evil":"x"}}}');
    expect((await lstat(trustStorePath(home))).isSymbolicLink()).toBe(true);
  });

  it('the trust store is written 0600 in a 0700 home', async () => {
    const { home } = await scratch();
    await saveTrustStore(home, {
      version: 2,
      entries: new Map([['/p/.mcp.json', new Map([['s', { fingerprint: 'f' }]])]]),
      settings: new Map(),
    });
    expect(await modeOf(home)).toBe(0o700);
    expect(await modeOf(trustStorePath(home))).toBe(0o600);
    expect((await loadTrustStore(home)).entries.get('/p/.mcp.json')?.get('s')?.fingerprint).toBe('f');
  });

  it('the era cache: ~/.mcpx/era-cache.json', async () => {
    const { home, victim } = await scratch();
    await mkdir(home, { mode: 0o700 });
    const file = join(home, 'era-cache.json');
    await symlink(victim, file);
    await expect(openFileEraCache(home)).rejects.toMatchObject(linkRefused(file));
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
  });

  it('the era cache is written 0600 in a 0700 home', async () => {
    const { home } = await scratch();
    const cache = await openFileEraCache(home);
    cache.set('k', { kind: 'legacy' });
    await cache.flush();
    expect(await modeOf(home)).toBe(0o700);
    expect(await modeOf(join(home, 'era-cache.json'))).toBe(0o600);
    expect((await openFileEraCache(home)).get('k')).toEqual({ kind: 'legacy' });
  });

  it('the token store: a token file and the oauth folder', async () => {
    const { root, home, victim } = await scratch();
    const store = new TokenStore(home);
    const tokens = { access_token: 'at', token_type: 'Bearer' };
    await mkdir(store.directory, { recursive: true, mode: 0o700 });
    const file = store.fileFor('api', 'https://api.example/mcp');
    await symlink(victim, file);
    await expect(store.load('api', 'https://api.example/mcp')).rejects.toMatchObject(linkRefused(file));
    await expect(store.save('api', { serverUrl: 'https://api.example/mcp', tokens })).rejects.toMatchObject(
      linkRefused(file),
    );
    expect(await readFile(victim, 'utf8')).toBe('precious\n');

    const other = join(root, 'other', '.mcpx');
    await mkdir(other, { recursive: true, mode: 0o700 });
    await mkdir(join(root, 'stolen'));
    await symlink(join(root, 'stolen'), join(other, 'oauth'));
    const linked = new TokenStore(other);
    await expect(linked.save('api', { serverUrl: 'https://api.example/mcp', tokens })).rejects.toMatchObject(
      linkRefused(join(other, 'oauth')),
    );
    await expect(linked.load('api', 'https://api.example/mcp')).rejects.toMatchObject(
      linkRefused(join(other, 'oauth')),
    );
    expect(await readdir(join(root, 'stolen'))).toEqual([]);
  });
});

describe.runIf(posix)('listing and removing a folder (mcpx exec run folders)', () => {
  it('lists names, removes a folder with its files, and refuses a link planted in its place', async () => {
    const { root, home, victim } = await scratch();
    const files = createHomeFiles(home);
    expect(await files.list('run')).toEqual([]);
    await files.writeText('run/exec-1-2/mcp-config.json', '{}');
    expect(await files.list('run')).toEqual(['exec-1-2']);
    expect(await files.removeTree('run/exec-1-2')).toBe(true);
    expect(await files.list('run')).toEqual([]);
    expect(await files.removeTree('run/exec-1-2')).toBe(false);

    // A link to a folder of the user's: refused, and what it points to stays.
    await symlink(root, join(home, 'run', 'exec-3-4'));
    await expect(files.removeTree('run/exec-3-4')).rejects.toMatchObject(
      linkRefused(join(home, 'run', 'exec-3-4')),
    );
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
    await expect(files.removeTree('')).rejects.toThrow(/mcpx home itself/);
  });
});

describe('a home whose parent folders do not exist yet', () => {
  it('is created with them (MCPX_HOME may name a new path)', async () => {
    const { root } = await scratch();
    const home = join(root, 'a', 'b', '.mcpx');
    await createHomeFiles(home).writeText('trust.json', '{}');
    expect(await createHomeFiles(home).readText('trust.json')).toBe('{}');
    if (posix) expect(await modeOf(home)).toBe(0o700);
  });
});
