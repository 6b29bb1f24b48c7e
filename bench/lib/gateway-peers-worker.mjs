// One route through a relay to the minimal stdio server (raw-server.mjs), one process: the SDK
// `Client` over stdio to the raw line relay, `mcpx serve` or `mcporter serve --stdio`, or over
// HTTP to the raw HTTP relay, `mcpx serve --http`, supergateway or mcp-proxy, each of which spawns
// the same server.
// Sequential µs per call (the first <sequential calls>, still warming up, then as many again at
// steady state), calls/s with N in flight, and the CPU per call of this client and of the relay
// (its own process; for mcporter its bridge and its daemon, which holds the server), sequentially
// and in flight. Prints one JSON line; a route that cannot be set up prints its error instead.
//
//   node gateway-peers-worker.mjs <route> <sequential calls> <in flight>[,<in flight>…] [<calls in flight>]
//
// In flight: <calls in flight> calls (default the largest <in flight>), never more than <in flight>
// at once; each call that ends starts the next, so the load is steady rather than one burst. Each
// <in flight> of the list is one such pass, in order, reported under `inFlight[N]`; the top-level
// in-flight figures are the last pass's.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cpuOf, descendantsOf, freePort, killTree, listeningOn } from './process-tree.mjs';

const [route, sequentialCalls, concurrency] = [
  process.argv[2],
  Number(process.argv[3]),
  String(process.argv[4]).split(',').map(Number),
];
const inFlightCalls = Number(process.argv[5] ?? Math.max(...concurrency));
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const server = here('./raw-server.mjs');
// `BENCH_MCPX_CLI`: another build's mcpx (the thin section compares with a baseline checkout).
const mcpx = process.env.BENCH_MCPX_CLI ?? here('../../dist/bin/mcpx.cjs');
const peer = (path) => here(`../peers/node_modules/${path}`);
const node24 = here('../mcporter/node_modules/node/bin/node');
const mcporterCli = here('../mcporter/node_modules/mcporter/dist/cli.js');
const warnings = [];
process.on('warning', (w) => warnings.push(w.name));
// The SDK's stdio client waits for 'drain' with one listener per write behind a full pipe: 2,000
// calls in flight are this bench's load, not a leak, and must not print a warning.
EventEmitter.defaultMaxListeners = 0;

// The bench gives every worker a private HOME; configs live there.
const home = process.env.HOME;
const mcpxConfig = join(home, 'gateway-peers-mcpx.json');
const mcporterConfig = join(home, 'gateway-peers-mcporter.json');
const mcporterEnv = { ...process.env, MCPORTER_DAEMON_DIR: join(home, 'mcporter-daemon') };
// `BENCH_GATEWAY_PROFILE=DIR`: mcpx serve writes a V8 CPU profile there.
const profile = process.env.BENCH_GATEWAY_PROFILE
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_GATEWAY_PROFILE}`]
  : [];
const serve = (...extra) => [...profile, mcpx, '--config', mcpxConfig, 'serve', ...extra];
// The shared-sessions path: the same server `keep_alive`, held by mcpx's daemon (started before
// the client, as a second agent session finds it); `mcpx serve` is then a thin bridge to it.
const thinConfig = join(home, 'gateway-peers-thin.json');
// The two-hop floor's socket: its bridge dials what its relay listens on.
const twoHopSocket = join(home, `two-hop-${process.pid}.sock`);
const thinArgs = (...args) => [mcpx, '--config', thinConfig, ...args];
// `BENCH_DAEMON_PROFILE=DIR`: the daemon writes a V8 CPU profile there (when it stops).
const daemonProfile = process.env.BENCH_DAEMON_PROFILE
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_DAEMON_PROFILE}`]
  : [];
const legacy = { mode: 'legacy' };
const modern = { mode: { pin: '2026-07-28' } };

/**
 * Each route: how its relay is started and reached. `stdio`: the client spawns it. `http`: the
 * worker spawns it on a free port (`args(port)`) and the client dials `path` with `transport`.
 */
