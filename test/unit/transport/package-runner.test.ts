import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { damagedNpxFolderIn, diagnoseNpxDamage } from '../../../src/transport/stdio/runner/npx-damage.js';
import {
  npmCacheRoot,
  npxFolderFor,
  npxFolderState,
  npxHash,
} from '../../../src/transport/stdio/runner/npx-folder.js';
import { recognisePackageRunner } from '../../../src/transport/stdio/runner/recognise-runner.js';

describe('recognisePackageRunner', () => {
  it.each([
    ['npx', ['-y', '@x/y'], 'npx', ['@x/y']],
    ['/usr/local/bin/npx', ['--yes', '@x/y@1.2.0', '--flag'], 'npx', ['@x/y@1.2.0']],
    ['C:\\Program Files\\nodejs\\npx.CMD', ['-y', 'pkg'], 'npx', ['pkg']],
    ['npx', ['-y', '--registry', 'https://r.example', 'pkg', 'arg'], 'npx', ['pkg']],
    ['npx', ['-y', '-p', '@x/y', 'y-bin'], 'npx', ['@x/y']],
    ['npx', ['--package=@x/y', '--package=@x/z', '-c', 'y-bin'], 'npx', ['@x/y', '@x/z']],
    ['npm', ['exec', '--yes', '--', 'pkg', 'arg'], 'npm exec', ['pkg']],
    ['npm', ['x', 'pkg'], 'npm exec', ['pkg']],
    ['pnpm', ['dlx', 'pkg'], 'pnpm dlx', ['pkg']],
    ['pnpx', ['pkg'], 'pnpm dlx', ['pkg']],
    ['bunx', ['pkg'], 'bunx', ['pkg']],
    ['bun', ['x', 'pkg'], 'bunx', ['pkg']],
    ['uvx', ['mcp-server-time'], 'uvx', ['mcp-server-time']],
    ['uvx', ['--from', 'git+https://e.x/r', 'srv'], 'uvx', ['git+https://e.x/r']],
    ['uv', ['tool', 'run', 'srv'], 'uvx', ['srv']],
    ['pipx', ['run', 'srv'], 'pipx run', ['srv']],
  ])('%s %j is %s of %j', (command, args, runner, packages) => {
    expect(recognisePackageRunner(command, args)).toMatchObject({ runner, packages });
  });

  it.each([
    ['node', ['server.js']],
    ['npm', ['run', 'start']],
    ['pnpm', ['start']],
    ['uv', ['run', 'server.py']],
    ['pipx', ['install', 'srv']],
    ['npx', ['-y']],
  ])('%s %j is not a package runner start', (command, args) => {
    expect(recognisePackageRunner(command, args)).toBeUndefined();
  });
});

describe("npm's _npx folder", () => {
  it('is named by the SHA-512 of the sorted specs, as libnpmexec does', () => {
    // The folder npm 11 made for `npx -y @modelcontextprotocol/server-memory`.
    expect(npxHash(['@modelcontextprotocol/server-memory'])).toBe('15b07286cbcc3329');
    expect(npxHash(['b', 'a'])).toBe(npxHash(['a', 'b']));
    expect(npxHash(['./local'], '/work')).toBe(npxHash(['/work/local']));
  });

  it('lives under --cache, npm_config_cache (any case), or ~/.npm', () => {
    const start = recognisePackageRunner('npx', ['-y', 'pkg']);
    if (!start) throw new Error('not recognised');
    const scene = { env: { HOME: '/home/u' }, platform: 'linux' as const, cwd: '/w' };
    expect(npmCacheRoot(start, scene)).toBe('/home/u/.npm');
    expect(npmCacheRoot(start, { ...scene, env: { HOME: '/home/u', NPM_CONFIG_CACHE: '/c' } })).toBe('/c');
    const withOption = recognisePackageRunner('npx', ['--cache', 'rel', '-y', 'pkg']);
    if (!withOption) throw new Error('not recognised');
    expect(npmCacheRoot(withOption, scene)).toBe('/w/rel');
    expect(npxFolderFor(start, scene)).toBe(`/home/u/.npm/_npx/${npxHash(['pkg'])}`);
    expect(
      npmCacheRoot(start, { env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, platform: 'win32' }),
    ).toMatch(/npm-cache$/);
  });

  describe('state', () => {
    let dir: string;
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('tells absent, locked, partial and complete apart, and a stale lock from a live one', () => {
      dir = mkdtempSync(join(tmpdir(), 'mcpx-npx-state-'));
      const folder = join(dir, 'abc');
      expect(npxFolderState(folder)).toBe('absent');
      mkdirSync(join(folder, 'node_modules'), { recursive: true });
      expect(npxFolderState(folder)).toBe('partial');
      mkdirSync(join(folder, 'concurrency.lock'));
      expect(npxFolderState(folder)).toBe('locked');
      const old = Date.now() / 1000 - 120;
      utimesSync(join(folder, 'concurrency.lock'), old, old);
      expect(npxFolderState(folder)).toBe('partial');
      writeFileSync(join(folder, 'package.json'), '{}');
      expect(npxFolderState(folder)).toBe('complete');
    });
  });
});

describe('a damaged _npx folder in stderr', () => {
  const folder = '/home/u/.npm/_npx/9833c18b2d85bc59';

  it.each([
    `Error [ERR_MODULE_NOT_FOUND]: Cannot find package '${folder}/node_modules/zod/index.js' imported from x`,
    `Error: Cannot find module '${folder}/node_modules/zod/lib/index.js'`,
    `Error [ERR_MODULE_NOT_FOUND]: Cannot find module 'file://${folder}/node_modules/a/b.js'`,
    `npm error enoent Could not read package.json: Error: ENOENT: no such file or directory, open '${folder}/package.json'`,
  ])('is found in %s', (line) => {
    expect(damagedNpxFolderIn(['some banner', line])).toBe(folder);
  });

  it('is found in a Windows path', () => {
    const win = 'C:\\Users\\Jo Doe\\AppData\\Local\\npm-cache\\_npx\\9833c18b2d85bc59';
    expect(damagedNpxFolderIn([`Error: Cannot find module '${win}\\node_modules\\zod\\index.js'`])).toBe(win);
  });

  it('is not taken from a line with shell characters, nor from an unrelated missing module', () => {
    expect(
      damagedNpxFolderIn([`Cannot find module '/x;rm -rf ~;/_npx/9833c18b2d85bc59/node_modules/a'`]),
    ).toBeUndefined();
    expect(damagedNpxFolderIn(["Error: Cannot find module '/srv/app/node_modules/zod'"])).toBeUndefined();
    expect(damagedNpxFolderIn([`${folder} started fine`])).toBeUndefined();
  });

  it("gives the server's own folder and the rm -rf that removes it", () => {
    const own = npxFolderFor(
      { runner: 'npx', packages: ['pkg'], options: new Map() },
      { env: { HOME: '/home/u' }, platform: 'linux' },
    );
    const line = `Error [ERR_MODULE_NOT_FOUND]: Cannot find package '${own}/node_modules/zod/index.js'`;
    const error = diagnoseNpxDamage(
      { serverName: 's', command: 'npx', args: ['-y', 'pkg'], env: { HOME: '/home/u' }, platform: 'linux' },
      [line],
      { command: 'npx -y pkg', exitCode: 1, signal: null },
    );
    expect(error?.code).toBe('NPX_CACHE_DAMAGED');
    expect(error?.context.folder).toBe(own);
    expect(error?.fixes[0]).toContain(`rm -rf '${own}'`);
  });
});
