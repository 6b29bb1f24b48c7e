/**
 * The errors a stdio server's life can end in, classified where they happen
 * (spawn error codes, exit status, our own framing), each with the causes and
 * fixes a person can act on. stderr lines are only read to suggest causes,
 * never to choose the error code.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { findOnPath } from './resolve-command.js';
import { diagnoseNpxDamage } from './runner/npx-damage.js';
import { getEnv } from './safe-env.js';

/** What every stdio error names. */
export interface StdioErrorScene {
  readonly serverName: string;
  /** The command as configured, and its arguments. */
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string | undefined;
  /** The environment the server was given. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
}

const commandLine = (scene: StdioErrorScene) => [scene.command, ...scene.args].join(' ');

function baseName(command: string): string {
  return (command.split(/[\\/]/).pop() ?? command).replace(/\.(exe|cmd|bat|com)$/i, '').toLowerCase();
}

function installHints(command: string, platform: NodeJS.Platform): string[] {
  const name = baseName(command);
  const hints: string[] = [];
  if (name === 'npx' || name === 'node' || name === 'npm') {
    hints.push(
      `${name} comes with Node.js: install Node.js 20 or later (https://nodejs.org) and open a new terminal`,
    );
  } else if (name === 'uvx' || name === 'uv') {
    hints.push(`${name} comes with uv: install it (https://docs.astral.sh/uv/getting-started/installation/)`);
  } else if (name === 'python' || name === 'python3') {
    hints.push(`install Python 3, or use the full path of the interpreter (a virtualenv's bin/python)`);
  } else if (name === 'docker') {
    hints.push('install Docker (https://docs.docker.com/get-docker/) and make sure the daemon is running');
  }
  if (platform === 'win32') {
    hints.push(
      `on Windows, '${name}' may really be '${name}.cmd': mcpx finds it through PATHEXT, which is in the safe ` +
        'environment by default — make sure `env` does not override PATHEXT, or give the full path ' +
        `(for example "C:\\\\Program Files\\\\nodejs\\\\${name}.cmd")`,
    );
  }
  return hints;
}

/** start() failed: the server could not be spawned at all. */
export function spawnError(error: NodeJS.ErrnoException, scene: StdioErrorScene): McpxError {
  const { serverName, command, cwd, platform } = scene;
  const context = {
    server: serverName,
    command: commandLine(scene),
    cause: error,
  };
  if (error.code === 'ENOENT' && cwd !== undefined && !existsSync(cwd)) {
    return new McpxError(
      ErrorCode.SpawnFailed,
      `cannot start server '${serverName}': its working directory '${cwd}' does not exist`,
      { ...context, field: 'cwd', fixes: ['fix `cwd` in the server config, or create the directory'] },
    );
  }
  if (error.code === 'ENOENT') {
    const serverPath = getEnv(scene.env, 'PATH', platform) ?? '';
    const relative = /[\\/]/.test(command) && !isAbsolute(command);
    const causes = [
      relative
        ? `'${command}' does not exist (a relative command is resolved against cwd: ${cwd ?? process.cwd()})`
        : `'${command}' is not installed, or not in any directory of the PATH the server gets`,
      serverPath ? `the server's PATH is: ${serverPath}` : 'the server gets no PATH at all',
    ];
    return new McpxError(
      ErrorCode.CommandNotFound,
      `cannot start server '${serverName}': command '${command}' not found`,
      {
        ...context,
        ...(cwd ? { excerpt: [`cwd: ${cwd}`] } : {}),
        causes,
        fixes: [
          ...installHints(command, platform),
          `give the full path of '${command}' as the command, or add its directory to PATH`,
        ],
      },
    );
  }
  if (error.code === 'EACCES' || error.code === 'EPERM') {
    const file = findOnPath(command, {
      env: scene.env,
      platform,
      ...(cwd ? { cwd } : {}),
      fileExists: existsSync,
    });
    return new McpxError(
      ErrorCode.SpawnPermissionDenied,
      `cannot start server '${serverName}': permission denied running '${command}'`,
      {
        ...context,
        causes: [
          'the file is not executable',
          'a directory of that name comes first on PATH',
          'the file system is mounted noexec',
        ],
        fixes:
          platform === 'win32'
            ? ['check that the file is a program or script Windows can run, and that you may read it']
            : [
                `make it executable: chmod +x ${file ?? command}`,
                'or run it through its interpreter (node, python3, sh)',
              ],
      },
    );
  }
  return new McpxError(
    ErrorCode.SpawnFailed,
    `cannot start server '${serverName}': ${error.code ?? 'spawn failed'}: ${error.message}`,
    { ...context, fixes: [`run the command by hand to see what happens: ${commandLine(scene)}`] },
  );
}

interface Hint {
  readonly test: RegExp;
  readonly cause: (line: string) => string;
  readonly fix: (line: string) => string;
}

const CREDENTIAL_NAME = /\b([A-Z][A-Z0-9_]*(?:API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD))\b/;

const HINTS: readonly Hint[] = [
  {
    test: /api[ _-]?key|access[ _-]?token|\bcredentials?\b|unauthori[sz]ed|\b401\b|_TOKEN\b|_SECRET\b/i,
    cause: () => 'the server needs a credential (API key or token) it did not get',
    fix: (line) => {
      const name = CREDENTIAL_NAME.exec(line)?.[1];
      const variable = name ? `${name}` : 'the variable';
      return (
        `set ${variable} in the server's \`env\` in the config, or name it in \`env_passthrough\` ` +
        '(mcpx passes only a small safe set of host variables by default)'
      );
    },
  },
  {
    test: /ECONNREFUSED|connection refused/i,
    cause: () => 'a service the server connects to is not running (connection refused)',
    fix: () => "start that service, or check the host and port in the server's `env` and `args`",
  },
  {
    test: /EADDRINUSE|address already in use/i,
    cause: () => 'a port the server wants is already in use',
    fix: () => 'stop the other process using the port, or configure the server to use another',
  },
  {
    test: /command not found|is not recognized as an internal or external command|\bspawn \S+ ENOENT/i,
    cause: () => 'the server tried to run a program that is not installed or not on its PATH',
    fix: () => 'install that program, or give the server the PATH it needs in `env` (or `env_passthrough`)',
  },
  {
    test: /Cannot find module|ERR_MODULE_NOT_FOUND|ModuleNotFoundError|No module named/i,
    cause: () => 'a module or package the server needs is missing',
    fix: () => "install the server's dependencies (npm install / pip install), or check the path in `args`",
  },
  {
    test: /npm (ERR!|error) (code )?E404|404 Not Found - GET https:\/\/registry/i,
    cause: () => 'the npm package does not exist (check its name in `args`)',
    fix: () => 'check the package name and version in `args`',
  },
];

/** Likely causes and fixes suggested by a crashed server's last stderr lines. */
export function hintsFromStderr(lines: readonly string[]): { causes: string[]; fixes: string[] } {
  const causes: string[] = [];
  const fixes: string[] = [];
  for (const hint of HINTS) {
    const line = lines.find((l) => hint.test.test(l));
    if (line === undefined) continue;
    causes.push(hint.cause(line));
    fixes.push(hint.fix(line));
  }
  return { causes, fixes };
}

/** The server exited, or was killed, while the transport was open. */
export function exitError(
  scene: StdioErrorScene,
  exit: { readonly code: number | null; readonly signal: NodeJS.Signals | null },
  stderrTail: readonly string[],
  invalidStdoutLine?: string,
  exitedBeforeInput = false,
): McpxError {
  const { serverName } = scene;
  // A killed npx install's folder: `npm install` advice cannot help, removing the folder does.
  const damaged = diagnoseNpxDamage(scene, stderrTail, {
    command: commandLine(scene),
    exitCode: exit.code,
    signal: exit.signal,
  });
  if (damaged) return damaged;
  const hints = hintsFromStderr(
    invalidStdoutLine === undefined ? stderrTail : [...stderrTail, invalidStdoutLine],
  );
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const causes = [...hints.causes];
  if (invalidStdoutLine !== undefined) {
    causes.push(
      `it wrote to stdout a line that is not JSON-RPC, so it may not be an MCP stdio server (or it needs a flag to speak MCP on stdio): ${preview(invalidStdoutLine)}`,
    );
  }
  if (exit.signal === 'SIGKILL')
    causes.push('it was killed from outside — often by the out-of-memory killer');
  if (causes.length === 0) {
    causes.push(
      stderrTail.length > 0
        ? 'the server reported an error (see its last stderr lines)'
        : 'the server failed without writing anything to stderr',
    );
  }
  const fixes = [...hints.fixes, `run the command by hand to see its whole output: ${commandLine(scene)}`];
  // Exit code 0 with nobody asking is a server that stopped serving, not a crash.
  const clean = exit.code === 0 && exit.signal === null;
  return new McpxError(
    clean ? ErrorCode.ConnectionClosed : ErrorCode.ServerCrashed,
    clean ? `server '${serverName}' exited unexpectedly (code 0)` : `server '${serverName}' ${how}`,
    {
      server: serverName,
      command: commandLine(scene),
      exitCode: exit.code,
      signal: exit.signal,
      stderrTail,
      ...(exitedBeforeInput ? { exitedBeforeInput } : {}),
      causes,
      fixes,
    },
  );
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

/** A line on stdout went past `max_line_bytes`; the transport closes. */
export function messageTooLargeError(
  scene: StdioErrorScene,
  limit: number,
  stderrTail: readonly string[],
): McpxError {
  return new McpxError(
    ErrorCode.MessageTooLarge,
    `server '${scene.serverName}' sent a message larger than the ${formatBytes(limit)} limit`,
    {
      server: scene.serverName,
      command: commandLine(scene),
      stderrTail,
      causes: [
        'the server returned a very large result (a big file, a long listing)',
        'the server writes something other than JSON-RPC to stdout without line breaks',
      ],
      fixes: [
        `raise the limit with "max_line_bytes" for this server in the config (now ${limit}; ` +
          `for example "max_line_bytes": ${limit * 4})`,
        'ask the server for less at a time (pagination, a smaller range)',
      ],
    },
  );
}

/**
 * A reply to `method` longer than `max_line_bytes`: that request fails, the connection
 * stays (the line was read to its end and dropped, so the stream is still in step).
 * LIST_TOO_LARGE for a list, MESSAGE_TOO_LARGE for anything else.
 */
export function replyTooLargeError(
  scene: StdioErrorScene,
  method: string,
  bytes: number,
  limit: number,
): McpxError {
  const list = /\/list$/.test(method);
  // A list too large to read is a list too large, as one past the caps of a list walk is.
  return new McpxError(
    list ? ErrorCode.ListTooLarge : ErrorCode.MessageTooLarge,
    `server '${scene.serverName}' answered ${method} with a ${formatSize(bytes)} message, ` +
      `over the ${formatBytes(limit)} limit on one message`,
    {
      server: scene.serverName,
      command: commandLine(scene),
      causes: [
        list
          ? `the server sends its whole list in one page, and the list is very large (many items, or long descriptions and schemas)`
          : 'the server returned a very large result (a big file, a long listing)',
      ],
      fixes: [
        `raise the limit for this server: "max_line_bytes": ${roomFor(bytes)} in its config entry (now ${limit})`,
        list
          ? "ask the server's authors to paginate the list, or disable tools it need not offer"
          : 'ask the server for less at a time (pagination, a smaller range)',
      ],
    },
  );
}

/** A limit with room for `bytes`: the next power of two at least a quarter above it. */
function roomFor(bytes: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, bytes * 1.25)));
}