const routes = {
  // No relay: the reference for what the hop adds (its "relay CPU" is the server's own).
  direct: { stdio: [process.execPath, server], tool: 'echo' },
  relay: { stdio: [process.execPath, here('./raw-relay.mjs'), server], tool: 'echo' },
  // The floor of the shared-sessions path: a bridge piping stdio to a Unix socket, and behind it a
  // daemon-like process relaying lines (parsed and re-serialized) to the server it holds.
  'relay-two-hop': {
    stdio: [process.execPath, here('./socket-bridge.cjs'), twoHopSocket],
    tool: 'echo',
  },
  'mcpx-transparent': { stdio: [process.execPath, ...serve('--server', 'bench')], tool: 'echo' },
  'mcpx-namespaced': { stdio: [process.execPath, ...serve()], tool: 'bench__echo' },
  'mcpx-thin': {
    stdio: [process.execPath, ...profile, ...thinArgs('serve')],
    tool: 'bench__echo',
  },
  mcporter: {
    stdio: [node24, mcporterCli, '--config', mcporterConfig, 'serve', '--stdio', '--servers', 'bench'],
    tool: 'bench__echo',
    env: mcporterEnv,
    needs: [node24, mcporterCli],
  },
  // The floor of an HTTP relay: a plain `node:http` line relay answering each call in its POST.
  'raw-http': {
    args: (port) => [here('./raw-http-relay.mjs'), String(port), process.execPath, server],
    path: '/mcp',
    transport: 'streamable',
    negotiation: legacy,
  },
  'mcpx-http-2025': mcpxHttp(legacy),
  'mcpx-http-2026': mcpxHttp(modern),
  // The legacy HTTP+SSE transport (`--legacy-sse`): the like-for-like row for the peers' SSE ones.
  'mcpx-http-sse': {
    args: (port) => serve('--http', '--legacy-sse', '--port', String(port), '--server', 'bench'),
    path: '/sse',
    transport: 'sse',
    negotiation: legacy,
  },
  // supergateway logs every message at its default level (info); `none` leaves it the relay only.
  'supergateway-sse': supergateway('/sse', 'sse'),
  'supergateway-stateful': supergateway(
    '/mcp',
    'streamable',
    '--outputTransport',
    'streamableHttp',
    '--stateful',
  ),
  'mcp-proxy-sse': mcpProxy('/sse', 'sse', legacy),
  'mcp-proxy-stream': mcpProxy('/mcp', 'streamable', legacy),
  // Its 2026-07-28 leg (per request, as mcpx's): the like-for-like row for mcpx's 2026-07-28 one.
  'mcp-proxy-stream-2026': mcpProxy('/mcp', 'streamable', modern),
};
const spec = routes[route];

/** `mcpx serve --http` in front of the minimal server, called by a client of `negotiation`'s era. */
function mcpxHttp(negotiation) {
  return {
    args: (port) => serve('--http', '--port', String(port), '--server', 'bench'),
    path: '/mcp',
    transport: 'streamable',
    negotiation,
  };
}

/** supergateway in front of the minimal server, reached on `path`; `extra`: its transport flags. */
function supergateway(path, transport, ...extra) {
  const bin = peer('supergateway/dist/index.js');
  return {
    needs: [bin],
    args: (port) => [
      bin,
      ...['--stdio', `${quote(process.execPath)} ${quote(server)}`, '--port', String(port)],
      ...['--logLevel', 'none', ...extra],
    ],
    path,
    transport,
    negotiation: legacy,
  };
}

/** punkpeye's mcp-proxy in front of the minimal server, reached on `path` (it serves both transports). */
function mcpProxy(path, transport, negotiation) {
  const bin = peer('mcp-proxy/dist/bin/mcp-proxy.mjs');
  return {
    needs: [bin],
    args: (port) => [bin, ...['--host', '127.0.0.1', '--port', String(port), '--', process.execPath, server]],
    path,
    transport,
    negotiation,
  };
}
if (!spec) throw new Error(`unknown route ${route}; one of ${Object.keys(routes).join(', ')}`);

