import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { DAEMON_PROTOCOL, type GatewayRequest } from '../../daemon-client/light.js';
import { tracingWanted } from '../../tracing/switch.js';
import type { CliIo } from '../io/io.js';
import { dialDaemon, findDaemon, splitInline, VALUE_OPTIONS } from './light-caller.js';
import { bridge } from './thin-bridge.js';

/**
 * `mcpx serve` on stdio as a thin bridge: when a keep-alive daemon runs for this
 * config, the session is offered to it (src/daemon-client/gateway-wire.ts). The daemon
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
  const request: GatewayRequest = {
    argv,
    cwd: io.cwd,
    homedir: io.homedir,
    env: io.env,
    pid: process.pid,
    terminal: { stdoutIsTTY: io.stdoutIsTTY, stderrIsTTY: io.stderrIsTTY, interactive: false },
  };
  // The daemon's session, offered this command line: dialled, or started first.
  const open = async (): Promise<Socket | undefined> => {
    const socket =
      (await dialDaemon(io, command.configFile)) ??
      ((await startDaemon(io, command.configFile)) ? await dialDaemon(io, command.configFile) : undefined);
    socket?.write(`${JSON.stringify({ protocol: DAEMON_PROTOCOL, op: 'gateway', ...request })}\n`);
    return socket;
  };
  const socket = await open();
  if (!socket) return undefined;
  return bridge(socket, io, open);
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
