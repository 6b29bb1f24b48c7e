import { readFileSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import { configCandidates, realPathOrResolved, resolveMcpxHome } from '../../config/load/discover.js';
import {
  configKey,
  contentAlias,
  DAEMON_PROTOCOL,
  daemonKey,
  daemonSocket,
  type GivenAnswer,
  LIGHT_COMMANDS,
  type RunEvent,
  type RunReply,
  type RunRequest,
  socketState,
  thisMachine,
} from '../../daemon-client/light.js';
import type { SafeText } from '../../text/index.js';
// Past text/index.ts, which would bring the prompts and the content renderer into mcpx.cjs.
import { relayed, say } from '../../text/say.js';
import { tracingWanted } from '../../tracing/switch.js';
import type { CliIo } from '../io/io.js';

/**
 * The warm call's light path: `mcpx call|tools|read|prompt <server…>` handed to
 * a running keep-alive daemon as a command line, its output and exit code
 * taken back (src/daemon-client/run-wire.ts). Bundled into the CommonJS entry
 * (main.ts): this module and what it imports must stay free of the SDK, zod,
 * the error classes and the CLI's own command code (reached only through
 * cli-entry.ts, the ES module side), since that load is what a warm call would
 * otherwise cost. Of Node's own modules it loads only what a socket client
 * needs (node:fs, not fs/promises, readline or crypto). Resolves
 * undefined when the command is not for the daemon (no daemon runs for this
 * config, the server is not one it holds, the command needs stdin): then the
 * CLI runs it as ever. Resolves with an io instead when the daemon asked
 * questions before handing the command back: the full CLI takes the answers
 * given there rather than asking again.
 */
export async function runThroughDaemon(
  argv: readonly string[],
  io: CliIo,
): Promise<number | CliIo | undefined> {
  const command = lightCommand(argv);
  if (!command || io.env.MCPX_DAEMON === 'off') return undefined;
  // A traced command runs here, where its spans are made and exported; the daemon's are its own.
  if (tracingWanted(io.env, false)) return undefined;
  const socket = await dialDaemon(io, command.configFile);
  if (!socket) return undefined;
  const request: RunRequest = {
    argv,
    cwd: io.cwd,
    homedir: io.homedir,
    env: io.env,
    terminal: {
      stdoutIsTTY: io.stdoutIsTTY,
      stderrIsTTY: io.stderrIsTTY,
      interactive: io.interactive,
      ...(io.columns ? { columns: io.columns } : {}),
    },
  };
  socket.write(`${JSON.stringify({ protocol: DAEMON_PROTOCOL, op: 'run', ...request })}\n`);
  return converse(socket, io, command);
}

/**
 * A connection to the running daemon for this config (the files found from
 * `io`'s folder, or `configFile`), or undefined when none runs there. Computed
 * from the config files alone: nothing is parsed.
 */
export async function dialDaemon(io: CliIo, configFile: string | undefined): Promise<Socket | undefined> {
  const daemon = findDaemon(io, configFile);
  if (daemon.state === 'unsafe') return undefined;
  const own = daemon.state === 'safe' ? await dial(daemon.socket) : undefined;
  if (own) return own;
  // None at this config's own key: one started for files with the same text serves it too.
  const alias = aliasedSocket(daemon.home, daemon.files, io.env);
  return alias ? dial(alias) : undefined;
}

/**
 * The daemon's socket for this config and what is there: `safe` (dial it),
 * `absent` (no daemon has listened there), or a hazard, which the full CLI
 * reports (a socket someone else could reach is refused by the direct path).
 */
export function findDaemon(
  io: CliIo,
  configFile: string | undefined,
): {
  readonly home: string;
  readonly files: readonly string[];
  readonly socket: string;
  readonly state: 'safe' | 'absent' | 'unsafe';
} {
  const home = resolveMcpxHome(io.env, io.homedir);
  const files = configFiles(io.cwd, home, configFile);
  const machine = thisMachine(io.env);
  const paths = {
    absolute: daemonSocket(home, daemonKey(files), machine),
    namedPipe: machine.platform === 'win32',
  };
  const state = socketState(paths, process.getuid?.());
  return { home, files, socket: paths.absolute.socket, state: typeof state === 'string' ? state : 'unsafe' };
}

/** The socket a daemon started for the same config text recorded (`contentAlias`), when it is safe to dial. */
function aliasedSocket(
  home: string,
  files: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (thisMachine(env).platform === 'win32') return undefined;
  let socket: unknown;
  try {
    socket = (
      JSON.parse(readFileSync(join(home, contentAlias(configKey(files))), 'utf8')) as { socket?: unknown }
    ).socket;
  } catch {
    return undefined;
  }
  if (typeof socket !== 'string' || !isAbsolute(socket)) return undefined;
  return socketState({ absolute: { dir: dirname(socket), socket } }, process.getuid?.()) === 'safe'
    ? socket
    : undefined;
}

interface LightCommand {
  readonly configFile?: string;
  readonly json: boolean;
  readonly verbose: boolean;
}

// The CLI's global options that take a value (src/cli/run.ts): their value is not the command word.
export const VALUE_OPTIONS = new Set(['-c', '--config', '-t', '--timeout', '--env', '--cwd', '--name']);
const ADHOC_OPTIONS = new Set(['--stdio', '--url', '--sse']);
const TRACE_OPTIONS = new Set(['--trace', '--trace-content']);

/**
 * The command when it is one the daemon can run for a light caller: one named
 * server, no ad-hoc server, no stdin. Anything unsure is left to the full CLI.
 */
export function lightCommand(argv: readonly string[]): LightCommand | undefined {
  let configFile: string | undefined;
  let json = false;
  let verbose = false;
  let i = 0;
  for (; i < argv.length; i++) {
    const word = argv[i] as string;
    if (!word.startsWith('-')) break;
    const [name, inline] = word.startsWith('--') ? splitInline(word) : [word, undefined];
    if (ADHOC_OPTIONS.has(name)) return undefined;
    if (name === '--json') json = true;
    else if (name === '-v' || name === '--verbose') verbose = true;
    else if (VALUE_OPTIONS.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) return undefined;
      if (name === '-c' || name === '--config') configFile = value;
    } else return undefined;
  }
  const command = argv[i];
  if (command === undefined || !LIGHT_COMMANDS.has(command)) return undefined;
  const rest = argv.slice(i + 1);
  // `tools` alone lists every server, most of them not the daemon's; `-` reads the caller's stdin.
  if (!rest.some((w) => !w.startsWith('-')) || rest.includes('-')) return undefined;
  if (rest.some((w) => ADHOC_OPTIONS.has(splitInline(w)[0]) || TRACE_OPTIONS.has(w))) return undefined;
  return { ...(configFile !== undefined ? { configFile } : {}), json, verbose };
}