/** A size as people read it, to one decimal. */
function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

/**
 * The server wrote to stdout, and none of it was a JSON-RPC message, for `graceMs` after
 * mcpx first asked it something: it is no MCP server on stdio, or it logs to stdout.
 */
export function notMcpOnStdioError(
  scene: StdioErrorScene,
  firstOutput: string,
  graceMs: number,
  stderrTail: readonly string[],
): McpxError {
  const seconds = graceMs / 1000;
  return new McpxError(
    ErrorCode.InvalidServerOutput,
    `server '${scene.serverName}' does not speak MCP on stdio: in ${seconds} s it wrote only this to ` +
      `stdout, and no JSON-RPC message: ${JSON.stringify(firstOutput)}`,
    {
      server: scene.serverName,
      command: commandLine(scene),
      stderrTail,
      causes: [
        'the command is not an MCP server on stdio: another program, or a server serving HTTP unless told otherwise',
        'it is an MCP server that writes its logs or a banner to stdout (where only JSON-RPC messages belong) and was not answering',
      ],
      fixes: [
        `run the command by hand to see what it prints: ${commandLine(scene)}`,
        'give it the flag it needs to speak MCP on stdio (often --stdio), or use its "url" instead',
        'make it log to stderr; mcpx keeps stderr for error reports',
      ],
    },
  );
}

