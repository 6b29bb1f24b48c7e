/**
 * Running `.cmd`/`.bat` files (npm's `npx.cmd` and every `node_modules/.bin`
 * shim) on Windows. Node refuses to spawn them without a shell (CVE-2024-27980),
 * and a shell line is an injection risk unless every argument is escaped for
 * both the C runtime's parser and cmd.exe's. The escaping follows cross-spawn
 * and https://qntm.org/cmd.
 */
import { getEnv } from './safe-env.js';

/** What `child_process.spawn` receives. */
export interface SpawnInvocation {
  readonly file: string;
  readonly args: readonly string[];
  /** Windows only: pass `args` as written (they are already quoted for cmd.exe). */
  readonly windowsVerbatimArguments: boolean;
}

// Characters cmd.exe treats specially; each gets a caret in front.
const CMD_META = /([()\][%!^"`<>&|;, *?])/g;

/** Whether Windows must run `file` through cmd.exe. */
export function isWindowsBatchFile(file: string): boolean {
  return /\.(cmd|bat)$/i.test(file);
}

function escapeCommand(file: string): string {
  return file.replace(CMD_META, '^$1');
}

/**
 * One argument for a batch file run by `cmd.exe /d /s /c`: quoted for the C
 * runtime (backslashes before a quote doubled, the quote escaped), then every
 * cmd metacharacter caret-escaped twice — once for the `/c` line and once more
 * because the batch file re-parses its arguments when it expands `%*`.
 */
export function escapeCmdArgument(arg: string): string {
  let quoted = arg.replace(/(\\*)"/g, (_match, slashes: string) => `${slashes}${slashes}\\"`);
  quoted = quoted.replace(/(\\*)$/, (_match, slashes: string) => `${slashes}${slashes}`);
  quoted = `"${quoted}"`;
  return quoted.replace(CMD_META, '^$1').replace(CMD_META, '^$1');
}

/**
 * How to spawn `file` with `args`: unchanged, except a Windows batch file,
 * which becomes `%COMSPEC% /d /s /c "<escaped command line>"` with verbatim
 * arguments (`/d` skips AutoRun commands, `/s` strips just the outer quotes).
 */
export function spawnInvocation(
  file: string,
  args: readonly string[],
  options: { readonly platform: NodeJS.Platform; readonly env: Readonly<Record<string, string | undefined>> },
): SpawnInvocation {
  if (options.platform !== 'win32' || !isWindowsBatchFile(file)) {
    return { file, args, windowsVerbatimArguments: false };
  }
  const line = [escapeCommand(file), ...args.map(escapeCmdArgument)].join(' ');
  const comspec = getEnv(options.env, 'COMSPEC', 'win32') ?? 'cmd.exe';
  return { file: comspec, args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true };
}