export function splitInline(word: string): [string, string | undefined] {
  const eq = word.indexOf('=');
  return eq === -1 ? [word, undefined] : [word.slice(0, eq), word.slice(eq + 1)];
}

/**
 * The config files `loadConfig` would read, in its order (their paths name the
 * daemon, see `configKey`): the candidates that exist, each real file once.
 */
function configFiles(cwd: string, home: string, configFile: string | undefined): string[] {
  const candidates = configCandidates({
    cwd,
    home,
    env: {},
    ...(configFile !== undefined ? { configFile } : {}),
  });
  const found = candidates.map(({ path }) => {
    try {
      statSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    }
    return { path, real: realPathOrResolved(path) };
  });
  const seen = new Set<string>();
  const files: string[] = [];
  for (const file of found) {
    if (!file || seen.has(file.real)) continue;
    seen.add(file.real);
    files.push(file.path);
  }
  return files;
}

function dial(path: string): Promise<Socket | undefined> {
  return new Promise((done) => {
    const socket = connect(path);
    socket.once('connect', () => done(socket));
    socket.once('error', () => {
      socket.destroy();
      done(undefined);
    });
  });
}

/**
 * Play the daemon's events at this terminal until the command ends. Ctrl-C
 * behaves as on the direct path: the first cancels the call (in the daemon),
 * a second leaves at once.
 */
