/**
 * Whether a server entry runs mcpx itself. docs/gateway.md tells people to give Claude Code
 * `{"command": "mcpx", "args": ["serve"]}` in a project's `.mcp.json`, and mcpx reads that
 * file too: run as one of mcpx's own servers, that entry starts an mcpx which reads the
 * same file and starts another, without end. Recognised by what the command line runs,
 * before anything is spawned, reading each wrapper's arguments as that wrapper does (`env`
 * and its options, `sh -c`, `exec`, `npx`, `node` and its options, …); chains this cannot see
 * (a wrapper script, another gateway) are caught by the process ancestry and
 * `MCPX_SERVER_CHAIN` instead (`host/self-reference.ts`).
 */
import { realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseEnvCommand } from './env-command.js';
import { isRunner, packageName, runnerStart, runtimeOf, runtimeScript } from './launchers.js';
import { shellCommands } from './shell-commands.js';

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
/** How deep wrappers may nest (`env sh -c "exec env …"`) before the line is given up on. */
const MAX_NESTING = 12;

/** Commands that run the rest of their arguments as a command after options of their own. */
const PREFIXES: Record<
  string,
  {
    readonly values?: readonly string[];
    readonly operands?: number;
    readonly runsNothing?: readonly string[];
  }
> = {
  exec: { values: ['-a'] },
  command: { runsNothing: ['-v', '-V'] },
  builtin: {},
  nohup: {},
  setsid: {},
  busybox: {},
  time: { values: ['-f', '--format', '-o', '--output'] },
  nice: { values: ['-n', '--adjustment'] },
  timeout: { values: ['-k', '--kill-after', '-s', '--signal'], operands: 1 },
  stdbuf: { values: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  sudo: {
    values: ['-u', '--user', '-g', '--group', '-C', '--close-from', '-D', '--chdir', '-h', '--host'],
    runsNothing: ['-l', '--list', '-v', '--validate', '-K', '-V', '--version', '-e', '--edit'],
  },
  doas: { values: ['-u', '-C'] },
};
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'posh']);
/** Reserved words that may come before a command in a shell line (`if mcpx …; then …`). */
const SHELL_KEYWORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  '!',
  '{',
  '}',
]);
/** A shell's idea of a PATH when the environment has none (execvp's and dash's default). */
const DEFAULT_SEARCH_PATH = '/usr/local/bin:/usr/bin:/bin';

/** What {@link runsMcpx} needs of an entry. */
export interface CommandLine {
  readonly command?: string | undefined;
  readonly args: readonly string[];
}

/** Where a command of the line starts: its folder and the PATH it is looked up on. */
export interface CommandPlace {
  /** The folder (default: the entry's cwd). */
  readonly cwd?: string | undefined;
  /** The PATH a bare command name is looked up on (default: the entry's own). */
  readonly path?: string | undefined;
}

/** The file-system look-ups the reading may make; each is optional. */
export interface FileLookup {
  /** The file a bare command name (or a path) runs, as the entry's PATH would find it. */
  readonly which?: (command: string, at: CommandPlace) => string | undefined;
  /** `path` with every link resolved, or `undefined` when it does not exist. */
  readonly realpath?: (path: string) => string | undefined;
}

/** Options of {@link runsMcpx}. */
export interface RunsMcpxOptions {
  /** The running mcpx's own script (`process.argv[1]`): a path to it is mcpx by any name. */
  readonly selfScript?: string | undefined;
  /** Folder relative script paths are resolved from (the entry's cwd). */
  readonly cwd?: string | undefined;
  /** Look-ups for links to mcpx under another name. Default: `realpath` only, no PATH search. */
  readonly files?: FileLookup;
}

interface Reading {
  readonly options: RunsMcpxOptions;
  readonly realpath: (path: string) => string | undefined;
  /** The running mcpx's script with its links resolved, looked up once. */
  readonly self: () => string | undefined;
}

interface Scene extends CommandPlace {
  readonly depth: number;
}

/**
 * How `entry` runs mcpx (`"mcpx"`, `"node …/mcpx.cjs"`, `"npx mcpx"`), or `undefined`
 * when it does not, as far as its command line shows.
 *
 * @example runsMcpx({ command: 'npx', args: ['-y', 'mcpx@latest', 'serve'] }) // 'npx mcpx'
 * @example runsMcpx({ command: 'env', args: ['-i', 'sh', '-c', 'exec mcpx serve'] }) // 'mcpx'
 */
export function runsMcpx(entry: CommandLine, options: RunsMcpxOptions = {}): string | undefined {
  if (!entry.command) return undefined;
  return check([entry.command, ...entry.args], reading(options), { cwd: options.cwd, depth: 0 });
}

