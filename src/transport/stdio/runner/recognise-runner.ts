/**
 * Which servers are started through a package runner — a command that first
 * installs a package, then runs it — and which package. Recognised by the
 * command's base name, so an absolute path or Windows' `npx.cmd` counts too.
 */

/** The package runners mcpx knows. */
export type PackageRunnerName = 'npx' | 'npm exec' | 'pnpm dlx' | 'bunx' | 'uvx' | 'pipx run';

/** A server start through a package runner. */
export interface PackageRunnerStart {
  readonly runner: PackageRunnerName;
  /**
   * The package specs the runner installs, as written (`@x/y`, `@x/y@1.2.0`).
   * For npm these are exactly the strings npm hashes into its `_npx/<hash>` folder.
   */
  readonly packages: readonly string[];
  /** The runner's own options before the package (`--cache`, `--registry`, …): `--name` → value. */
  readonly options: ReadonlyMap<string, string | true>;
}

/** The command's name without folders and Windows extensions, lower-cased: `C:\…\npx.CMD` → `npx`. */
export function commandBaseName(command: string): string {
  return (command.split(/[\\/]/).pop() ?? command).replace(/\.(exe|cmd|bat|com|ps1)$/i, '').toLowerCase();
}

// npm options that take a separate value (`--cache DIR`); any other `--flag` is a switch.
const NPM_VALUE_OPTIONS = new Set([
  'package',
  'p',
  'cache',
  'registry',
  'userconfig',
  'globalconfig',
  'loglevel',
  'workspace',
  'w',
  'call',
  'c',
  'prefix',
  'script-shell',
  'node-options',
]);

// Options of the other runners that take a separate value.
const OTHER_VALUE_OPTIONS = new Set([
  'from',
  'with',
  'python',
  'p',
  'package',
  'spec',
  'index-url',
  'index',
  'python-preference',
  'w',
]);

interface ParsedArgs {
  readonly options: Map<string, string | true>;
  readonly packageOptions: string[];
  readonly positional: string | undefined;
}

/** The runner's options up to its first positional argument (the package, or the command to run). */
function parseRunnerArgs(args: readonly string[], valueOptions: ReadonlySet<string>): ParsedArgs {
  const options = new Map<string, string | true>();
  const packageOptions: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--') return { options, packageOptions, positional: args[i + 1] };
    if (!arg.startsWith('-') || arg === '-') return { options, packageOptions, positional: arg };
    const body = arg.replace(/^--?/, '');
    const equals = body.indexOf('=');
    const name = equals < 0 ? body : body.slice(0, equals);
    let value: string | true = equals < 0 ? true : body.slice(equals + 1);
    if (equals < 0 && valueOptions.has(name) && i + 1 < args.length) {
      i += 1;
      value = args[i] as string;
    }
    if ((name === 'package' || name === 'p' || name === 'from' || name === 'spec') && value !== true)
      packageOptions.push(value);
    options.set(name, value);
  }
  return { options, packageOptions, positional: undefined };
}

function start(
  runner: PackageRunnerName,
  args: readonly string[],
  valueOptions: ReadonlySet<string>,
): PackageRunnerStart | undefined {
  const { options, packageOptions, positional } = parseRunnerArgs(args, valueOptions);
  // npm: `--call` runs a command line with the `--package`s installed; no positional package.
  const packages = packageOptions.length > 0 ? packageOptions : positional === undefined ? [] : [positional];
  if (packages.length === 0) return undefined;
  return { runner, packages, options };
}

/**
 * The package runner a server's command line goes through, or `undefined`:
 * `npx`, `npm exec`/`npm x`, `pnpm dlx`/`pnpx`, `bunx`/`bun x`, `uvx`/`uv tool run`, `pipx run`.
 *
 * @example
 * recognisePackageRunner('npx', ['-y', '@modelcontextprotocol/server-memory'])
 * // → { runner: 'npx', packages: ['@modelcontextprotocol/server-memory'], options: Map { 'y' → true } }
 */
export function recognisePackageRunner(
  command: string,
  args: readonly string[],
): PackageRunnerStart | undefined {
  const name = commandBaseName(command);
  const [first, second, ...rest] = args;
  switch (name) {
    case 'npx':
      return start('npx', args, NPM_VALUE_OPTIONS);
    case 'npm':
      return first === 'exec' || first === 'x'
        ? start('npm exec', args.slice(1), NPM_VALUE_OPTIONS)
        : undefined;
    case 'pnpx':
      return start('pnpm dlx', args, OTHER_VALUE_OPTIONS);
    case 'pnpm':
      return first === 'dlx' ? start('pnpm dlx', args.slice(1), OTHER_VALUE_OPTIONS) : undefined;
    case 'bunx':
      return start('bunx', args, OTHER_VALUE_OPTIONS);
    case 'bun':
      return first === 'x' ? start('bunx', args.slice(1), OTHER_VALUE_OPTIONS) : undefined;
    case 'uvx':
      return start('uvx', args, OTHER_VALUE_OPTIONS);
    case 'uv':
      return first === 'tool' && (second === 'run' || second === 'uvx')
        ? start('uvx', rest, OTHER_VALUE_OPTIONS)
        : undefined;
    case 'pipx':
      return first === 'run' ? start('pipx run', args.slice(1), OTHER_VALUE_OPTIONS) : undefined;
    default:
      return undefined;
  }
}

/** Whether npm's rules (its `_npx/<hash>` folder and lock) apply to this runner. */
export function isNpmRunner(start: PackageRunnerStart): boolean {
  return start.runner === 'npx' || start.runner === 'npm exec';
}