function converse(socket: Socket, io: CliIo, command: LightCommand): Promise<number | CliIo | undefined> {
  return new Promise((done) => {
    let greeted = false;
    let finished = false;
    let interrupts = 0;
    const send = (reply: RunReply) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
    };
    const cancel = () => send({ t: 'cancel' });
    const releaseInterrupt = io.onInterrupt?.(() => {
      interrupts += 1;
      if (interrupts > 1) process.exit(130);
      cancel();
    });
    const releaseHangup = io.onHangup?.(cancel);
    io.signal.addEventListener('abort', cancel, { once: true });
    const finish = (code: number | CliIo | undefined) => {
      if (finished) return;
      finished = true;
      releaseInterrupt?.();
      releaseHangup?.();
      io.signal.removeEventListener('abort', cancel);
      stopLines();
      socket.end();
      done(code);
    };
    const stopLines = onLines(socket, (line) => {
      if (!greeted) {
        greeted = true;
        // Refused (another mcpx version's daemon, say): the full CLI knows what to say.
        if (!(JSON.parse(line) as { ok?: boolean }).ok) finish(undefined);
        return;
      }
      const event = JSON.parse(line) as RunEvent;
      switch (event.t) {
        case 'out':
          // Bytes (`read --raw`) as they are; text left the daemon's own funnel, and passes this one.
          io.stdout.write(
            event.base64 !== undefined ? Buffer.from(event.base64, 'base64') : relayed(event.text ?? ''),
          );
          break;
        case 'err':
          io.stderr.write(relayed(event.text ?? ''));
          break;
        case 'ask':
          void answer(io, event).then((value) => send({ t: 'answer', id: event.id, value }));
          break;
        case 'elicit':
          // A server's form or URL, asked with the direct path's own prompts (the ES module side).
          void import('../cli-entry.js')
            .then(({ elicitAtTerminal }) => elicitAtTerminal(io, event.server, event.request, cancel))
            .then(
              (result) => send({ t: 'elicited', id: event.id, ...(result ? { result } : {}) }),
              () => send({ t: 'elicited', id: event.id }),
            );
          break;
        case 'signin':
          // Only a caller with a terminal is sent one; a browser opens only where a person is.
          if (!io.interactive) break;
          void import('../cli-entry.js').then(({ showSignIn }) =>
            showSignIn((line) => io.stderr.write(say`${line}\n`), event.server, event.url, true),
          );
          break;
        case 'exit':
          finish(event.code);
          break;
        case 'direct':
          finish(event.answers?.length ? withGivenAnswers(io, event.answers) : undefined);
          break;
      }
    });
    socket.on('error', () => {});
    socket.once('close', () => {
      if (finished) return;
      // Before its first line the daemon was on its way out: the full CLI starts anew.
      if (!greeted) finish(undefined);
      else
        void import('../cli-entry.js')
          .then(({ reportDaemonVanished }) => reportDaemonVanished(io, command))
          .then(finish);
    });
  });
}

/**
 * Call `handler` with each line the socket brings, until the returned function
 * is called. Split on the newline byte, which UTF-8 never uses inside a
 * character, so a character cut between chunks is decoded whole (readline would
 * do the same at the cost of loading it).
 */
function onLines(socket: Socket, handler: (line: string) => void): () => void {
  let pending: Buffer = Buffer.alloc(0);
  let stopped = false;
  const onData = (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let start = 0;
    for (let end = pending.indexOf(10); end !== -1 && !stopped; end = pending.indexOf(10, start)) {
      handler(pending.toString('utf8', start, end));
      start = end + 1;
    }
    pending = pending.subarray(start);
  };
  socket.on('data', onData);
  return () => {
    stopped = true;
    socket.off('data', onData);
  };
}

/** A question from the command, asked with the CLI's own prompts; a failed prompt answers no. */
async function answer(io: CliIo, event: Extract<RunEvent, { t: 'ask' }>): Promise<string | boolean | null> {
  try {
    const question = relayed(event.question);
    if (event.kind === 'confirm') return io.confirm ? await io.confirm(question) : false;
    return io.ask ? await io.ask(question, { secret: event.secret === true }) : null;
  } catch {
    return event.kind === 'confirm' ? false : null;
  }
}

/**
 * The caller's io with the answers the person gave the daemon's questions: the
 * same question (same kind, same text) takes its answer once, unasked.
 */
function withGivenAnswers(io: CliIo, answers: readonly GivenAnswer[]): CliIo {
  const left = [...answers];
  const given = (kind: GivenAnswer['kind'], question: string) => {
    const at = left.findIndex((a) => a.kind === kind && a.question === question);
    return at === -1 ? undefined : left.splice(at, 1)[0]?.value;
  };
  const { confirm, ask } = io;
  return {
    ...io,
    ...(confirm
      ? {
          confirm: async (question: SafeText) => {
            const value = given('confirm', question);
            return value === undefined ? confirm(question) : value === true;
          },
        }
      : {}),
    ...(ask
      ? {
          ask: async (question: SafeText, options: { readonly secret: boolean }) => {
            const value = given('input', question);
            return typeof value === 'string' ? value : ask(question, options);
          },
        }
      : {}),
  };
}
