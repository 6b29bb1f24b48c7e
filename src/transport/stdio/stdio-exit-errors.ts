/**
 * How a stdio server failed to start or ended unasked (spawn error codes, exit status), each with
 * the causes and fixes a person can act on. stderr lines are only read to suggest causes, never
 * to choose the error code. Loaded by the transport only when a spawn fails or a server exits
 * unasked (see stdio-transport.ts): a call that ends well never compiles these texts.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { findOnPath } from './resolve-command.js';
import { diagnoseNpxDamage } from './runner/npx-damage.js';
import { getEnv } from './safe-env.js';
import { commandLine, preview, type StdioErrorScene } from './stdio-errors.js';

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