/** A shell word (supergateway runs its `--stdio` command through a shell). */
function quote(word) {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

const started = [];
let client;
let relayPids = [];
let stdioRelay;
let mcporterDaemon;
let mcpxDaemon;
let cleaning;
// Stopped from outside (the bench interrupted): leave nothing behind.
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => cleanUp().finally(() => process.exit(1)));
try {
  await writeFile(
    mcpxConfig,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: { bench: { command: process.execPath, args: [server] } },
    }),
  );
  for (const path of spec.needs ?? [])
    if (!existsSync(path))
      throw new Error(
        `not installed: ${path} (npm install --prefix ${path.includes('/peers/') ? 'bench/peers' : 'bench/mcporter'})`,
      );
  if (route === 'mcpx-thin') {
    mcpxDaemon = await startMcpxDaemon();
    relayPids.push(mcpxDaemon);
  }
  if (route === 'relay-two-hop') {
    const relay = await startSocketRelay(twoHopSocket);
    relayPids.push(relay.pid);
  }
  if (route === 'mcporter') {
    mcporterDaemon = await startMcporterDaemon();
    relayPids.push(mcporterDaemon);
  }

  client = new Client(
    { name: 'bench', version: '1.0.0' },
    { versionNegotiation: spec.negotiation ?? legacy },
  );
  if (spec.stdio) {
    const [command, ...args] = spec.stdio;
    const transport = new StdioClientTransport({
      command,
      args,
      env: spec.env ?? { ...process.env },
      stderr: process.env.BENCH_GATEWAY_STDERR ? 'inherit' : 'ignore',
    });
    await client.connect(transport);
    relayPids.push(transport.pid);
    stdioRelay = transport.pid;
  } else {
    const port = await freePort();
    const relay = await startListening(spec.args(port), port);
    relayPids.push(relay.pid);
    const url = new URL(`http://127.0.0.1:${port}${spec.path}`);
    await client.connect(
      spec.transport === 'sse' ? new SSEClientTransport(url) : new StreamableHTTPClientTransport(url),
    );
  }
  relayPids = relayPids.filter(Boolean);

  const ownCpu = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  const relayCpu = () => {
    let sum = 0;
    for (const pid of relayPids) {
      const cpu = cpuOf(pid);
      if (cpu === undefined) return undefined;
      sum += cpu;
    }
    return sum;
  };
  const tool = spec.tool ?? 'echo';
  const call = async (message) => {
    const result = await client.callTool({ name: tool, arguments: { message } });
    if (result.content?.[0]?.text !== message)
      throw new Error(`${route}: wrong echo ${JSON.stringify(result)}`);
  };
  // A relay that stops answering must not hang the bench: its route becomes a row with this error.
  const limitMs = 120_000 + 2 * sequentialCalls * 100 + concurrency.length * inFlightCalls * 50;
  let watchdog;
  const hung = new Promise((_, reject) => {
    watchdog = setTimeout(() => reject(new Error(`no answer within ${limitMs / 1000} s`)), limitMs);
  });
  report(await Promise.race([measure(call, ownCpu, relayCpu), hung]));
  clearTimeout(watchdog);
} catch (error) {
  report({
    error: String(error?.message ?? error)
      .split('\n')[0]
      .slice(0, 300),
  });
} finally {
  await cleanUp();
  // Calls a hung relay never answered would keep this process waiting.
  process.exit(0);
}

/**
 * End everything this route started, once: the client, the relay's process tree, mcporter's
 * daemon (detached, in a session of its own: a Ctrl-C of the bench never reaches it).
 */
async function cleanUp() {
  if (cleaning) return cleaning;
  cleaning = (async () => {
    // Whatever the relay started, read while it still runs: closing the client ends a stdio relay,
    // whose children must end with it (and are ended here if they do not).
    const leftovers = stdioRelay ? descendantsOf(stdioRelay) : [];
    await Promise.race([
      client?.close().catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 5_000)),
    ]);
    if (stdioRelay) await killTree(stdioRelay, 3_000, leftovers);
    for (const child of started.reverse()) await killTree(child.pid);
    if (mcpxDaemon) {
      const daemonTree = descendantsOf(mcpxDaemon);
      await run(process.execPath, thinArgs('daemon', 'stop'), process.env).catch(() => {});
      await killTree(mcpxDaemon, 3_000, daemonTree);
    }
    if (mcporterDaemon) {
      const daemonTree = descendantsOf(mcporterDaemon);
      await run(node24, [mcporterCli, '--config', mcporterConfig, 'daemon', 'stop'], mcporterEnv).catch(
        () => {},
      );
      await killTree(mcporterDaemon, 3_000, daemonTree);
    }
  })();
  return cleaning;
}

/**
 * Warm up, then time sequential calls (with the CPU they cost each side) twice, then calls in
 * flight. The first round of sequential calls is each process still warming up (V8 compiles a
 * function's optimised code only after many calls; caches and heaps grow): measured, it cost
 * every route's relay and client 20-70% more CPU per call than the second, which is the steady
 * state. Both are reported.
 */
