import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { type GlobalOptions, usageError } from './global-options.js';

/** `--env`, `--cwd` and `--name` checked and read, for the ad-hoc server of --stdio or --url. */
export interface AdhocFlags {
  readonly env?: Record<string, string>;
  /** Absolute; the current directory when --cwd is not given. */
  readonly cwd: string;
  readonly name?: string;
}

/**
 * Read the ad-hoc server's flags. `--env` and `--cwd` only mean something for
 * a server mcpx starts, so they need `--stdio`; a `--cwd` that is not a
 * directory is caught here rather than as a confusing spawn failure.
 *
 * @throws McpxError(Usage) for a flag without its server, `--env` without `=`, or a bad `--cwd`/`--name`.
 */
export function adhocFlags(options: GlobalOptions, cwd: string): AdhocFlags {
  const stdio = options.stdio !== undefined;
  for (const [flag, given] of [
    ['--env', options.env !== undefined],
    ['--cwd', options.cwd !== undefined],
  ] as const) {
    if (given && !stdio)
      throw usageError(
        `${flag} goes with --stdio`,
        `e.g. --stdio "node server.js" ${flag === '--env' ? '--env API_KEY=…' : '--cwd ./project'}`,
      );
  }
  let env: Record<string, string> | undefined;
  for (const pair of options.env ?? []) {
    const at = pair.indexOf('=');
    const key = at > 0 ? pair.slice(0, at) : '';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      throw usageError(
        `--env takes KEY=VALUE with a variable name before '=', got '${pair}'`,
        'e.g. --env API_KEY=secret --env DEBUG=1',
      );
    }
    env = { ...env, [key]: pair.slice(at + 1) };
  }
  const dir = resolve(cwd, options.cwd ?? '.');
  if (options.cwd !== undefined && !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw usageError(`--cwd: ${dir} is not a directory`, 'give an existing directory, e.g. --cwd .');
  }
  const { name } = options;
  if (name !== undefined && !/^[A-Za-z0-9_-]+$/.test(name)) {
    throw usageError(
      `--name '${name}' may hold only letters, digits, '_' and '-' (it is typed as <name>.<tool>)`,
      'e.g. --name everything',
    );
  }
  return { ...(env ? { env } : {}), cwd: dir, ...(name !== undefined ? { name } : {}) };
}
