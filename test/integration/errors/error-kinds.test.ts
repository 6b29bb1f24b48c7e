/**
 * Every error kind of PRODUCT §6, produced by the real code path (config
 * loader, stdio transport, HTTP transport, client) and rendered both ways:
 * the one line a person sees by default and the full `--verbose` block.
 * Each must say what happened, where (server, config file and layer), why,
 * and how to fix it.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { locate } from '../../../src/client/locate.js';
import { connectServer } from '../../../src/client/server-connection.js';
import { createServerTransport } from '../../../src/client/transport-factory.js';
import { loadConfig, markApproved } from '../../../src/config/index.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { ErrorCode, formatError, McpxError } from '../../../src/errors/index.js';
import { startHttpTestServer } from '../../../src/testing/http-test-server.js';
import { spawnError } from '../../../src/transport/stdio/stdio-errors.js';
import { tempDir as makeTempDir, testServerPath } from '../../helpers/cli.js';

const closers: (() => Promise<unknown>)[] = [];

async function tempDir(): Promise<string> {
  const dir = await makeTempDir('mcpx-errors-');
  closers.push(dir.remove);
  return dir.path;
}
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => {})));
});

/** A project directory with `.mcp.json` holding `servers`, loaded as the project layer. */
async function project(
  servers: Record<string, unknown>,
): Promise<{ file: string; load: () => Promise<readonly ServerConfig[]> }> {
  const dir = await tempDir();
  const file = join(dir, '.mcp.json');
  await writeFile(file, `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
  return {
    file,
    // A project file's entries, taken as approved: these tests are about what a failure says.
    load: async () =>
      (
        await loadConfig({ cwd: dir, env: {}, home: join(dir, 'home'), includeBuiltin: false })
      ).unapproved.map(markApproved),
  };
}

async function serverFrom(servers: Record<string, unknown>, name: string) {
  const { file, load } = await project(servers);
  const server = (await load()).find((s) => s.name === name);
  if (!server) throw new Error(`no server ${name} in the loaded config`);
  return { file, server };
}

/** Connect and return the failure (the test fails if the connect succeeds). */
async function connectFailure(
  server: ServerConfig,
  options: {
    hostEnv?: Record<string, string | undefined>;
    platform?: NodeJS.Platform;
    connectTimeoutMs?: number;
  } = {},
): Promise<McpxError> {
  try {
    const connection = await connectServer(server, {
      createTransport: () =>
        createServerTransport(server, {
          hostEnv: options.hostEnv ?? process.env,
          ...(options.platform ? { platform: options.platform } : {}),
          http: { sleep: () => Promise.resolve() },
        }),
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      requestTimeoutMs: 5_000,
    });
    closers.push(() => connection.close());
  } catch (error) {
    expect(error).toBeInstanceOf(McpxError);
    return error as McpxError;
  }
  throw new Error(`expected connecting to '${server.name}' to fail`);
}

async function loadFailure(text: string): Promise<{ error: McpxError; file: string }> {
  const dir = await tempDir();
  // mcpx's own project file: strict, unlike Claude Code's shared `.mcp.json`.
  const file = join(dir, '.mcpx', 'mcp.json');
  await mkdir(join(dir, '.mcpx'));
  await writeFile(file, text);
  try {
    await loadConfig({ cwd: dir, env: {}, home: join(dir, 'home'), includeBuiltin: false });
  } catch (error) {
    expect(error).toBeInstanceOf(McpxError);
    return { error: error as McpxError, file };
  }
  throw new Error('expected the config to be rejected');
}

interface Expected {
  readonly code: ErrorCode;
  readonly server?: string;
  readonly file: string;
  readonly line?: number;
  /** Facts the one-line rendering must carry besides server, file and fix. */
  readonly oneLine: readonly (string | RegExp)[];
  /** Facts only the verbose block must carry (causes, stderr, hints). */
  readonly verbose: readonly (string | RegExp)[];
}

function expectRenderings(error: McpxError, expected: Expected): void {
  expect(error.code).toBe(expected.code);
  const line = formatError(error);
  const block = formatError(error, { verbose: true });

  expect(line).not.toContain('\n');
  expect(line.startsWith('error: ')).toBe(true);
  if (expected.server) expect(line).toContain(expected.server);
  expect(line).toContain(expected.file);
  expect(line).toContain('(project config)');
  expect(error.fixes.length).toBeGreaterThan(0);
  expect(line).toContain(error.fixes[0]);
  for (const fact of expected.oneLine) expect(line).toMatch(fact);

  expect(block).toContain(`error [${expected.code}]`);
  if (expected.server) expect(block).toMatch(new RegExp(`\\n  server\\s+${expected.server}\\n`));
  const position = expected.line === undefined ? '' : `:${expected.line}`;
  expect(block).toMatch(
    new RegExp(`\\n  config\\s+${escapeRegExp(expected.file)}${position}\\S* \\(project config\\)`),
  );
  expect(block).toContain('  to fix:\n');
  for (const fix of error.fixes) expect(block).toContain(`    - ${fix}`);
  for (const fact of expected.verbose) expect(block).toMatch(fact);
  expect(block).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m); // no stack trace by default
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('every error kind renders as one line and as the full story', () => {
  it('invalid JSON in a config file: line, column, the line itself with a pointer', async () => {
    const { error, file } = await loadFailure(
      '{\n  "mcpServers": {\n    "db": { "command": "x", }\n    "oops"\n  }\n}\n',
    );
    expectRenderings(error, {
      code: ErrorCode.ConfigInvalidJson,
      file,
      line: 4,
      oneLine: [/:4:\d+/],
      verbose: [/"oops"/, /\^/],
    });
  });

  it('invalid config: the field, expected vs given, and a suggestion', async () => {
    const { error, file } = await loadFailure(
      JSON.stringify({ mcpServers: { db: { command: 'node', args: 'server.js' } } }, null, 2),
    );
    expectRenderings(error, {
      code: ErrorCode.ConfigInvalid,
      server: 'db',
      file,
      oneLine: [/args/],
      verbose: [/expected\s+.*array/i, /received\s+.*string/i],
    });
  });

  it('an unknown key gets a did-you-mean suggestion', async () => {
    const { error, file } = await loadFailure(
      JSON.stringify({ mcpServers: { db: { command: 'node', argz: ['x'] } } }, null, 2),
    );
    expectRenderings(error, {
      code: ErrorCode.ConfigInvalid,
      server: 'db',
      file,
      oneLine: [/argz/, /args/],
      verbose: [/argz/],
    });
  });

  it('missing transport: neither command nor url', async () => {
    const { error, file } = await loadFailure(
      JSON.stringify({ mcpServers: { db: { env: { A: '1' } } } }, null, 2),
    );
    expectRenderings(error, {
      code: ErrorCode.ConfigMissingTransport,
      server: 'db',
      file,
      oneLine: [/neither command nor url/],
      verbose: [/"command"/, /"url"/],
    });
  });

  it('command not found, with the Node/npx hint', async () => {
    const { file, server } = await serverFrom({ fs: { command: 'npx', args: ['-y', 'some-server'] } }, 'fs');
    const empty = await tempDir();
    const error = await connectFailure(server, { hostEnv: { PATH: empty } });
    expectRenderings(error, {
      code: ErrorCode.CommandNotFound,
      server: 'fs',
      file,
      line: 3,
      oneLine: [/command 'npx' not found/, /Node\.js/],
      verbose: [/command\s+npx -y some-server/, `the server's PATH is: ${empty}`, /give the full path/],
    });
  });

  it('command not found on Windows, with the PATHEXT/.cmd hint', async () => {
    const { file, server } = await serverFrom({ fs: { command: 'npx', args: ['-y', 'some-server'] } }, 'fs');
    // The classifier Windows runs, given what spawn reports there (this test runs on any OS).
    const enoent = Object.assign(new Error('spawn npx ENOENT'), { code: 'ENOENT' });
    const error = locate(
      spawnError(enoent, {
        serverName: server.name,
        command: 'npx',
        args: server.args,
        env: { Path: 'C:\\Windows\\system32', PATHEXT: '.EXE;.CMD' },
        platform: 'win32',
      }),
      server,
    );
    expectRenderings(error, {
      code: ErrorCode.CommandNotFound,
      server: 'fs',
      file,
      oneLine: [/'npx' not found/],
      verbose: [/PATHEXT/, /npx\.cmd/],
    });
  });

  it('permission denied: the file is not executable', async () => {
    const dir = await tempDir();
    const script = join(dir, 'server.sh');
    await writeFile(script, '#!/bin/sh\nexit 0\n');
    await chmod(script, 0o644);
    const { file, server } = await serverFrom({ local: { command: script } }, 'local');
    const error = await connectFailure(server);
    expectRenderings(error, {
      code: ErrorCode.SpawnPermissionDenied,
      server: 'local',
      file,
      oneLine: [/permission denied/],
      verbose: [/not executable/, `chmod +x ${script}`],
    });
  });

  it('server crashed: exit code, last stderr lines and a hint from them', async () => {
    const { file, server } = await serverFrom(
      { api: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_FAULT: 'stderr-exit' } } },
      'api',
    );
    const error = await connectFailure(server);
    expectRenderings(error, {
      code: ErrorCode.ServerCrashed,
      server: 'api',
      file,
      oneLine: [/exited with code 1/, /EXAMPLE_API_KEY/],
      verbose: [
        /exit code\s+1/,
        '| Error: API key missing: set EXAMPLE_API_KEY',
        /needs a credential/,
        /env_passthrough/,
      ],
    });
    // Only the last lines are kept: the 30 lines of noise before are cut.
    expect(error.context.stderrTail?.length).toBeLessThanOrEqual(20);
  });

  it('invalid JSON from a server: what it wrote, and that stdout is for JSON-RPC only', async () => {
    const dir = await tempDir();
    const script = join(dir, 'chatty.mjs');
    // Prints a banner and nothing else: no JSON-RPC ever comes.
    await writeFile(
      script,
      "console.log('Welcome to chatty server v1!');\nsetTimeout(() => process.exit(3), 200);\n",
    );
    const { file, server } = await serverFrom(
      { chatty: { command: process.execPath, args: [script] } },
      'chatty',
    );
    const error = await connectFailure(server);
    // The banner is reported (and ignored); the connect then fails because the server exits.
    expectRenderings(error, {
      code: ErrorCode.ServerCrashed,
      server: 'chatty',
      file,
      oneLine: [/exited with code 3/],
      verbose: [/exit code\s+3/, /not JSON-RPC.*Welcome to chatty server v1!/],
    });
  });

  it('handshake timeout: the limit and how to raise it', async () => {
    const { file, server } = await serverFrom(
      {
        slow: {
          command: process.execPath,
          args: [testServerPath],
          env: { MCPX_TEST_FAULT: 'hang-before-initialize' },
        },
      },
      'slow',
    );
    const error = await connectFailure(server, { connectTimeoutMs: 400 });
    expectRenderings(error, {
      code: ErrorCode.ConnectTimeout,
      server: 'slow',
      file,
      oneLine: [/400 ms/],
      verbose: [/timeout\s+400 ms/, /likely causes:/],
    });
  });

  it('HTTP failure: the status and how many attempts were made', async () => {
    const http = await startHttpTestServer({ faults: { unavailable: 100 } });
    closers.push(() => http.close());
    const { file, server } = await serverFrom({ remote: { url: http.url, http_max_retries: 2 } }, 'remote');
    const error = await connectFailure(server);
    expectRenderings(error, {
      code: ErrorCode.HttpStatus,
      server: 'remote',
      file,
      oneLine: [/503/, /3 attempts/],
      verbose: [/http status\s+503/, /attempts\s+3/, new RegExp(`url\\s+${escapeRegExp(http.url)}`)],
    });
  });

  it('HTTP server unreachable: the URL and that nothing listens there', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const { file, server } = await serverFrom({ remote: { url, http_max_retries: 0 } }, 'remote');
    const error = await connectFailure(server);
    expectRenderings(error, {
      code: ErrorCode.HttpUnreachable,
      server: 'remote',
      file,
      oneLine: [new RegExp(escapeRegExp(`127.0.0.1:${port}`))],
      verbose: [/ECONNREFUSED|refused/i],
    });
  });

  it('authorization required: says how to sign in', async () => {
    const denied = createServer((_req, res) => {
      res
        .writeHead(401, { 'www-authenticate': 'Bearer realm="mcp"', 'content-type': 'text/plain' })
        .end('no');
    });
    const url = await listen(denied);
    const { file, server } = await serverFrom({ secure: { url } }, 'secure');
    const error = await connectFailure(server);
    expectRenderings(error, {
      code: ErrorCode.AuthRequired,
      server: 'secure',
      file,
      oneLine: [/401/],
      verbose: [/http status\s+401/, /mcpx auth secure|headers/],
    });
  });
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
