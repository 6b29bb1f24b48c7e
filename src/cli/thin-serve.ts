import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { CONTROL, DAEMON_PROTOCOL, type GatewayEvent, type GatewayRequest } from '../daemon/light.js';
import { tracingWanted } from '../tracing/switch.js';
import type { CliIo } from './io.js';
import { dialDaemon, findDaemon, splitInline, VALUE_OPTIONS } from './light-caller.js';

/**
 * `mcpx serve` on stdio as a thin bridge: when a keep-alive daemon runs for this
 * config, the session is offered to it (src/daemon/gateway-wire.ts). The daemon
 * runs `mcpx serve` itself, with this process's command line, folder and
 * environment, on the servers it holds; this process only pipes its client's
 * bytes to the socket and the socket's to its stdout, and shows the session's
 * notices on stderr. Bundled with the light caller into the CommonJS entry: no
 * protocol stack, schema validator, config parser or gateway is loaded here, so a session costs
 * about what an empty Node process does.
 *
 * Resolves undefined (run `mcpx serve` in full here) when the flags need this
 * process (see `thinServe`), no daemon runs for this config, or the daemon hands
 * the session back before it starts: a server it serves is not held there, or
 * the command failed (the full serve says why, in its own words).
 */
export async function serveThroughDaemon(argv: readonly string[], io: CliIo): Promise<number | undefined> {
  const command = thinServe(argv);
  if (!command || io.env.MCPX_DAEMON === 'off') return undefined;
  // A traced serve runs here, where its spans are made and exported; the daemon's are its own.
  if (tracingWanted(io.env, false)) return undefined;
  const socket =
    (await dialDaemon(io, command.configFile)) ??
    ((await startDaemon(io, command.configFile)) ? await dialDaemon(io, command.configFile) : undefined);
  if (!socket) return undefined;
  const request: GatewayRequest = {
    argv,
    cwd: io.cwd,
    homedir: io.homedir,
    env: io.env,
    pid: process.pid,
    terminal: { stdoutIsTTY: io.stdoutIsTTY, stderrIsTTY: io.stderrIsTTY, interactive: false },
  };
  socket.write(`${JSON.stringify({ protocol: DAEMON_PROTOCOL, op: 'gateway', ...request })}\n`);
  return bridge(socket, io);
}

/**
 * No daemon runs for this config: start one when the config has keep-alive
 * servers, as the full serve would on its first connect, so this session is thin
 * too. `mcpx daemon start` does it (the start lock, the wait until it listens) in
 * a process of its own that exits once the daemon listens; this one loads none
 * of it. Whether the config's servers are all the daemon's is the daemon's to
 * say; the text is only a hint that one of them may be.
 */
/** `"keep_alive": true` in a config's text (JSON or JSONC), not `false`: a hint, not a parse. */
const KEEP_ALIVE_ON = /["']?keep_alive["']?\s*:\s*true\b/;

async function startDaemon(io: CliIo, configFile: string | undefined): Promise<boolean> {
  const found = findDaemon(io, configFile);
  if (found.state === 'unsafe') return false;
  const mentions = found.files.some((file) => {
    try {
      return KEEP_ALIVE_ON.test(readFileSync(file, 'utf8'));
    } catch {
      return false;
    }
  });
  if (!mentions) return false;
  const args = [
    ...process.execArgv.filter((a) => !a.startsWith('--inspect')),
    process.argv[1] ?? '',
    ...(configFile !== undefined ? ['--config', configFile] : []),
    'daemon',
    'start',
  ];
  // Loaded here, not at the top: a session that finds its daemon running never spawns, and the
  // module is ~0.3 MB of the bridge's RSS (bench: the thin serve's row).
  const { spawn } = await import('node:child_process');
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: io.cwd, env: { ...io.env }, stdio: 'ignore' });
    child.once('error', () => done(false));
    child.once('exit', (code) => done(code === 0));
  });
}

// The global options a thin serve passes on, and serve's own that the daemon's session can honour.
// --http (and its companions) listens here; --access-log writes here; --json's stderr is this
// process's; an ad-hoc server (--stdio, --url) is never the daemon's.
const GLOBAL_OPTIONS = new Set(['-c', '--config', '-t', '--timeout', '-v', '--verbose']);
const SERVE_OPTIONS = new Set([
  '--server',
  '--servers',
  '--exclude-tools',
  '--permission',
  '--allow',
  '--page-size',
  '--list-wait',
  '--profile',
]);

