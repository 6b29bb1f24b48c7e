import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ServerConfig } from '../../config/index.js';
import { adhocHttpServer, adhocStdioServer } from '../../config/loading.js';
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

/** The ad-hoc server from --stdio or --url, if any, its flags checked. */
export function adhocServer(options: GlobalOptions, cwd: string): ServerConfig | undefined {
  const { stdio, url, sse } = options;
  if (stdio !== undefined && url !== undefined) {
    throw usageError('--stdio and --url each name the one ad-hoc server: give only one of them');
  }
  if (sse && url === undefined)
    throw usageError('--sse goes with --url', 'e.g. --url https://example.com/sse --sse');
  const { env, cwd: serverCwd, name } = adhocFlags(options, cwd);
  if (url !== undefined) return adhocHttpServer(url, sse ? 'sse' : 'http', name);
  if (stdio === undefined) {
    if (name !== undefined)
      throw usageError(
        '--name goes with --stdio or --url',
        'e.g. --stdio "npx -y @modelcontextprotocol/server-everything" --name everything',
      );
    return undefined;
  }
  return adhocStdioServer(stdio, serverCwd, { ...(env ? { env } : {}), ...(name ? { name } : {}) });
}