/** Longest excerpt of a bad line kept in an error message. */
const PREVIEW_CHARS = 200;

function preview(line: string): string {
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}… (${line.length} chars)` : line;
}

/** A stdout line that is not a JSON-RPC message (reported, the transport stays open). */
export function invalidLineError(scene: StdioErrorScene, line: string, reason: string): McpxError {
  return new McpxError(
    ErrorCode.InvalidServerOutput,
    `server '${scene.serverName}' wrote a line to stdout that is not a JSON-RPC message (${reason}): ${preview(line)}`,
    {
      server: scene.serverName,
      command: commandLine(scene),
      causes: ['the server prints logs or banners to stdout, where only JSON-RPC messages belong'],
      fixes: ['configure the server to log to stderr (or quietly); the line was ignored'],
    },
  );
}

/**
 * A line that answers `method` (it names its id, or it was the only request
 * waiting) but is not a valid JSON-RPC message; without `method`, a line that
 * looks like a reply to no request mcpx can tell.
 */
export function malformedReplyError(
  scene: StdioErrorScene,
  method: string | undefined,
  line: string,
  reason: string,
): McpxError {
  const what = method
    ? `answered ${method} with a malformed line`
    : 'wrote a malformed JSON-RPC message to stdout';
  return new McpxError(
    ErrorCode.MalformedReply,
    `server '${scene.serverName}' ${what} (${reason}): ${preview(line)}`,
    {
      server: scene.serverName,
      command: commandLine(scene),
      causes: [
        'a bug in the server: its reply is cut short, or not the JSON-RPC 2.0 shape',
        'the server writes other output into the middle of its replies on stdout',
      ],
      fixes: ["report the line above to the server's authors", 'try a newer version of the server'],
    },
  );
}

/** send() on a transport whose server is gone or not started. */
export function notConnectedError(scene: StdioErrorScene, reason: McpxError | undefined): McpxError {
  return new McpxError(ErrorCode.ConnectionClosed, `server '${scene.serverName}' is not running`, {
    server: scene.serverName,
    command: commandLine(scene),
    ...(reason ? { cause: reason, stderrTail: reason.context.stderrTail ?? [] } : {}),
  });
}
