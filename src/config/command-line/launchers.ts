/**
 * What a runtime (`node`, `deno`, `bun`) or a package runner (`npx`, `npm exec`, `pnpm dlx`,
 * `bunx`, `yarn dlx`) runs, read from its arguments as it reads them: the script after the
 * runtime's own options (and their values), the packages a runner installs and runs, and the
 * command lines it hands to a shell (`npx -c "…"`, `pnpm dlx -c …`).
 */

/** Runtimes that run a script, and their options whose value is the next word. */
const RUNTIMES: Record<
  string,
  { readonly values: ReadonlySet<string>; readonly noScript: ReadonlySet<string> }
> = {
  node: {
    values: new Set([
      '-r',
      '--require',
      '--import',
      '--loader',
      '--experimental-loader',
      '-C',
      '--conditions',
      '--env-file',
      '--env-file-if-exists',
      '--inspect-port',
      '--debug-port',
      '--title',
      '--input-type',
      '--watch-path',
      '--disable-warning',
      '--redirect-warnings',
      '--report-dir',
      '--report-directory',
      '--report-filename',
      '--diagnostic-dir',
      '--cpu-prof-dir',
      '--cpu-prof-name',
      '--heap-prof-dir',
      '--heap-prof-name',
      '--icu-data-dir',
      '--openssl-config',
      '--allow-fs-read',
      '--allow-fs-write',
      '--experimental-config-file',
      '--localstorage-file',
      '--snapshot-blob',
      '--test-reporter',
      '--test-reporter-destination',
      '--unhandled-rejections',
      '--dns-result-order',
      '--trace-event-categories',
      '--trace-event-file-pattern',
      '--tls-cipher-list',
      '--tls-keylog',
      '--use-largepages',
      '--stack-trace-limit',
    ]),
    // Code from the command line, a syntax check, a package.json script, tests: no script runs as main.
    noScript: new Set([
      '-e',
      '--eval',
      '-p',
      '--print',
      '-c',
      '--check',
      '--run',
      '--test',
      '-v',
      '--version',
      '-h',
      '--help',
    ]),
  },
  deno: {
    values: new Set([
      '-c',
      '--config',
      '--import-map',
      '--lock',
      '--cert',
      '--location',
      '--seed',
      '-L',
      '--log-level',
    ]),
    noScript: new Set(['--version', '-V', '--help', '-h', '--eval']),
  },
  bun: {
    values: new Set(['-r', '--preload', '--cwd', '-c', '--config', '--env-file', '--tsconfig-override']),
    noScript: new Set(['-e', '--eval', '-p', '--print', '--version', '-v', '--help', '-h']),
  },
};
/** Other names of a runtime. */
const RUNTIME_ALIASES: Record<string, string> = { nodejs: 'node' };
/** Package runners: the words before the package, the options whose value is a package or a shell line. */
const RUNNERS: Record<string, { readonly sub?: readonly string[]; readonly shellFlag?: boolean }> = {
  npx: {},
  pnpx: {},
  bunx: {},
  npm: { sub: ['exec', 'x'] },
  pnpm: { sub: ['dlx', 'exec'], shellFlag: true },
  yarn: { sub: ['dlx', 'exec'] },
  bun: { sub: ['x'] },
};
/** npm's, pnpm's and yarn's options that take the next word as their value. */
const RUNNER_VALUE_OPTIONS = new Set([
  '--cache',
  '--registry',
  '--userconfig',
  '--globalconfig',
  '--loglevel',
  '--workspace',
  '-w',
  '--prefix',
  '--script-shell',
  '--node-options',
  '--dir',
  '-C',
]);
const PACKAGE_OPTIONS = new Set(['-p', '--package']);
/** npm's option whose value is a command line run in a shell with the packages installed. */
const CALL_OPTIONS = new Set(['-c', '--call']);

/** A runtime's option rules. */
export type Runtime = (typeof RUNTIMES)[string];

/** The runtime a command name is (`nodejs` is `node`), if it is one. */
export function runtimeOf(name: string): Runtime | undefined {
  return own(RUNTIMES, own(RUNTIME_ALIASES, name) ?? name);
}