async function measure(call, ownCpu, relayCpu) {
  for (let i = 0; i < 200; i++) await call('warm');
  const perCall = (before, after, calls) =>
    before === undefined || after === undefined ? undefined : (after - before) / calls;
  const sequentially = async (tag) => {
    const clock = process.hrtime.bigint();
    const [own, relay] = [ownCpu(), relayCpu()];
    for (let i = 0; i < sequentialCalls; i++) await call(`${tag}${i}`);
    return {
      us: Number(process.hrtime.bigint() - clock) / 1000 / sequentialCalls,
      clientCpuUs: (ownCpu() - own) / sequentialCalls,
      relayCpuUs: perCall(relay, relayCpu(), sequentialCalls),
    };
  };
  const first = await sequentially('f');
  const steady = await sequentially('m');

  // `concurrentCalls` lanes, each making its share of the calls one after another.
  const inFlight = async (concurrentCalls) => {
    const clock = process.hrtime.bigint();
    const [ownIn, relayIn] = [ownCpu(), relayCpu()];
    const lane = async (first) => {
      for (let i = first; i < inFlightCalls; i += concurrentCalls) await call(`c${i}`);
    };
    await Promise.all(Array.from({ length: Math.min(concurrentCalls, inFlightCalls) }, (_, i) => lane(i)));
    const concurrentSeconds = Number(process.hrtime.bigint() - clock) / 1e9;
    const [ownOut, relayOut] = [ownCpu(), relayCpu()];
    return {
      callsPerSecond: inFlightCalls / concurrentSeconds,
      clientCpuUs: (ownOut - ownIn) / inFlightCalls,
      relayCpuUs: perCall(relayIn, relayOut, inFlightCalls),
    };
  };
  const passes = {};
  for (const n of concurrency) passes[n] = await inFlight(n);
  const last = passes[concurrency.at(-1)];

  return {
    sequentialUs: steady.us,
    callsPerSecond: last.callsPerSecond,
    clientCpuUs: steady.clientCpuUs,
    relayCpuUs: steady.relayCpuUs,
    firstSequentialUs: first.us,
    firstClientCpuUs: first.clientCpuUs,
    firstRelayCpuUs: first.relayCpuUs,
    inFlightClientCpuUs: last.clientCpuUs,
    inFlightRelayCpuUs: last.relayCpuUs,
    inFlight: passes,
  };
}

function report(figures) {
  process.stdout.write(`${JSON.stringify({ route, ...figures, warnings })}\n`);
}

/** Spawn a relay that listens on `port`; resolve once it accepts connections. */
async function startListening(args, port) {
  const child = spawn(process.execPath, args, { env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-4000);
    if (process.env.BENCH_GATEWAY_STDERR) process.stderr.write(chunk);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  await listeningOn(port, child, () => output);
  return child;
}

/** `raw-socket-relay.mjs` holding the minimal server behind `socketPath`, once it listens. */
async function startSocketRelay(socketPath) {
  const child = spawn(process.execPath, [here('./raw-socket-relay.mjs'), socketPath, server], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(child);
  await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', resolve);
    child.once('exit', (code) => reject(new Error(`raw-socket-relay.mjs exited (${code}) before listening`)));
  });
  return child;
}

/**
 * mcporter's bridge serves only servers its daemon holds (`"lifecycle": "keep-alive"`): start the
 * daemon on the same minimal server (spawned by Node 24, mcporter's Node) and return its pid,
 * whose CPU is part of the relay's.
 */
async function startMcporterDaemon() {
  await writeFile(
    mcporterConfig,
    JSON.stringify({ mcpServers: { bench: { command: node24, args: [server], lifecycle: 'keep-alive' } } }),
  );
  await mkdir(mcporterEnv.MCPORTER_DAEMON_DIR, { recursive: true });
  await run(node24, [mcporterCli, '--config', mcporterConfig, 'daemon', 'start'], mcporterEnv);
  const dir = join(mcporterEnv.MCPORTER_DAEMON_DIR, 'daemon');
  const metadata = readdirSync(dir).find((name) => name.endsWith('.json'));
  if (!metadata) throw new Error(`mcporter daemon start left no metadata in ${dir}`);
  return JSON.parse(readFileSync(join(dir, metadata), 'utf8')).pid;
}

/**
 * mcpx's daemon holding the minimal server (`keep_alive`), started and its server connected
 * before the client (`daemon start --all` connects it at once); returns its pid, whose CPU is part
 * of the relay's. The thin serve dials it as any later agent session would.
 */
async function startMcpxDaemon() {
  await writeFile(
    thinConfig,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: { bench: { command: process.execPath, args: [server], keep_alive: true } },
    }),
  );
  if (daemonProfile.length) {
    // In the foreground of a detached child of ours, so that its profile flags apply.
    const child = spawn(process.execPath, [...daemonProfile, ...thinArgs('daemon', 'run')], {
      env: { ...process.env },
      stdio: 'ignore',
      detached: true,
    });
    child.unref();
  } else await run(process.execPath, thinArgs('daemon', 'start'), process.env);
  for (let i = 0; i < 300; i++) {
    const status = await run(process.execPath, thinArgs('daemon', 'status', '--json'), process.env).catch(
      () => undefined,
    );
    const parsed = status === undefined ? undefined : JSON.parse(status);
    if (parsed?.pid) return parsed.pid;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('mcpx daemon did not start');
}

/** Run a command to its end; reject with its output when it fails. */
function run(command, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      output += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => {
      output += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${args.slice(1).join(' ')} exited ${code}: ${output.trim().slice(-300)}`));
    });
  });
}
