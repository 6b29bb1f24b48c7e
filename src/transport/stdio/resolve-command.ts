/**
 * Finding the executable behind a config's `command`. On POSIX `spawn` does the
 * PATH lookup itself; on Windows it only tries `.com`/`.exe`, so `npx` (really
 * `npx.cmd`) would fail with ENOENT — we look it up with PATHEXT instead.
 */
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';
import { getEnv } from './safe-env.js';

/** Windows' own default when PATHEXT is unset. */
export const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';

/** Where and how to look a command up. Platform and file system are injectable for tests. */
export interface ResolveCommandOptions {
  /** The environment the server gets (its PATH and PATHEXT are the ones that count). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Default: `process.platform`. */
  readonly platform?: NodeJS.Platform;
  /** The server's working directory: relative commands resolve against it. Default: `process.cwd()`. */
  readonly cwd?: string;
  /** Whether `file` is an existing file we may run. Default: a real file-system check. */
  readonly fileExists?: (file: string) => boolean;
}

/** What to spawn: the executable and arguments to put before the configured ones. */
export interface ResolvedCommand {
  readonly file: string;
  /** Arguments that go before the server's own (empty today; kept so callers need not change). */
  readonly args: readonly string[];
}

function defaultFileExists(platform: NodeJS.Platform): (file: string) => boolean {
  return (file) => {
    try {
      if (!statSync(file).isFile()) return false;
      // Windows has no execute bit: a file with a PATHEXT extension is runnable.
      if (platform !== 'win32') accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
}

function hasPathSeparator(command: string, platform: NodeJS.Platform): boolean {
  return platform === 'win32' ? /[\\/]/.test(command) : command.includes('/');
}

/** The PATHEXT extensions, upper-cased, in order (Windows' default when unset). */
export function pathExtensions(env: Readonly<Record<string, string | undefined>>): string[] {
  const raw = getEnv(env, 'PATHEXT', 'win32') ?? DEFAULT_PATHEXT;
  return raw
    .split(';')
    .map((ext) => ext.trim().toUpperCase())
    .filter((ext) => ext.startsWith('.'));
}

/**
 * The full path of `command` as the server's PATH (and, on Windows, PATHEXT)
 * would find it, or `null`. A command containing a path separator is checked
 * relative to `cwd` instead. Used for Windows resolution and for error hints.
 *
 * @example
 * findOnPath('npx', { env: { PATH: 'C:\\nodejs', PATHEXT: '.EXE;.CMD' }, platform: 'win32' })
 * // → 'C:\\nodejs\\npx.cmd' (when that file exists)
 */
export function findOnPath(command: string, options: ResolveCommandOptions): string | null {
  const platform = options.platform ?? process.platform;
  const paths = platform === 'win32' ? path.win32 : path.posix;
  const fileExists = options.fileExists ?? defaultFileExists(platform);
  const cwd = options.cwd ?? process.cwd();
  if (command === '') return null;

  const candidates = (base: string): string[] => {
    if (platform !== 'win32') return [base];
    const extensions = pathExtensions(options.env);
    const own = paths.extname(base).toUpperCase();
    // A name that already carries a runnable extension (`npx.cmd`) is tried as given first.
    const exact = own !== '' && extensions.includes(own) ? [base] : [];
    return [...exact, ...extensions.map((ext) => `${base}${ext.toLowerCase()}`)];
  };

  let directories: string[];
  let name = command;
  if (paths.isAbsolute(command) || hasPathSeparator(command, platform)) {
    name = paths.resolve(cwd, command);
    directories = [''];
  } else {
    const pathValue = getEnv(options.env, 'PATH', platform) ?? '';
    const separator = platform === 'win32' ? ';' : ':';
    // Windows searches the current directory before PATH (CreateProcess does); POSIX never does.
    directories = [
      ...(platform === 'win32' ? [cwd] : []),
      ...pathValue
        .split(separator)
        .map((dir) => dir.trim().replace(/^"(.*)"$/, '$1'))
        .filter((dir) => dir !== ''),
    ];
  }
  for (const dir of directories) {
    const base = dir === '' ? name : paths.join(paths.resolve(cwd, dir), name);
    for (const candidate of candidates(base)) if (fileExists(candidate)) return candidate;
  }
  return null;
}

/**
 * Unix command names a Windows install spells differently: python.org's installer puts
 * `python.exe` and `pip.exe` on PATH, with no `python3`/`pip3`, so a config written on a Mac
 * (`"command": "python3"`) fails there (seed 003, "Windows command aliases").
 */
const WINDOWS_COMMAND_ALIASES: Readonly<Record<string, string>> = { python3: 'python', pip3: 'pip' };

/**
 * What to spawn for a configured `command`. On win32 the command is looked up
 * with PATH and PATHEXT (`npx` → `C:\…\npx.cmd`); a `python3` or `pip3` that is
 * not found there is looked up as `python` or `pip` ({@link WINDOWS_COMMAND_ALIASES}),
 * while an install that has `python3.exe` keeps it. When nothing is found the command
 * is returned unchanged so that `spawn` fails with ENOENT and the caller reports
 * "command not found" with hints. On POSIX it is returned unchanged: `spawn`
 * searches PATH itself.
 *
 * A `.cmd`/`.bat` result cannot be spawned directly (Node refuses since the
 * CVE-2024-27980 fix); {@link StdioTransport} runs it through `cmd.exe /d /s /c`
 * with every argument quoted and escaped (see `windows-shim.ts`), because only it
 * knows the complete argument list.
 */
export function resolveCommand(command: string, options: ResolveCommandOptions): ResolvedCommand {
  const platform = options.platform ?? process.platform;
  if (platform !== 'win32') return { file: command, args: [] };
  const found = findOnPath(command, options);
  if (found) return { file: found, args: [] };
  const alias = WINDOWS_COMMAND_ALIASES[command.toLowerCase()];
  return { file: (alias && findOnPath(alias, options)) || command, args: [] };
}
