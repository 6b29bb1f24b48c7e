/**
 * Whether a server entry runs mcpx itself. docs/gateway.md tells people to give Claude Code
 * `{"command": "mcpx", "args": ["serve"]}` in a project's `.mcp.json`, and mcpx reads that
 * file too: run as one of mcpx's own servers, that entry starts an mcpx which reads the
 * same file and starts another, without end. Recognised by what the command line runs,
 * before anything is spawned; chains this cannot see (a wrapper script, another gateway)
 * are caught by `MCPX_SERVER_CHAIN` instead.
 */
import { realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { splitCommandLine } from './split-command-line.js';

/** The package, and the name of its executable. */
const MCPX = 'mcpx';
/** File names mcpx's executable goes by: the bin link, the bundle, a Windows shim. */
const EXECUTABLE_NAMES = new Set([
  'mcpx',
  'mcpx.cjs',
  'mcpx.js',
  'mcpx.mjs',
  'mcpx.cmd',
  'mcpx.exe',
  'mcpx.ps1',
]);
/** Runtimes that take a script as their first argument that is not an option. */
const RUNTIMES = new Set(['node', 'nodejs', 'bun', 'deno']);
/** Runtime options whose value is the next argument (so that value is not the script). */
const RUNTIME_VALUE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
]);
/** Package runners: the words before the package, and the options whose value is a package. */
const RUNNERS: Record<string, { readonly sub?: readonly string[] }> = {
  npx: {},
  pnpx: {},
  bunx: {},
  npm: { sub: ['exec', 'x'] },
  pnpm: { sub: ['dlx', 'exec'] },
  yarn: { sub: ['dlx'] },
  bun: { sub: ['x'] },
};
const PACKAGE_OPTIONS = new Set(['-p', '--package']);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh']);

/** What {@link runsMcpx} needs of an entry. */
export interface CommandLine {
  readonly command?: string | undefined;
  readonly args: readonly string[];
}

/** Options of {@link runsMcpx}. */
export interface RunsMcpxOptions {
  /** The running mcpx's own script (`process.argv[1]`): a path to it is mcpx by any name. */
  readonly selfScript?: string;
  /** Folder relative script paths are resolved from (the entry's cwd). */
  readonly cwd?: string;
}

/**
 * How `entry` runs mcpx (`"mcpx"`, `"node …/mcpx.cjs"`, `"npx mcpx"`), or `undefined`
 * when it does not, as far as its command line shows.
 *
 * @example runsMcpx({ command: 'npx', args: ['-y', 'mcpx@latest', 'serve'] }) // 'npx mcpx'
 */
export function runsMcpx(entry: CommandLine, options: RunsMcpxOptions = {}): string | undefined {
  if (!entry.command) return undefined;
  return check([entry.command, ...entry.args], options, 0);
}

function check(words: readonly string[], options: RunsMcpxOptions, depth: number): string | undefined {
  const [command, ...args] = words;
  if (command === undefined || depth > 3) return undefined;
  const name = commandName(command);
  if (isMcpxExecutable(command, options)) return name === MCPX ? MCPX : command;
  if (RUNTIMES.has(name)) {
    const script = firstOperand(args, RUNTIME_VALUE_OPTIONS);
    if (script !== undefined && isMcpxExecutable(script, options)) return `${name} ${script}`;
    return undefined;
  }
  const runner = RUNNERS[name];
  if (runner) {
    let rest = args;
    let via = name;
    if (runner.sub) {
      const at = rest.findIndex((word) => !word.startsWith('-'));
      const sub = rest[at];
      if (sub === undefined || !runner.sub.includes(sub)) return undefined;
      via = `${name} ${sub}`;
      rest = rest.slice(at + 1);
    }
    return runnerPackages(rest).some((spec) => packageName(spec) === MCPX) ? `${via} ${MCPX}` : undefined;
  }
  if (name === 'env') {
    const at = args.findIndex((word) => !word.startsWith('-') && !word.includes('='));
    return at < 0 ? undefined : check(args.slice(at), options, depth + 1);
  }
  if (SHELLS.has(name)) {
    const at = args.indexOf('-c');
    const line = at < 0 ? undefined : args[at + 1];
    if (line === undefined) return undefined;
    try {
      return check(splitCommandLine(line), options, depth + 1);
    } catch {
      return undefined; // an unterminated quote: not something this can read
    }
  }
  return undefined;
}

/** The file name without folder or Windows extension, lower-cased where names ignore case. */
function commandName(command: string): string {
  return basename(command.replaceAll('\\', '/'))
    .replace(/\.(exe|cmd|bat|ps1)$/i, '')
    .toLowerCase();
}

function isMcpxExecutable(path: string, options: RunsMcpxOptions): boolean {
  if (EXECUTABLE_NAMES.has(basename(path.replaceAll('\\', '/')).toLowerCase())) return true;
  if (!options.selfScript || !/[\\/]/.test(path)) return false;
  return samePath(resolve(options.cwd ?? '.', path), options.selfScript);
}

function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** The first argument that is not an option (nor an option's value). */
function firstOperand(args: readonly string[], valueOptions: ReadonlySet<string>): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') return args[i + 1];
    if (!word.startsWith('-')) return word;
    if (valueOptions.has(word)) i++;
  }
  return undefined;
}

/** The packages a runner's arguments name: `-p`/`--package` values, and the command it runs. */
function runnerPackages(args: readonly string[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') {
      if (args[i + 1] !== undefined) found.push(args[i + 1] as string);
      break;
    }
    const [option, value] = word.split('=', 2) as [string, string | undefined];
    if (PACKAGE_OPTIONS.has(option)) {
      const spec = value ?? args[++i];
      if (spec !== undefined) found.push(spec);
      continue;
    }
    if (word.startsWith('-')) continue;
    found.push(word);
    break;
  }
  return found;
}

/** `mcpx@1.2.3` → `mcpx`; `@scope/name@1` → `@scope/name`. */
function packageName(spec: string): string {
  const at = spec.indexOf('@', 1);
  return (at < 0 ? spec : spec.slice(0, at)).toLowerCase();
}
