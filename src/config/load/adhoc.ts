import { basename } from 'node:path';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { splitCommandLine } from '../command-line/split-command-line.js';
import { urlProblem } from '../entry/check-url.js';
import { fingerprintEntry } from '../entry/fingerprint.js';
import { SERVER_DEFAULTS } from '../entry/server-defaults.js';
import type { ServerConfig, TransportKind } from '../types.js';

// Launchers whose own name says nothing about the server; the package or script after them does.
const LAUNCHERS = new Set([
  'npx',
  'pnpx',
  'bunx',
  'uvx',
  'pipx',
  'node',
  'deno',
  'bun',
  'python',
  'python3',
  'uv',
  'pnpm',
  'yarn',
  'npm',
]);
const SUBCOMMANDS = new Set(['run', 'dlx', 'exec', 'x']);

const DEFAULTS = { ...SERVER_DEFAULTS, origin: { layer: 'adhoc' } } as const;

/** What `--env`, `--cwd` and `--name` add to an ad-hoc server. */
export interface AdhocStdioOptions {
  /** Variables set for the server, on top of the safe default environment (`--env K=V`). */
  readonly env?: Readonly<Record<string, string>>;
  /** The name to use instead of the one derived from the command (`--name`). */
  readonly name?: string;
}

/**
 * A server from `--stdio "cmd args"`: the line is split like a shell would
 * (quotes and backslashes respected, nothing expanded or executed) and run in
 * `cwd`. Named after what it runs: `npx -y @scope/server-foo` → `server-foo`,
 * `python3 my_server.py` → `my_server`, else the command's basename.
 *
 * @throws McpxError(Usage) for an empty line or an unterminated quote.
 */
export function adhocStdioServer(
  commandLine: string,
  cwd: string,
  options: AdhocStdioOptions = {},
): ServerConfig {
  const words = splitCommandLine(commandLine);
  const [command, ...args] = words;
  if (command === undefined || command === '') {
    throw new McpxError(ErrorCode.Usage, '--stdio needs a command to run', {
      fixes: ['for example: --stdio "npx -y @modelcontextprotocol/server-everything"'],
    });
  }
  const env = options.env ?? {};
  return {
    ...DEFAULTS,
    name: options.name ?? adhocName(words),
    transport: 'stdio',
    command,
    args,
    env,
    cwd,
    fingerprint: fingerprintEntry({ command, args, cwd, env }),
  };
}

/**
 * A server from `--url URL`, named after its host (`mcp.example.com` →
 * `mcp-example-com`). `type` defaults to Streamable HTTP.
 *
 * @throws McpxError(Usage) when the URL is not an http(s) URL.
 */
export function adhocHttpServer(
  url: string,
  type: Exclude<TransportKind, 'stdio'> = 'http',
  name?: string,
): ServerConfig {
  const problem = urlProblem(url);
  if (problem) {
    throw new McpxError(ErrorCode.Usage, `--url: ${problem}`, {
      fixes: ['for example: --url https://example.com/mcp'],
    });
  }
  return {
    ...DEFAULTS,
    name: name ?? sanitize(new URL(url).hostname),
    transport: type,
    url,
    fingerprint: fingerprintEntry({ url }),
  };
}

function adhocName(words: readonly string[]): string {
  const [command = '', ...rest] = words;
  const commandName = stripExtension(basename(command.replace(/\\/g, '/')));
  let subject = command;
  if (LAUNCHERS.has(commandName.toLowerCase())) {
    const found = rest.find((w) => !w.startsWith('-') && !SUBCOMMANDS.has(w));
    if (found) subject = found;
  }
  // `@scope/pkg@1.2.3` → `pkg`; `./bin/server.js` → `server`.
  const withoutVersion = subject.replace(/(?<=.)@[^/@]*$/, '');
  return sanitize(stripExtension(basename(withoutVersion.replace(/\\/g, '/'))));
}

function stripExtension(name: string): string {
  return name.replace(/\.(?:[cm]?js|ts|py|exe|cmd|bat|sh)$/i, '');
}

/** Names become `server.tool` on the command line: letters, digits, `_` and `-` only. */
function sanitize(name: string): string {
  const clean = name
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
  return clean === '' ? 'adhoc' : clean;
}