/**
 * Whether a running process's command line (`/proc/<pid>/cmdline`) is mcpx itself — its
 * executable, or a runtime running its script — rather than something that would start it
 * (a wrapper, a package runner). `cwd` is that process's folder.
 *
 * @example isMcpxProcess(['node', '/usr/lib/node_modules/mcpx/dist/bin/mcpx.cjs', 'serve']) // true
 * @example isMcpxProcess(['sh', '-c', 'mcpx serve']) // false: its child will be
 */
export function isMcpxProcess(argv: readonly string[], options: RunsMcpxOptions = {}): boolean {
  const [command, ...args] = argv;
  if (command === undefined) return false;
  if (EXECUTABLE_NAMES.has(fileName(command))) return true;
  const runtime = runtimeOf(commandName(command));
  if (!runtime) return false;
  const script = runtimeScript(runtime, args);
  return script !== undefined && isMcpxScript(script, reading(options), { cwd: options.cwd, depth: 0 });
}

function reading(options: RunsMcpxOptions): Reading {
  const realpath = options.files?.realpath ?? realpathOrUndefined;
  let self: string | undefined | null = null;
  return {
    options,
    realpath,
    self: () => {
      if (self === null) self = options.selfScript ? realpath(options.selfScript) : undefined;
      return self;
    },
  };
}

function check(words: readonly string[], r: Reading, scene: Scene): string | undefined {
  const [command, ...args] = words;
  if (command === undefined || scene.depth > MAX_NESTING) return undefined;
  const inner: Scene = { ...scene, depth: scene.depth + 1 };
  const name = commandName(command);
  if (EXECUTABLE_NAMES.has(fileName(command))) return name === MCPX ? MCPX : command;
  if (name === 'env') return viaEnv(args, r, inner);
  if (SHELLS.has(name)) {
    const line = shellLine(args);
    return line && viaShellLine(line.line, line.params, r, inner);
  }
  if (name === 'cmd') return viaCmd(args, r, inner);
  if (name === 'powershell' || name === 'pwsh') return viaPowerShell(args, r, inner);
  if (isRunner(name, args)) return viaRunner(name, args, r, inner);
  const runtime = runtimeOf(name);
  if (runtime) {
    const script = runtimeScript(runtime, args);
    return script !== undefined && isMcpxScript(script, r, scene) ? `${name} ${script}` : undefined;
  }
  const prefix = own(PREFIXES, name);
  if (prefix) return viaPrefix(prefix, args, r, inner);
  return isMcpxCommand(command, r, scene) ? command : undefined;
}

/** `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… COMMAND …`, as GNU env reads it. */
function viaEnv(args: readonly string[], r: Reading, scene: Scene): string | undefined {
  const env = parseEnvCommand(args);
  if (!env) return undefined;
  const cleared = env.cleared || env.unset.includes('PATH');
  const path = env.set.PATH ?? (cleared ? DEFAULT_SEARCH_PATH : scene.path);
  const cwd = env.chdir === undefined ? scene.cwd : resolveFrom(scene.cwd, env.chdir);
  return check(env.command, r, { ...scene, cwd, path });
}

/**
 * The command string a shell's arguments give it (`-c`, `-lc`, `-ec`, `-o opt -c`, `--`), with
 * the words after it (`$0`, `$1`, …); `undefined` for a script file or standard input, which
 * this cannot read.
 */
function shellLine(args: readonly string[]): { line: string; params: readonly string[] } | undefined {
  let command = false;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--' || word === '-') {
      i++;
      break;
    }
    if (word.startsWith('--')) {
      if (word === '--help' || word === '--version') return undefined;
      if (word === '--rcfile' || word === '--init-file') i++;
      continue;
    }
    if (word.length < 2 || (word[0] !== '-' && word[0] !== '+')) break;
    for (const flag of word.slice(1)) {
      if (flag === 'c' && word[0] === '-') command = true;
      // `-o pipefail`, bash's `-O extglob`: the option's name is the next word.
      else if (flag === 'o' || flag === 'O') i++;
    }
  }
  const line = args[i];
  return command && line !== undefined ? { line, params: args.slice(i + 1) } : undefined;
}

