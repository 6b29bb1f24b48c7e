import type { RemoteSession, RemoteTerminal } from '../../daemon/index.js';
import type { CallerElicitation, GatewayRequest, RunRequest } from '../../daemon-client/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import type { CliIo } from '../io/io.js';

/**
 * A light caller's command, run inside the daemon by the CLI's own `run`: the
 * same parsing, formatter, errors and exit codes as the direct path, with the
 * caller's environment, folder and terminal (its questions asked over the socket).
 */
export async function runForCaller(
  request: RunRequest,
  terminal: RemoteTerminal,
  daemon: Pick<NonNullable<CliIo['daemonCaller']>, 'link' | 'configFiles'> = {},
): Promise<number> {
  const { run } = await import('../run.js');
  const { interactive } = request.terminal;
  const io: CliIo = {
    stdout: { write: (chunk) => terminal.write('out', chunk) },
    stderr: { write: (chunk) => terminal.write('err', chunk) },
    env: request.env,
    cwd: request.cwd,
    homedir: request.homedir,
    stdoutIsTTY: request.terminal.stdoutIsTTY,
    stderrIsTTY: request.terminal.stderrIsTTY,
    interactive,
    signal: terminal.signal,
    ...(request.terminal.columns ? { columns: request.terminal.columns } : {}),
    ...(interactive
      ? {
          confirm: async (question: string) => (await terminal.ask('confirm', question)) === true,
          ask: async (question: string, { secret }: { readonly secret: boolean }) => {
            const answer = await terminal.ask('input', question, secret);
            if (typeof answer !== 'string') throw new McpxError(ErrorCode.Cancelled, 'cancelled');
            return answer;
          },
          presentSignIn: async (server: string, url: string) => terminal.signIn(server, url),
          elicit: (server: string, request: CallerElicitation) => terminal.elicit(server, request),
        }
      : {}),
    daemonCaller: {
      warm: () => terminal.commit(),
      direct: (server) => {
        terminal.goDirect();
        return new McpxError(ErrorCode.DaemonUnavailable, `'${server}' is not held by the mcpx daemon`, {
          server,
        });
      },
      ...daemon,
    },
  };
  return run(request.argv, io);
}

/**
 * A thin `mcpx serve`'s session (cli/daemon-handoff/thin-serve.ts), run inside the daemon by
 * the CLI's own `run`: the caller's config, folder, environment and flags, its
 * client on the socket. `serve` tells the caller to go on (`warm`) once every
 * server it serves is held here, and hands the session back (`direct`) before
 * that when one is not, so nothing of the client's is read by the wrong side.
 */
export async function serveForCaller(
  request: GatewayRequest,
  remote: RemoteSession,
  daemon: Pick<NonNullable<CliIo['daemonCaller']>, 'link' | 'configFiles'> = {},
): Promise<number> {
  const { run } = await import('../run.js');
  const io: CliIo = {
    // The caller's stdout is the gateway's protocol channel (MCP lines only): text goes to stderr.
    stdout: { write: (chunk) => typeof chunk === 'string' && remote.writeErr(chunk) },
    protocolOut: remote.stdout,
    stderr: { write: (chunk) => remote.writeErr(chunk) },
    stdin: remote.stdin,
    env: request.env,
    cwd: request.cwd,
    homedir: request.homedir,
    stdoutIsTTY: false,
    stderrIsTTY: request.terminal.stderrIsTTY,
    interactive: false,
    signal: remote.signal,
    daemonCaller: {
      warm: () => remote.go(),
      direct: (server) => {
        remote.goDirect();
        return new McpxError(ErrorCode.DaemonUnavailable, `'${server}' is not held by the mcpx daemon`, {
          server,
        });
      },
      ...daemon,
    },
  };
  return run(request.argv, io);
}