/** `mcpx serve` on stdio with flags a daemon's session can take: its config file, if one is named. */
export function thinServe(argv: readonly string[]): { readonly configFile?: string } | undefined {
  let configFile: string | undefined;
  let i = 0;
  for (; i < argv.length; i++) {
    const [name, inline] = splitInline(argv[i] as string);
    if (!name.startsWith('-')) break;
    if (!GLOBAL_OPTIONS.has(name)) return undefined;
    if (!VALUE_OPTIONS.has(name)) continue;
    const value = inline ?? argv[++i];
    if (value === undefined) return undefined;
    if (name === '-c' || name === '--config') configFile = value;
  }
  if (argv[i] !== 'serve') return undefined;
  for (i += 1; i < argv.length; i++) {
    const [name, inline] = splitInline(argv[i] as string);
    if (!SERVE_OPTIONS.has(name)) return undefined;
    if (inline === undefined && argv[++i] === undefined) return undefined;
  }
  return configFile !== undefined ? { configFile } : {};
}

/**
 * Pipe the client through until the daemon's session ends: its exit code, or
 * undefined when the daemon handed the session back before it read anything.
 */
function bridge(socket: Socket, io: CliIo): Promise<number | undefined> {
  const stdout = process.stdout;
  return new Promise((done) => {
    let greeted = false;
    let going = false;
    let finished = false;
    let code: number | undefined;
    let carry: Buffer | undefined;
    const stdin = () => (io.stdin ?? process.stdin) as NodeJS.ReadStream;
    // Ctrl-C, SIGTERM: as the client's end of input, so the calls in flight finish (the full serve's stop).
    const stop = () => {
      if (!going) return finish(undefined);
      stdin().unpipe(socket);
      socket.end();
    };
    io.signal.addEventListener('abort', stop, { once: true });
    // The daemon reloads on a saved config file; a hang-up must not end the session.
    const releaseHangup = io.onHangup?.(() => {});
    const finish = (result: number | undefined) => {
      if (finished) return;
      finished = true;
      io.signal.removeEventListener('abort', stop);
      releaseHangup?.();
      socket.off('data', onData);
      socket.destroy();
      if (going) {
        // The client's pipe would keep this process waiting on a session that is over.
        stdin().unpipe(socket);
        stdin().destroy();
      }
      done(result);
    };
    let draining = false;
    const write = (bytes: Buffer) => {
      if (!bytes.length || stdout.write(bytes) || draining) return;
      // The client reads slower than the daemon answers: the daemon waits, as it would on a full pipe.
      draining = true;
      socket.pause();
      stdout.once('drain', () => {
        draining = false;
        socket.resume();
      });
    };
    const control = (event: GatewayEvent) => {
      switch (event.t) {
        case 'go':
          going = true;
          stdin().pipe(socket);
          break;
        case 'direct':
          finish(undefined);
          break;
        case 'err':
          io.stderr.write(event.text);
          break;
        case 'exit':
          code = event.code;
          break;
      }
    };
    // MCP lines pass through as bytes; CONTROL lines (between whole MCP lines) are the daemon's.
    const onData = (chunk: Buffer) => {
      let bytes = carry ? Buffer.concat([carry, chunk]) : chunk;
      carry = undefined;
      if (!greeted) {
        const end = bytes.indexOf(10);
        if (end === -1) {
          carry = bytes;
          return;
        }
        greeted = true;
        // Refused (another mcpx version's daemon, say): the full serve knows what to say.
        if (!(JSON.parse(bytes.toString('utf8', 0, end)) as { ok?: boolean }).ok) return finish(undefined);
        bytes = bytes.subarray(end + 1);
      }
      let start = 0;
      while (!finished) {
        const at = bytes.indexOf(CONTROL, start);
        if (at === -1) return write(bytes.subarray(start));
        write(bytes.subarray(start, at));
        const end = bytes.indexOf(10, at);
        if (end === -1) {
          carry = bytes.subarray(at);
          return;
        }
        control(JSON.parse(bytes.toString('utf8', at + 1, end)) as GatewayEvent);
        start = end + 1;
      }
    };
    socket.on('data', onData);
    socket.on('error', () => {});
    socket.once('close', () => {
      if (!going) return finish(undefined);
      if (code === undefined) io.stderr.write('mcpx serve: the mcpx daemon ended this session\n');
      finish(code ?? 1);
    });
  });
}