/** Each command a shell line runs, with the folder `cd` and the PATH assignments leave it. */
function viaShellLine(line: string, params: readonly string[], r: Reading, scene: Scene): string | undefined {
  let { cwd, path } = scene;
  for (const command of shellCommands(line, params)) {
    let at = 0;
    while (at < command.length && SHELL_KEYWORDS.has(command[at] as string)) at++;
    let assignedPath: string | undefined;
    for (; at < command.length && /^[A-Za-z_]\w*=/.test(command[at] as string); at++) {
      const word = command[at] as string;
      if (word.startsWith('PATH=')) assignedPath = word.slice(5);
    }
    const [first, ...rest] = command.slice(at);
    if (first === undefined || first === 'export') {
      // `PATH=/x` or `export PATH=/x` alone: the PATH of the commands after it.
      const exported = rest.findLast((word) => word.startsWith('PATH='))?.slice(5);
      path = exported ?? assignedPath ?? path;
      continue;
    }
    if (first === 'cd') {
      const dir = rest.find((word) => !word.startsWith('-'));
      if (dir !== undefined) cwd = resolveFrom(cwd, dir);
      continue;
    }
    const here: Scene = { ...scene, cwd, path: assignedPath ?? path };
    const found =
      first === 'eval' ? viaShellLine(rest.join(' '), params, r, here) : check([first, ...rest], r, here);
    if (found) return found;
  }
  return undefined;
}

/**
 * `cmd /d /s /c "mcpx serve"`: the line after `/c` (or `/k`), its outer quotes taken off as cmd
 * takes them, split as a shell would (roughly: cmd's `&`, `&&`, `||` and `|` separate alike).
 */
function viaCmd(args: readonly string[], r: Reading, scene: Scene): string | undefined {
  const at = args.findIndex((word) => /^\/[ck]$/i.test(word));
  if (at < 0) return undefined;
  const line = args.slice(at + 1).join(' ');
  const unquoted = line.length > 1 && line.startsWith('"') && line.endsWith('"') ? line.slice(1, -1) : line;
  return viaShellLine(unquoted, [], r, scene);
}

/** `powershell -Command "mcpx serve"` (`-c`, `-command`, any prefix of it). */
function viaPowerShell(args: readonly string[], r: Reading, scene: Scene): string | undefined {
  const at = args.findIndex((word) => /^-c(o(m(m(a(n(d)?)?)?)?)?)?$/i.test(word));
  return at < 0 ? undefined : viaShellLine(args.slice(at + 1).join(' '), [], r, scene);
}

/** `exec`, `nohup`, `timeout 10`, `sudo -u x`, …: the command after their own options. */
function viaPrefix(
  prefix: (typeof PREFIXES)[string],
  args: readonly string[],
  r: Reading,
  scene: Scene,
): string | undefined {
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') {
      i++;
      break;
    }
    if (!word.startsWith('-') || word === '-') break;
    if (prefix.runsNothing?.includes(word)) return undefined;
    if (prefix.values?.includes(word)) i++;
  }
  return check(args.slice(i + (prefix.operands ?? 0)), r, scene);
}

/** `npx [-y] mcpx@…`, `npm exec -- mcpx`, `npx -p mcpx -c "mcpx serve"`, `pnpm dlx mcpx`, … */
function viaRunner(name: string, args: readonly string[], r: Reading, scene: Scene): string | undefined {
  const start = runnerStart(name, args);
  if (!start) return undefined;
  for (const line of start.shellLines) {
    const found = viaShellLine(line, [], r, scene);
    if (found) return found;
  }
  return start.packages.some((spec) => packageName(spec) === MCPX) ? `${start.via} ${MCPX}` : undefined;
}

/** A runtime's script that is mcpx: its name, `npm:mcpx@…`, or a path to the running mcpx. */
function isMcpxScript(script: string, r: Reading, scene: Scene): boolean {
  if (EXECUTABLE_NAMES.has(fileName(script))) return true;
  if (/^npm:/i.test(script)) return packageName(script.slice(4)) === MCPX;
  return isMcpxFile(resolveFrom(scene.cwd ?? r.options.cwd, script), r);
}

/** A command word that is mcpx under another name: a link to it, on PATH or by path. */
function isMcpxCommand(command: string, r: Reading, scene: Scene): boolean {
  const file = /[\\/]/.test(command)
    ? resolveFrom(scene.cwd ?? r.options.cwd, command)
    : r.options.files?.which?.(command, scene);
  return file !== undefined && isMcpxFile(file, r);
}

function isMcpxFile(file: string, r: Reading): boolean {
  if (r.options.selfScript !== undefined && file === r.options.selfScript) return true;
  const real = r.realpath(file);
  if (real === undefined) return false;
  return EXECUTABLE_NAMES.has(fileName(real)) || real === r.self();
}

function resolveFrom(cwd: string | undefined, path: string): string {
  return resolve(cwd ?? '.', path);
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The file name, without folders (either slash). */
function fileName(path: string): string {
  return basename(path.replaceAll('\\', '/')).toLowerCase();
}

/** The file name without folder or Windows extension, lower-cased where names ignore case. */
function commandName(command: string): string {
  return fileName(command).replace(/\.(exe|cmd|bat|ps1)$/i, '');
}

/** `record[key]` when it is the record's own (a command called `constructor` is no runtime). */
function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
