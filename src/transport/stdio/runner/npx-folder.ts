/**
 * npm's own rules for the folder `npx`/`npm exec` installs a package into,
 * read from the npm in use (libnpmexec 10, npm 11): the folder is
 * `<cache>/_npx/<hash>`, where `<hash>` is the first 16 hex digits of the
 * SHA-512 of the package specs (sorted, joined by newlines); npm holds the
 * directory `concurrency.lock` inside it while it reads and while it installs
 * (touched every second, stale after 60 s), and writes the folder's
 * `package.json` only after the whole tree is in place. So a folder with a
 * package.json and no live lock is a finished install; one with
 * `node_modules` and neither is what an install killed midway leaves.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { PackageRunnerStart } from './recognise-runner.js';

/** npm's `staleThreshold` (libnpmexec/lib/with-lock.js): an older lock is abandoned. */
export const NPM_LOCK_STALE_MS = 60_000;

/** Where a server's environment puts things, as npm reads it. */
export interface NpmScene {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string | undefined;
  readonly platform: NodeJS.Platform;
}

/** A config value npm reads from its environment (`npm_config_x`, any case). */
function npmEnv(env: NpmScene['env'], name: string): string | undefined {
  const wanted = `npm_config_${name}`;
  for (const [key, value] of Object.entries(env)) {
    if (key.toLowerCase() === wanted && value) return value;
  }
  return undefined;
}

function home(scene: NpmScene): string | undefined {
  return scene.platform === 'win32' ? (scene.env.USERPROFILE ?? scene.env.HOME) : scene.env.HOME;
}

function expandHome(path: string, scene: NpmScene): string {
  const dir = home(scene);
  return dir && (path === '~' || path.startsWith('~/')) ? join(dir, path.slice(1)) : path;
}

/** `cache=` from the user's .npmrc, if it sets one. */
function cacheFromNpmrc(scene: NpmScene): string | undefined {
  const dir = home(scene);
  const file = npmEnv(scene.env, 'userconfig') ?? (dir ? join(dir, '.npmrc') : undefined);
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(expandHome(file, scene), 'utf8');
  } catch {
    return undefined;
  }
  const line = /^\s*cache\s*=\s*(.+?)\s*$/m.exec(text);
  return line?.[1]?.replace(/^["']|["']$/g, '');
}

/** npm's cache root for this server: `--cache`, `npm_config_cache`, the user's .npmrc, or npm's default. */
export function npmCacheRoot(start: PackageRunnerStart, scene: NpmScene): string | undefined {
  const option = start.options.get('cache');
  const configured =
    (typeof option === 'string' ? option : undefined) ?? npmEnv(scene.env, 'cache') ?? cacheFromNpmrc(scene);
  if (configured) {
    const path = expandHome(configured, scene);
    return isAbsolute(path) ? path : resolve(scene.cwd ?? process.cwd(), path);
  }
  if (scene.platform === 'win32') {
    const local = scene.env.LOCALAPPDATA ?? scene.env.LocalAppData;
    return local ? join(local, 'npm-cache') : undefined;
  }
  const dir = home(scene);
  return dir ? join(dir, '.npm') : undefined;
}

// npm-package-arg's test for a directory spec (`.`, `./x`, `/abs`, `~/x`, `C:\x`, `file:x`).
const DIRECTORY_SPEC = /^(?:file:|\.{1,2}(?:[\\/]|$)|[\\/]|~[\\/]|[a-zA-Z]:[\\/])/;

/** The 16-digit hash npm names the folder by (libnpmexec/lib/index.js). */
export function npxHash(packages: readonly string[], cwd: string = process.cwd()): string {
  const keys = packages.map((spec) =>
    DIRECTORY_SPEC.test(spec) ? resolve(cwd, spec.replace(/^file:/, '')) : spec,
  );
  return createHash('sha512')
    .update(keys.sort((a, b) => a.localeCompare(b, 'en')).join('\n'))
    .digest('hex')
    .slice(0, 16);
}

/** The `_npx/<hash>` folder `npx` installs this server's package into, when npm's cache can be located. */
export function npxFolderFor(start: PackageRunnerStart, scene: NpmScene): string | undefined {
  const root = npmCacheRoot(start, scene);
  return root ? join(root, '_npx', npxHash(start.packages, scene.cwd)) : undefined;
}

/**
 * - `absent`: no folder (npx has not got this far, or uses no folder: a local or global bin)
 * - `locked`: an npm process holds the folder's lock (reading or installing)
 * - `partial`: a folder without package.json and no live lock (npx about to install, or a killed install)
 * - `complete`: a finished install
 */
export type NpxFolderState = 'absent' | 'locked' | 'partial' | 'complete';

function mtimeMs(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The lock's path inside a folder. */
export const lockPath = (folder: string) => join(folder, 'concurrency.lock');

/** What the folder holds right now. */
export function npxFolderState(folder: string, now = Date.now()): NpxFolderState {
  if (mtimeMs(folder) === undefined) return 'absent';
  const lock = mtimeMs(lockPath(folder));
  if (lock !== undefined && now - lock <= NPM_LOCK_STALE_MS) return 'locked';
  return mtimeMs(join(folder, 'package.json')) === undefined ? 'partial' : 'complete';
}

/** Whether the folder holds what an interrupted install leaves: packages, but no package.json and no live lock. */
export function isDamagedNpxFolder(folder: string): boolean {
  return npxFolderState(folder) === 'partial' && mtimeMs(join(folder, 'node_modules')) !== undefined;
}

/** Removes an unfinished install's folder (npm installs it afresh next time). */
export function removeNpxFolder(folder: string): void {
  rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
}