/** The script a runtime's arguments run (`node [options] script`, `deno run … npm:x`), if any. */
export function runtimeScript(runtime: Runtime, args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') return args[i + 1];
    const [option, attached] = splitOption(word);
    if (runtime.noScript.has(option)) return undefined;
    if (!word.startsWith('-') || word === '-') {
      // `deno run script`, `bun run script`.
      return word === 'run' && runtime !== RUNTIMES.node ? runtimeScript(runtime, args.slice(i + 1)) : word;
    }
    if (runtime.values.has(option) && attached === undefined) i++;
  }
  return undefined;
}

/** What a package runner's command line runs. */
export interface RunnerStart {
  /** The runner as a person would name it: `npx`, `npm exec`, `pnpm dlx`. */
  readonly via: string;
  /** The package specs it installs or runs (`mcpx@1`, `@scope/x`), as written. */
  readonly packages: readonly string[];
  /** Command lines it runs in a shell with those packages installed. */
  readonly shellLines: readonly string[];
}

/** Whether a command name is a package runner (`bun` only as `bun x`). */
export function isRunner(name: string, args: readonly string[]): boolean {
  return name === 'bun' ? args[0] === 'x' : own(RUNNERS, name) !== undefined;
}

/**
 * What the package runner `name` runs with `args`, or `undefined` when these arguments do not
 * run a package (`npm run x`, `pnpm install`).
 *
 * @example runnerStart('npx', ['-y', '-p', 'mcpx', '-c', 'mcpx serve'])
 * // { via: 'npx', packages: ['mcpx'], shellLines: ['mcpx serve'] }
 */
export function runnerStart(name: string, args: readonly string[]): RunnerStart | undefined {
  const runner = own(RUNNERS, name);
  if (!runner) return undefined;
  let rest = args;
  let via = name;
  if (runner.sub) {
    const at = firstOperand(rest, RUNNER_VALUE_OPTIONS);
    const sub = at === undefined ? undefined : rest[at];
    if (sub === undefined || !runner.sub.includes(sub)) return undefined;
    via = `${name} ${sub}`;
    rest = rest.slice((at as number) + 1);
  }
  const packages: string[] = [];
  const shellLines: string[] = [];
  let shellMode = false;
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i] as string;
    const [option, attached] = splitOption(word);
    if (word === '--') {
      if (rest[i + 1] !== undefined) packages.push(rest[i + 1] as string);
      break;
    }
    if (PACKAGE_OPTIONS.has(option)) {
      const spec = attached ?? rest[++i];
      if (spec !== undefined) packages.push(spec);
    } else if (CALL_OPTIONS.has(option) && !runner.shellFlag) {
      const line = attached ?? rest[++i];
      if (line !== undefined) shellLines.push(line);
    } else if (runner.shellFlag && (word === '-c' || word === '--shell-mode')) {
      shellMode = true;
    } else if (RUNNER_VALUE_OPTIONS.has(option)) {
      if (attached === undefined) i++;
    } else if (!word.startsWith('-')) {
      (shellMode ? shellLines : packages).push(word);
      break;
    }
  }
  return { via, packages, shellLines };
}

/** `mcpx@1.2.3` → `mcpx`; `@scope/name@1` → `@scope/name`; `npm:mcpx@1` → `mcpx`. */
export function packageName(spec: string): string {
  const bare = spec.replace(/^npm:/i, '');
  const at = bare.indexOf('@', 1);
  return (at < 0 ? bare : bare.slice(0, at)).toLowerCase();
}

/** The index of the first argument that is not an option (nor an option's value). */
function firstOperand(args: readonly string[], valueOptions: ReadonlySet<string>): number | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') return i + 1 < args.length ? i + 1 : undefined;
    if (!word.startsWith('-')) return i;
    if (valueOptions.has(word)) i++;
  }
  return undefined;
}

/** `--name=value` → `['--name', 'value']`; anything else → `[word, undefined]`. */
function splitOption(word: string): [string, string | undefined] {
  const equals = word.startsWith('--') ? word.indexOf('=') : -1;
  return equals < 0 ? [word, undefined] : [word.slice(0, equals), word.slice(equals + 1)];
}

/** `record[key]` when it is the record's own (a command called `constructor` is no runtime). */
function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
