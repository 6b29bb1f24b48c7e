// `npm run bench [-- --quick]`: mcpx against the physical floor and the SDK,
// medians over repeated runs, ratios paired in the same run. Prints a table
// and writes bench/RESULTS.md. No thresholds: figures are reported, not gated.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, pairedMedians, pairedMediansWithCpu, timed, worker } from './lib/measure.mjs';

const quick = process.argv.includes('--quick');
const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
const cli = join(root, 'dist/bin/mcpx.cjs');
const testServer = join(root, 'dist/testing/test-server.js');
const lib = (name) => join(here, 'lib', name);
const minimalServer = lib('raw-server.mjs');
// mcporter (a peer CLI with a keep-alive daemon) and the Node 24 it needs, from `npm install --prefix bench/mcporter`.
const mcporterCli = join(here, 'mcporter/node_modules/mcporter/dist/cli.js');
const node24 = join(here, 'mcporter/node_modules/node/bin/node');
// `--only cold,fanout`: run only these sections (start, cold, library, percall, gateway, large, fanout, daemon, sessions,
// thin, tracing, console, fleet). `--baseline DIR`: another checkout, built (e.g. main, or a release), that the cold-call and
// tracing sections and the thin serve compare with.
const onlyFlag = process.argv.indexOf('--only');
const only = onlyFlag === -1 ? undefined : new Set(process.argv[onlyFlag + 1]?.split(',') ?? []);
const runs = (name) => !only || only.has(name);
const baselineFlag = process.argv.indexOf('--baseline');
const baselineDir = baselineFlag === -1 ? undefined : (process.argv[baselineFlag + 1] ?? '');
const baselineCli = baselineDir === undefined ? undefined : join(baselineDir, 'dist/bin/mcpx.cjs');
/** Which build the baseline is (its commit), for the run's facts; unnamed outside a git checkout. */
const baselineName = (() => {
  if (baselineDir === undefined) return undefined;
  try {
    return execFileSync('git', ['-C', baselineDir, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim();
  } catch {
    return 'not a git checkout';
  }
})();

// How busy the machine was: the one-minute load average, sampled through the run.
const loads = [loadavg()[0]];
const sampler = setInterval(() => loads.push(loadavg()[0]), 5000);
sampler.unref();

const home = await mkdtemp(join(tmpdir(), 'mcpx-bench-'));
// Every timed process gets exactly this environment.
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, MCPX_HOME: join(home, '.mcpx') };
const rounds = quick ? 3 : 15;
const rows = [];
// The gateway table (its own columns): filled by gatewayTable().
const gatewayRows = [];
let gatewayFacts = '';
/** The in-flight counts of the gateway table's columns, and mcpx beside each peer in flight. */
let gatewayHeads = [];
const gatewayVersus = [];
const notes = [];
const ratio = (a, b) => (b === 0 ? 'n/a' : `${(a / b).toFixed(2)}×`);
const fmt = (n, digits = 1) => n.toFixed(digits);

function section(title) {
  process.stderr.write(`\n== ${title}\n`);
}

try {
  if (runs('start')) {
    section('CLI start');
    const [nodeStart, mcpxStart] = await pairedMedians(
      [
        { command: process.execPath, args: ['-e', '0'], env },
        { command: process.execPath, args: [cli, '--version'], env },
      ],
      rounds * 2,
    );
    rows.push([
      'CLI start',
      '`node -e 0`',
      `${fmt(nodeStart)} ms`,
      `${fmt(mcpxStart)} ms`,
      ratio(mcpxStart, nodeStart),
      '≤ 2×',
    ]);
  }

  if (runs('cold')) {
    section('Cold call');
    // The floor: the raw script spawning the minimal server (bench/lib/raw-server.mjs, a few lines
    // of newline JSON-RPC that answers server/discover with method-not-found, as a 2025 server does).
    const minimalConfig = join(home, 'minimal.json');
    await writeFile(
      minimalConfig,
      JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [minimalServer] } } }),
    );
    const callOn = (config, callEnv = env) => ({
      command: process.execPath,
      args: [cli, '--config', config, 'call', 'bench.echo', 'message=hi'],
      env: callEnv,
    });
    const rawOn = (server) => ({
      command: process.execPath,
      args: [lib('cold-call-baseline.mjs'), server, 'hi'],
      env,
    });
    // First-ever call: an empty MCPX_HOME each round, so no era is remembered and the
    // server/discover probe runs. Every-day call: the era is remembered from a first run.
    const firstEnv = { ...env };
    let fresh = 0;
    const firstEver = {
      ...callOn(minimalConfig, firstEnv),
      prepare: () => {
        firstEnv.MCPX_HOME = join(home, `first-${fresh++}`);
      },
    };
    // The library's cold call: a program importing 'mcpx' (the package's bundled entry) that loads
    // the same config, connects through the registry, calls and closes.
    const libraryCall = {
      command: process.execPath,
      args: [lib('library-call.mjs'), minimalConfig, 'bench', 'echo', 'hi'],
      env,
    };
    const nodeOnly = { command: process.execPath, args: ['-e', '0'], env };
    // The same cold call on Node 20 (the machine's) and Node 24 (the npm `node` package: `node24/`,
    // as `.ci/run` installs it, else bench/mcporter's), to the minimal server and to
    // @modelcontextprotocol/server-everything (a real server: SDK, zod, its own boot and exit),
    // each against its floor (the raw script spawning the same server on the same Node) and, with
    // `--baseline DIR`, against that build (its own MCPX_HOME, so neither build rewrites the
    // other's era cache or compile cache), all alternating in the same rounds.
    const coldNode24 = [join(root, 'node24/node_modules/node/bin/node'), node24].find((p) => existsSync(p));
    const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    const servers = [
      { name: 'minimal server', script: minimalServer, args: [] },
      { name: 'server-everything', script: everything, args: ['stdio'] },
    ];
    const nodes = [
      { name: `Node ${process.versions.node.split('.')[0]}`, node: process.execPath },
      ...(coldNode24 ? [{ name: 'Node 24', node: coldNode24 }] : []),
    ];
    const baselineEnv = { ...env, MCPX_HOME: join(home, 'baseline-home') };
    const matrix = [];
    for (const { name: nodeName, node } of nodes)
      for (const { name: serverName, script, args } of servers) {
        const config = join(home, `cold-${matrix.length}.json`);
        await writeFile(
          config,
          JSON.stringify({ mcpServers: { bench: { command: node, args: [script, ...args] } } }),
        );
        const call = (cliPath, callEnv) => ({
          command: node,
          args: [cliPath, '--config', config, 'call', 'bench.echo', 'message=hi'],
          env: callEnv,
        });
        matrix.push({
          label: `${serverName}, ${nodeName}`,
          floor: { command: node, args: [lib('cold-call-baseline.mjs'), script, 'hi', ...args], env },
          mcpx: call(cli, env),
          baseline: baselineCli ? call(baselineCli, baselineEnv) : undefined,
          // Node 24 only: the call without the V8 compile cache mcpx keeps under its home (Node >= 22.1).
          uncached: node === coldNode24 ? call(cli, { ...env, NODE_DISABLE_COMPILE_CACHE: '1' }) : undefined,
        });
      }
    const matrixCommands = matrix.flatMap((m) => [m.floor, m.mcpx, m.baseline, m.uncached].filter(Boolean));
    // Remember the era, as every later run of a user has it (and fill the compile caches).
    await pairedMedians(
      matrixCommands.filter((c) => c.args[0] !== lib('cold-call-baseline.mjs')),
      1,
    );
    // Rotated, so no command always follows the same other; CPU (the process and the server it
    // waited for) beside the wall time: on a loaded machine the wall time moves with the load, CPU far less.
    const medians = await pairedMediansWithCpu(
      [firstEver, nodeOnly, libraryCall, ...matrixCommands],
      rounds,
      {
        rotate: true,
      },
    );
    const [first, nodeAlone, library] = medians.map((m) => m.ms);
    const measured = new Map(matrixCommands.map((c, i) => [c, medians[3 + i]]));
    const timeOf = new Map([...measured].map(([c, m]) => [c, m.ms]));
    // The minimal server on the machine's Node: the row the library's and the first-ever call's compare with.
    const [floor, everyDay] = [timeOf.get(matrix[0].floor), timeOf.get(matrix[0].mcpx)];
    rows.push([
      'Cold call, first ever (empty MCPX_HOME), minimal server',
      'raw JSON-RPC script',
      `${fmt(floor)} ms`,
      `${fmt(first)} ms`,
      ratio(first, floor),
      '≤ 1.5×',
    ]);
    // `412.0 ms (CPU 230)`: the wall time, and the CPU where /proc gave it.
    const both = (command) => {
      const m = measured.get(command);
      return m.cpuMs === undefined ? `${fmt(m.ms)} ms` : `${fmt(m.ms)} ms (CPU ${fmt(m.cpuMs, 0)})`;
    };
    const ratios = (a, b) => {
      const [x, y] = [measured.get(a), measured.get(b)];
      return x.cpuMs === undefined || y.cpuMs === undefined
        ? ratio(x.ms, y.ms)
        : `${ratio(x.ms, y.ms)} (CPU ${ratio(x.cpuMs, y.cpuMs)})`;
    };
    for (const m of matrix) {
      rows.push([
        `Cold call, every day, ${m.label}${m.uncached ? " (mcpx's V8 compile cache filled)" : ''}`,
        `raw script (floor) / ${m.baseline ? 'the baseline build' : 'no baseline given'}${m.uncached ? ' / mcpx without the cache' : ''}`,
        [m.floor, m.baseline, m.uncached].filter(Boolean).map(both).join(' / '),
        both(m.mcpx),
        [
          `${ratios(m.mcpx, m.floor)} floor`,
          ...(m.baseline
            ? [`${ratios(m.mcpx, m.baseline)} baseline`, `baseline ${ratios(m.baseline, m.floor)} floor`]
            : []),
          ...(m.uncached ? [`${ratios(m.mcpx, m.uncached)} uncached`] : []),
        ].join(', '),
        '≤ 1.5× floor, < baseline',
      ]);
    }
    if (!coldNode24) {
      rows.push(['Cold call on Node 24', 'not measured: Node 24 is missing', '', '', '', '']);
      notes.push(
        'Node 24 cold-call rows not measured: no Node 24 at node24/ or bench/mcporter/ (`npm install --prefix node24` installs it)',
      );
      process.stderr.write(
        'Node 24 is missing (npm install --prefix node24): its cold-call rows are not measured\n',
      );
    }
    if (!baselineCli)
      notes.push(
        'cold call: no --baseline DIR given, so the cold-call rows are not compared with an earlier build',
      );
    rows.push([
      'Library cold call (`import … from "mcpx"`), minimal server',
      'raw script / `node -e 0` / CLI every day',
      `${fmt(floor)} / ${fmt(nodeAlone)} / ${fmt(everyDay)} ms`,
      `${fmt(library)} ms`,
      `${ratio(library, floor)} raw, +${fmt(library - nodeAlone)} ms over node, ${ratio(library, everyDay)} CLI`,
      '≤ the CLI',
    ]);

    // mcpx's own test server boots in ~300 ms, during which mcpx loads itself: this row hides
    // mcpx's start-up cost and is kept only to compare with earlier runs.
    const testConfig = join(home, 'test-server.json');
    await writeFile(
      testConfig,
      JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [testServer] } } }),
    );
    await pairedMedians([callOn(testConfig)], 1);
    const [rawTest, mcpxTest] = await pairedMedians([rawOn(testServer), callOn(testConfig)], rounds);
    rows.push([
      'Cold call, every day, mcpx test server (SDK, slow boot)',
      'raw JSON-RPC script',
      `${fmt(rawTest)} ms`,
      `${fmt(mcpxTest)} ms`,
      ratio(mcpxTest, rawTest),
      '',
    ]);
  }

  if (runs('percall')) {
    section('Per-call overhead (minimal server)');
    const sequentialCalls = quick ? 500 : 3000;
    const inFlight = 2000;
    const perCall = {};
    const variants = ['raw', 'sdk', 'mcpx', 'mcpx-agent'];
    const runsOf = Object.fromEntries(variants.map((v) => [v, []]));
    // Variants alternate round by round, so a noisy moment hits them all alike.
    for (let i = 0; i < (quick ? 1 : 7); i++) {
      for (const variant of variants) {
        runsOf[variant].push(
          await worker(lib('per-call-worker.mjs'), [variant, String(sequentialCalls), String(inFlight)], env),
        );
      }
    }
    for (const variant of variants) {
      const runs = runsOf[variant];
      perCall[variant] = {
        sequentialUs: median(runs.map((r) => r.sequentialUs)),
        callsPerSecond: median(runs.map((r) => r.callsPerSecond)),
        warnings: [...new Set(runs.flatMap((r) => r.warnings))],
      };
      if (perCall[variant].warnings.length)
        notes.push(`${variant}: process warnings ${perCall[variant].warnings.join(', ')}`);
    }
    for (const [variant, label, target] of [
      ['sdk', 'SDK `Client` directly', ''],
      ['mcpx', 'mcpx connection', '≤ 1.1× SDK'],
      ['mcpx-agent', 'mcpx agent-tool path', '≤ 1.25× SDK'],
    ]) {
      const p = perCall[variant];
      rows.push([
        `Sequential call (minimal server): ${label}`,
        'raw / SDK',
        `${fmt(perCall.raw.sequentialUs)} µs / ${fmt(perCall.sdk.sequentialUs)} µs`,
        `${fmt(p.sequentialUs)} µs`,
        `${ratio(p.sequentialUs, perCall.raw.sequentialUs)} raw, ${ratio(p.sequentialUs, perCall.sdk.sequentialUs)} SDK`,
        target,
      ]);
      rows.push([
        `${inFlight} in flight: ${label}`,
        'raw / SDK',
        `${fmt(perCall.raw.callsPerSecond, 0)} / ${fmt(perCall.sdk.callsPerSecond, 0)} calls/s`,
        `${fmt(p.callsPerSecond, 0)} calls/s`,
        `${ratio(p.callsPerSecond, perCall.raw.callsPerSecond)} raw, ${ratio(p.callsPerSecond, perCall.sdk.callsPerSecond)} SDK (throughput)`,
        target,
      ]);
    }
  }

  if (runs('gateway')) {
    section('Gateway: mcpx serve and its peers in front of the minimal server (stdio and HTTP)');
    await gatewayTable();
  }

  if (runs('tracing')) {
    section('Tracing (cold call and gateway call: off, and on to a local OTLP receiver)');
    await tracingRows();
  }

  if (runs('large')) {
    section('Large result');
    // 10 MB of text: its JSON-RPC line stays under the 10 MiB default line limit.
    const bytes = 10_000_000;
    const large = {};
    const largeRuns = { raw: [], sdk: [], mcpx: [] };
    for (let i = 0; i < (quick ? 1 : 5); i++) {
      for (const variant of Object.keys(largeRuns))
        largeRuns[variant].push(await worker(lib('large-result-worker.mjs'), [variant, String(bytes)], env));
    }
    for (const [variant, runs] of Object.entries(largeRuns)) {
      large[variant] = {
        ms: median(runs.map((r) => r.ms)),
        peakRssMb: median(runs.map((r) => r.peakRssMb)),
        error: runs.find((r) => r.error)?.error,
      };
      if (large[variant].error) notes.push(`${variant} 10 MB result failed: ${large[variant].error}`);
    }
    for (const variant of ['sdk', 'mcpx']) {
      rows.push([
        `10 MB result: ${variant === 'sdk' ? 'SDK directly' : 'mcpx'}`,
        'raw',
        `${fmt(large.raw.ms)} ms, ${fmt(large.raw.peakRssMb)} MB RSS`,
        large[variant].error
          ? `failed`
          : `${fmt(large[variant].ms)} ms, ${fmt(large[variant].peakRssMb)} MB RSS`,
        large[variant].error
          ? 'n/a'
          : `${ratio(large[variant].ms, large.raw.ms)} time, ${signed(large[variant].peakRssMb - large.raw.peakRssMb)} MB RSS`,
        variant === 'mcpx' ? '≤ 1.5× time, ≤ floor + 30 MB' : '',
      ]);
    }
  }

  if (runs('fanout')) {
    section('Fan-out (minimal server)');
    for (const count of quick ? [1, 10] : [1, 10, 50]) {
      const raw = [];
      const mcpx = [];
      for (let i = 0; i < (quick ? 1 : 5); i++) {
        raw.push((await worker(lib('fan-out-worker.mjs'), ['raw', String(count), minimalServer], env)).ms);
        mcpx.push((await worker(lib('fan-out-worker.mjs'), ['mcpx', String(count), minimalServer], env)).ms);
      }
      rows.push([
        `Fan-out: connect + list ${count} minimal servers`,
        'raw parallel handshakes',
        `${fmt(median(raw))} ms`,
        `${fmt(median(mcpx))} ms`,
        ratio(median(mcpx), median(raw)),
        count === 50 ? '≤ 1.25×' : '',
      ]);
    }
  }
  if (runs('console')) {
    section('Console page data: 50 minimal servers, 1,000 calls in the history');
    await consoleRows();
  }
  if (runs('daemon')) {
    section('Warm call through the keep-alive daemon (minimal server)');
    await daemonRows();
  }
  if (runs('sessions')) {
    section(
      'Five mcpx serve sessions, three keep-alive reference servers: shared through the daemon vs direct',
    );
    await sessionRows();
  }
  if (runs('thin')) {
    section('Shared sessions per call: a thin mcpx serve over a daemon-held minimal server');
    await thinRows();
  }
  if (runs('fleet')) {
    section('Fleet: one mcpx serve --http, and three behind nginx (minimal server, 2026-07-28 client)');
    await fleetRows();
  }
} finally {
  clearInterval(sampler);
  await rm(home, { recursive: true, force: true });
}

/**
 * `mcpx console` over 50 minimal servers with 1,000 calls made from its API (its history's cap):
 * the page's data requests against the same bodies from a bare node:http server, and the page in
 * chromium (`lib/console-worker.mjs`; one console per round, medians over the rounds).
 */
async function consoleRows() {
  const servers = 50;
  const calls = 1000;
  const results = [];
  for (let i = 0; i < (quick ? 1 : 3); i++)
    results.push(
      await worker(
        lib('console-worker.mjs'),
        [cli, minimalServer, String(servers), String(calls), String(quick ? 30 : 200)],
        env,
      ),
    );
  const of = (pick) => median(results.map(pick));
  const kb = fmt(of((r) => r.stateBytes) / 1024, 0);
  for (const [path, what] of [
    [
      '/api/state',
      `servers, tools, ${results[0].historyKept.toLocaleString('en-US')} calls and audit records kept, ${kb} KB`,
    ],
    ['/api/waterfalls', `${servers} connect waterfalls`],
  ]) {
    const floor = of((r) => r.ms[`floor ${path}`]);
    const mcpx = of((r) => r.ms[`console ${path}`]);
    rows.push([
      `Console \`GET ${path}\` (${what})`,
      'the same JSON from a bare node:http server',
      `${fmt(floor, 2)} ms`,
      `${fmt(mcpx, 2)} ms`,
      ratio(mcpx, floor),
      'reported',
    ]);
  }
  const page = results.map((r) => r.page).filter((p) => p && p.error === undefined);
  if (page.length === 0) {
    notes.push(`console: the page was not timed (${results[0].page?.error ?? 'no chromium'})`);
    return;
  }
  for (const [key, what] of [
    ['firstRenderMs', 'first render, navigation to 1,000 calls drawn'],
    ['liveUpdateMs', 'live update, a call made to it drawn'],
  ])
    rows.push([
      `Console page in chromium: ${what}`,
      '',
      '',
      `${fmt(median(page.map((p) => p[key])))} ms`,
      '',
      'reported',
    ]);
}

/**
 * A warm `mcpx call` through the keep-alive daemon (started and warmed before timing) against
 * `node -e 0`, the direct cold call on the same config, and mcporter's warm daemon call on the same
 * minimal server, all alternating round by round.
 */
/**
 * Issue 27: tracing off must cost what mcpx cost before (against `--baseline`, a build without
 * tracing), and tracing on (spans exported over OTLP/HTTP to a receiver in this process) is reported.
 */
async function tracingRows() {
  const { createServer } = await import('node:http');
  let exports = 0;
  const receiver = createServer((request, response) => {
    request.resume().on('end', () => {
      exports++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const traced = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.address().port}` };
  try {
    const config = join(home, 'tracing.json');
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [minimalServer] } } }),
    );
    const callWith = (cliPath, callEnv) => ({
      command: process.execPath,
      args: [cliPath, '--config', config, 'call', 'bench.echo', 'message=hi'],
      env: callEnv,
    });
    const commands = [callWith(cli, env), callWith(cli, traced)];
    if (baselineCli) commands.push(callWith(baselineCli, env));
    await pairedMedians(commands, 1); // the era remembered, as every later run has it
    const [off, on, before] = await pairedMedians(commands, rounds * 2);
    if (before !== undefined)
      rows.push([
        'Cold call, tracing off',
        'the baseline build',
        `${fmt(before)} ms`,
        `${fmt(off)} ms`,
        ratio(off, before),
        'within noise',
      ]);
    else
      notes.push(
        'tracing: no --baseline DIR given, so tracing off is not compared with a build without tracing',
      );
    rows.push([
      'Cold call, tracing on (OTLP/HTTP, local receiver)',
      'tracing off',
      `${fmt(off)} ms`,
      `${fmt(on)} ms`,
      ratio(on, off),
      'reported',
    ]);

    const calls = quick ? 300 : 1000;
    const variants = [
      ['off', env],
      ['on', { ...env, ...traced, OTEL_BSP_SCHEDULE_DELAY: '200' }],
      ...(baselineCli ? [['baseline', { ...env, BENCH_MCPX_CLI: baselineCli }]] : []),
    ];
    const seq = Object.fromEntries(variants.map(([name]) => [name, []]));
    for (let i = 0; i < (quick ? 1 : 5); i++)
      for (const [name, workerEnv] of variants)
        seq[name].push(
          (await worker(lib('gateway-worker.mjs'), ['gateway', String(calls), '200'], workerEnv))
            .sequentialUs,
        );
    const us = (name) => median(seq[name]);
    if (baselineCli)
      rows.push([
        'Gateway call (`serve`, sequential), tracing off',
        'the baseline build',
        `${fmt(us('baseline'))} µs`,
        `${fmt(us('off'))} µs`,
        ratio(us('off'), us('baseline')),
        'within noise',
      ]);
    rows.push([
      'Gateway call (`serve`, sequential), tracing on',
      'tracing off',
      `${fmt(us('off'))} µs`,
      `${fmt(us('on'))} µs`,
      ratio(us('on'), us('off')),
      'reported',
    ]);
    notes.push(`tracing: the receiver accepted ${exports} OTLP exports`);
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

async function daemonRows() {
  const config = join(home, 'keep-alive.json');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: { bench: { command: process.execPath, args: [minimalServer], keep_alive: true } },
    }),
  );
  const mcpx = (args, callEnv = env, node = process.execPath) => ({
    command: node,
    args: [cli, '--config', config, ...args],
    env: callEnv,
  });
  const warmCall = mcpx(['call', 'bench.echo', 'message=hi']);
  const directCall = mcpx(['call', 'bench.echo', 'message=hi'], { ...env, MCPX_DAEMON: 'off' });
  const nodeOnly = { command: process.execPath, args: ['-e', '0'], env };
  const withMcporter = existsSync(mcporterCli) && existsSync(node24);
  if (!withMcporter)
    notes.push(
      'mcporter rows left out: mcporter is not installed (`npm install --prefix bench/mcporter` installs it with its Node 24)',
    );
  // mcporter's own config: the same minimal server, kept warm by its daemon (`"lifecycle": "keep-alive"`).
  const mcporterConfig = join(home, 'mcporter.json');
  await writeFile(
    mcporterConfig,
    JSON.stringify({
      mcpServers: { bench: { command: node24, args: [minimalServer], lifecycle: 'keep-alive' } },
    }),
  );
  const mcporter = (args) => ({
    command: node24,
    args: [mcporterCli, '--config', mcporterConfig, ...args],
    env,
  });
  const mcporterWarm = mcporter(['call', 'bench.echo', 'message=hi']);
  const node24Only = { command: node24, args: ['-e', '0'], env };
  const warmOn24 = mcpx(['call', 'bench.echo', 'message=hi'], env, node24);
  // What V8's compile cache (Node >= 22.1) would save the warm call: a private cache folder, filled untimed.
  const compileCache = join(home, 'compile-cache');
  const warmOn24Cached = mcpx(
    ['call', 'bench.echo', 'message=hi'],
    { ...env, NODE_COMPILE_CACHE: compileCache },
    node24,
  );
  try {
    // Start both daemons and warm their servers untimed: every timed call finds them ready.
    await pairedMedians([mcpx(['daemon', 'start']), warmCall, directCall], 1);
    if (withMcporter) await pairedMedians([mcporter(['daemon', 'start']), mcporterWarm, warmOn24Cached], 1);
    const commands = [
      nodeOnly,
      warmCall,
      directCall,
      ...(withMcporter ? [node24Only, mcporterWarm, warmOn24, warmOn24Cached] : []),
    ];
    const [node, warm, direct, node24Alone, peerWarm, warmNode24, warmNode24Cached] = await pairedMedians(
      commands,
      rounds,
    );
    rows.push([
      'Warm call through the daemon (keep_alive minimal server)',
      '`node -e 0`',
      `${fmt(node)} ms`,
      `${fmt(warm)} ms`,
      ratio(warm, node),
      '≤ 2×',
    ]);
    rows.push([
      'Warm call through the daemon vs the direct cold call (MCPX_DAEMON=off)',
      'direct cold `mcpx call`',
      `${fmt(direct)} ms`,
      `${fmt(warm)} ms`,
      ratio(warm, direct),
      '',
    ]);
    if (withMcporter) {
      rows.push([
        'mcporter 0.12 warm daemon call (Node 24), same minimal server',
        '`node -e 0` (Node 24) / mcpx warm (Node 20)',
        `${fmt(node24Alone)} / ${fmt(warm)} ms`,
        `${fmt(peerWarm)} ms`,
        `${ratio(peerWarm, node24Alone)} node, ${ratio(peerWarm, warm)} mcpx`,
        '',
      ]);
      rows.push([
        'Warm call through the daemon, mcpx on Node 24 (like for like with mcporter)',
        '`node -e 0` (Node 24) / mcporter warm',
        `${fmt(node24Alone)} / ${fmt(peerWarm)} ms`,
        `${fmt(warmNode24)} ms`,
        `${ratio(warmNode24, node24Alone)} node, ${ratio(warmNode24, peerWarm)} mcporter`,
        '≤ 2×',
      ]);
      rows.push([
        "Warm call through the daemon, mcpx on Node 24 with V8's compile cache in `NODE_COMPILE_CACHE` (the row above uses mcpx's own, under its home)",
        "`node -e 0` (Node 24) / mcpx on Node 24 with mcpx's own cache",
        `${fmt(node24Alone)} / ${fmt(warmNode24)} ms`,
        `${fmt(warmNode24Cached)} ms`,
        `${ratio(warmNode24Cached, node24Alone)} node, ${ratio(warmNode24Cached, warmNode24)} own cache`,
        '',
      ]);
    }
  } finally {
    // Neither daemon may outlive the bench (its home is removed next).
    await pairedMedians([mcpx(['daemon', 'stop'])], 1).catch(() => {});
    if (withMcporter) await pairedMedians([mcporter(['daemon', 'stop'])], 1).catch(() => {});
  }
}

/**
 * Five `mcpx serve` sessions on one config of three keep-alive reference servers, as five agent
 * sessions start them: every process running for them and their total RSS, shared through the
 * daemon against each session starting its own servers (MCPX_DAEMON=off), alternating.
 */
async function sessionRows() {
  if (!existsSync('/proc/self/status')) {
    notes.push('shared-sessions row left out: it reads processes from /proc (Linux)');
    return;
  }
  const figures = { shared: [], direct: [] };
  for (let i = 0; i < (quick ? 1 : 3); i++) {
    for (const mode of ['shared', 'direct']) {
      const sessionHome = await mkdtemp(join(tmpdir(), `mcpx-bench-sessions-${mode}-`));
      try {
        figures[mode].push(await worker(lib('shared-sessions-worker.mjs'), [mode, sessionHome, '5'], env));
      } finally {
        await rm(sessionHome, { recursive: true, force: true });
      }
    }
  }
  const summary = (list) => ({
    processes: median(list.map((f) => f.processes)),
    servers: median(list.map((f) => f.servers)),
    rssMb: median(list.map((f) => f.rssMb)),
  });
  const shared = summary(figures.shared);
  const direct = summary(figures.direct);
  // Per serve process: every direct one, and every shared one (each a thin bridge to the daemon's
  // session; the first started the daemon, so its start is left out of the start row).
  const serves = (mode, from) => figures[mode].flatMap((f) => f.serves.slice(from));
  const thin = serves('shared', 0);
  const full = serves('direct', 0);
  const mb = (list, key) => median(list.map((s) => s[key])) / 1024;
  const said = (f) => `${f.processes} processes (${f.servers} servers), ${fmt(f.rssMb, 0)} MB`;
  rows.push([
    'Five `mcpx serve` sessions on three keep_alive reference servers (everything, memory, filesystem): processes and total RSS',
    'each session its own servers (`MCPX_DAEMON=off`)',
    said(direct),
    said(shared),
    `${ratio(shared.rssMb, direct.rssMb)} RSS`,
    '',
  ]);
  rows.push([
    'One `mcpx serve` process per session, all its servers held by the daemon (a thin bridge): RSS (private)',
    'a full serve (`MCPX_DAEMON=off`)',
    `${fmt(mb(full, 'rssKb'), 1)} MB (${fmt(mb(full, 'anonKb'), 1)} MB)`,
    `${fmt(mb(thin, 'rssKb'), 1)} MB (${fmt(mb(thin, 'anonKb'), 1)} MB)`,
    `${ratio(mb(thin, 'rssKb'), mb(full, 'rssKb'))} RSS, ${ratio(mb(thin, 'anonKb'), mb(full, 'anonKb'))} private`,
    '≤ 40 MB',
  ]);
  const floorRss = median(figures.shared.map((f) => f.bridgeRssKb)) / 1024;
  rows.push([
    'The same thin `mcpx serve`: RSS (private)',
    'the floor of any bridge: a Node process piping its stdin to a Unix socket and back (`lib/socket-bridge.cjs`)',
    `${fmt(floorRss, 1)} MB (${fmt(median(figures.shared.map((f) => f.bridgeAnonKb)) / 1024, 1)} MB)`,
    `${fmt(mb(thin, 'rssKb'), 1)} MB (${fmt(mb(thin, 'anonKb'), 1)} MB)`,
    `${ratio(mb(thin, 'rssKb'), floorRss)} RSS`,
    '',
  ]);
  const all = (key) => median(figures.shared.flatMap((f) => f[key]));
  const warmNode = all('warmNodeStartMs');
  rows.push([
    'Thin `mcpx serve` start, every server up in the daemon: spawn → `initialize` answered',
    '`node -e 0`, spawn → exit (beside each session)',
    `${fmt(warmNode, 0)} ms`,
    `${fmt(all('warmThinStartMs'), 0)} ms (the floor bridge: ${fmt(all('bridgeStartMs'), 0)} ms)`,
    `${ratio(all('warmThinStartMs'), warmNode)} (floor bridge ${ratio(all('bridgeStartMs'), warmNode)})`,
    '≤ 2×',
  ]);
  // Sessions 2 to 5 start while the daemon, started by the first, is still starting its servers.
  const nodeStart = median(figures.shared.flatMap((f) => f.nodeStartMs.slice(1)));
  const thinStart = median(serves('shared', 1).map((s) => s.startMs));
  rows.push([
    'Thin `mcpx serve` start while the daemon starts its servers (sessions 2–5)',
    '`node -e 0`, spawn → exit (beside each session)',
    `${fmt(nodeStart, 0)} ms`,
    `${fmt(thinStart, 0)} ms (full serve: ${fmt(median(full.map((s) => s.startMs)), 0)} ms)`,
    ratio(thinStart, nodeStart),
    '',
  ]);
}

/**
 * Issue 44: a call through a thin `mcpx serve` (its server `keep_alive`, held by the daemon, which
 * runs the session) against the raw line relay, the two-hop floor (`lib/socket-bridge.cjs` in
 * front of `lib/raw-socket-relay.mjs`: the two processes any sharing of one server among stdio
 * clients puts on the path, doing nothing else) and a direct `mcpx serve` (namespaced, as the thin
 * one is), routes rotated round by round (`lib/gateway-peers-worker.mjs`): sequentially at steady
 * state and with 200 in flight, and the CPU per call of each relay (the thin serve's with the
 * daemon's, the floor's bridge with its relay).
 */
async function thinRows() {
  // With `--baseline DIR`, that build's thin serve too (its own MCPX_HOME), in the same rotation.
  const routes = [
    'relay',
    'mcpx-namespaced',
    'mcpx-thin',
    'relay-two-hop',
    ...(baselineCli ? ['baseline-thin'] : []),
  ];
  const calls = String(quick ? 300 : 3000);
  const inFlight = 200;
  const runsOf = Object.fromEntries(routes.map((route) => [route, []]));
  const baselineEnv = { ...env, MCPX_HOME: join(home, 'baseline-home'), BENCH_MCPX_CLI: baselineCli };
  for (let i = 0; i < (quick ? 1 : 5); i++)
    for (const route of routes.slice(i % routes.length).concat(routes.slice(0, i % routes.length))) {
      const baseline = route === 'baseline-thin';
      const result = await worker(
        lib('gateway-peers-worker.mjs'),
        [baseline ? 'mcpx-thin' : route, calls, String(inFlight), calls],
        baseline ? baselineEnv : env,
      );
      if (result.error) notes.push(`thin ${route}: ${result.error}`);
      // Kept by round (a failed one as undefined), so that the baseline pairs with its own round.
      runsOf[route].push(result.error ? undefined : result);
    }
  const done = (route) => runsOf[route].filter(Boolean);
  const of = (route, key) => median(done(route).map((r) => r[key]));
  if (routes.some((route) => done(route).length === 0)) return;
  const [relay, direct, thin, twoHop] = routes;
  const us = (route) => of(route, 'sequentialUs');
  // In flight as time per call, as the sequential rows read.
  const perCall = (route) => 1e6 / of(route, 'callsPerSecond');
  const cpu = (route, key) => fmt(of(route, key), 0);
  rows.push([
    'Thin `mcpx serve` (keep_alive minimal server held by the daemon), sequential call',
    'raw line relay / two-hop floor / direct `mcpx serve` (namespaced)',
    `${fmt(us(relay), 0)} / ${fmt(us(twoHop), 0)} / ${fmt(us(direct), 0)} µs`,
    `${fmt(us(thin), 0)} µs`,
    `${ratio(us(thin), us(relay))} relay, ${ratio(us(thin), us(twoHop))} two-hop floor, ${ratio(us(thin), us(direct))} direct serve (direct serve ${ratio(us(direct), us(relay))} relay); CPU µs/call (serve + daemon / floor / direct / relay) ${cpu(thin, 'relayCpuUs')} / ${cpu(twoHop, 'relayCpuUs')} / ${cpu(direct, 'relayCpuUs')} / ${cpu(relay, 'relayCpuUs')}`,
    '≤ 1.5× relay',
  ]);
  rows.push([
    `Thin \`mcpx serve\`, ${inFlight} calls in flight (time per call)`,
    'raw line relay / two-hop floor / direct `mcpx serve` (namespaced)',
    `${fmt(perCall(relay), 0)} / ${fmt(perCall(twoHop), 0)} / ${fmt(perCall(direct), 0)} µs`,
    `${fmt(perCall(thin), 0)} µs`,
    `${ratio(perCall(thin), perCall(relay))} relay, ${ratio(perCall(thin), perCall(twoHop))} two-hop floor, ${ratio(perCall(thin), perCall(direct))} direct serve (direct serve ${ratio(perCall(direct), perCall(relay))} relay); CPU µs/call ${cpu(thin, 'inFlightRelayCpuUs')} / ${cpu(twoHop, 'inFlightRelayCpuUs')} / ${cpu(direct, 'inFlightRelayCpuUs')} / ${cpu(relay, 'inFlightRelayCpuUs')}`,
    '≤ 1.5× relay',
  ]);
  if (!baselineCli) return;
  const base = 'baseline-thin';
  // Each round's ratio, then their median: on a loaded machine the pair moves together. A round
  // where either failed is left out.
  const pairs = runsOf[thin].flatMap((r, i) => (r && runsOf[base][i] ? [[r, runsOf[base][i]]] : []));
  const paired = (key) => median(pairs.map(([r, b]) => r[key] / b[key])).toFixed(2);
  rows.push([
    'Thin `mcpx serve` against the baseline build, sequential / in flight (time per call)',
    'the baseline build',
    `${fmt(us(base), 0)} / ${fmt(perCall(base), 0)} µs`,
    `${fmt(us(thin), 0)} / ${fmt(perCall(thin), 0)} µs`,
    `${paired('sequentialUs')}× / ${(1 / Number(paired('callsPerSecond'))).toFixed(2)}× (paired); CPU µs/call ${cpu(thin, 'relayCpuUs')} / ${cpu(thin, 'inFlightRelayCpuUs')} against ${cpu(base, 'relayCpuUs')} / ${cpu(base, 'inFlightRelayCpuUs')}`,
    'reported',
  ]);
}

/**
 * The fleet row (issue 43): calls/s through one `mcpx serve --http`, one behind nginx and three
 * behind nginx, each instance with its own minimal stdio server (`lib/fleet-worker.mjs`, a fresh
 * fleet per variant and round, the variants paired round by round). Skipped, saying why, without
 * nginx. With a build whose `mcpx serve` has `--state` (issue 43 item 1) and a `redis-server`, the
 * same fleets run again sharing their state in a private Redis on loopback.
 */
async function fleetRows() {
  const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx'].find((p) => existsSync(p));
  if (!nginx) {
    const reason = 'fleet: not run — nginx is not installed (`apt-get install nginx`; .ci/run installs it)';
    process.stderr.write(`${reason}\n`);
    notes.push(reason);
    return;
  }
  const variants = [
    ['one', 'one instance, reached directly'],
    ['one-nginx', 'one instance behind nginx'],
    ['three-nginx', 'three instances behind nginx (round robin)'],
  ];
  const sequential = quick ? 100 : 1000;
  const concurrent = quick ? 300 : 3000;
  const inFlight = 64;
  // A 2025-11-25 session is pinned to its instance without the store: round robin over three
  // instances is measured for it only with the store, which lets any instance continue it.
  const legacyVariants = (stateUrl) => (stateUrl ? variants : variants.slice(0, 2));
  const measure = async (stateUrl, era = '2026-07-28') => {
    const measured = era === '2025-11-25' ? legacyVariants(stateUrl) : variants;
    const runsOf = Object.fromEntries(measured.map(([v]) => [v, []]));
    for (let i = 0; i < (quick ? 1 : 5); i++)
      for (const [variant] of measured) {
        const args = [variant, nginx, String(sequential), String(concurrent), String(inFlight)];
        const withState = {
          ...env,
          ...(stateUrl ? { BENCH_FLEET_STATE: stateUrl } : {}),
          ...(era === '2025-11-25' ? { BENCH_FLEET_ERA: era } : {}),
        };
        runsOf[variant].push(await worker(lib('fleet-worker.mjs'), args, withState));
      }
    for (const [variant, results] of Object.entries(runsOf)) {
      const warned = [...new Set(results.flatMap((r) => r.warnings))];
      if (warned.length) notes.push(`fleet ${variant}: process warnings ${warned.join(', ')}`);
    }
    return Object.fromEntries(
      Object.entries(runsOf).map(([v, results]) => [
        v,
        {
          callsPerSecond: median(results.map((r) => r.callsPerSecond)),
          sequentialUs: median(results.map((r) => r.sequentialUs)),
        },
      ]),
    );
  };
  const push = (figures, suffix = '', one = figures.one) => {
    for (const [variant, label] of variants.filter(([v]) => figures[v]))
      rows.push([
        `Fleet${suffix}: ${label}, ${inFlight} in flight`,
        'one instance, directly',
        `${fmt(one.callsPerSecond, 0)} calls/s`,
        `${fmt(figures[variant].callsPerSecond, 0)} calls/s (${fmt(figures[variant].sequentialUs, 0)} µs/call one at a time)`,
        `${ratio(figures[variant].callsPerSecond, one.callsPerSecond)} (throughput)`,
        '',
      ]);
  };
  const plain = await measure(undefined);
  push(plain);
  notes.push(
    `fleet: ${cpus().length} cores for the client, nginx and every instance with its own stdio server: three instances on one machine share its cores, so the figure shows the cost of the fleet's hops more than a fleet's capacity`,
  );
  // HERE the "with --state redis://" rows (issue 43 item 1): on once the built `mcpx serve` has the flag.
  const store = await sharedStore();
  if (store.reason) {
    notes.push(`fleet with --state: not run — ${store.reason}`);
    return;
  }
  const storeAdds = (without, withStore, era) => {
    for (const [variant, label] of variants.filter(([v]) => without[v] && withStore[v]))
      rows.push([
        `Fleet, ${era}: time the shared store adds per call, ${label}`,
        'the same fleet without --state',
        `${fmt(without[variant].sequentialUs, 0)} µs/call`,
        `${fmt(withStore[variant].sequentialUs, 0)} µs/call`,
        `${signed(withStore[variant].sequentialUs - without[variant].sequentialUs)} µs/call`,
        '',
      ]);
  };
  try {
    const shared = await measure(store.url);
    push(shared, ' with --state redis:// (loopback)');
    storeAdds(plain, shared, '2026-07-28 (stateless: a call that asks nothing makes no store round trip)');
    // A 2025-11-25 session's streamed call writes each event to the store before sending it: the
    // store's real cost (a plain call answered as one JSON body writes none).
    const legacyPlain = await measure(undefined, '2025-11-25');
    const legacyShared = await measure(store.url, '2025-11-25');
    push(legacyPlain, ', 2025-11-25 session, calls streamed (a progress token)');
    push(
      legacyShared,
      ', 2025-11-25 session, calls streamed, with --state redis:// (loopback)',
      legacyPlain.one,
    );
    storeAdds(legacyPlain, legacyShared, '2025-11-25 session, calls streamed (each event kept in the store)');
  } finally {
    await store.stop();
  }
}

/** A private `redis-server` on loopback for the fleet's shared-store rows, or why there is none. */
async function sharedStore() {
  const help = await timed(process.execPath, [cli, 'serve', '--help'], env).catch(() => ({ stdout: '' }));
  if (!/--state\b(?!-)/.test(help.stdout))
    return { reason: "this build's `mcpx serve` has no --state (issue 43 item 1)" };
  const redis = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));
  if (!redis) return { reason: 'redis-server is not installed (`apt-get install redis-server`)' };
  const { spawn } = await import('node:child_process');
  const { createServer, connect } = await import('node:net');
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  const child = spawn(
    redis,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      }).once('error', () => resolve(false));
    });
    if (up) return { url: `redis://127.0.0.1:${port}`, stop };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await stop();
  return { reason: 'redis-server did not start' };
}

/**
 * The gateway table (issue 26): the SDK `Client` reaching the minimal stdio server through each
 * relay (`lib/gateway-peers-worker.mjs`, a fresh process per route and round, routes rotated
 * round by round), against the raw line relay measured in the same rounds. A route that fails to
 * start or to call is a row with its error; the rest of the table still runs.
 */
async function gatewayTable() {
  const allRoutes = [
    ['direct', 'SDK `Client` straight to the server (no relay)', 'stdio'],
    ['relay', 'raw JSON-RPC line relay (`lib/raw-relay.mjs`, the floor)', 'stdio'],
    ['mcpx-transparent', '`mcpx serve --server bench` (transparent)', 'stdio'],
    ['mcpx-namespaced', '`mcpx serve` (namespaced `bench__echo`)', 'stdio'],
    ['mcporter', 'mcporter 0.12.3 `serve --stdio` (Node 24; bridge + daemon)', 'stdio'],
    ['raw-http', 'raw Streamable HTTP relay (`lib/raw-http-relay.mjs`, the HTTP floor)', 'http'],
    ['mcpx-http-2025', '`mcpx serve --http --server bench`, 2025-11-25 client', 'http'],
    ['mcpx-http-2026', '`mcpx serve --http --server bench`, 2026-07-28 client', 'http'],
    ['mcpx-http-sse', '`mcpx serve --http --legacy-sse --server bench`, SSE (`/sse`)', 'http'],
    ['supergateway-sse', 'supergateway 4.0.0 SSE (its default)', 'http'],
    ['supergateway-stateful', 'supergateway 4.0.0 Streamable HTTP `--stateful`', 'http'],
    ['mcp-proxy-sse', 'mcp-proxy 6.7.19 SSE (`/sse`)', 'http'],
    ['mcp-proxy-stream', 'mcp-proxy 6.7.19 Streamable HTTP (`/mcp`), 2025-11-25 client', 'http'],
    ['mcp-proxy-stream-2026', 'mcp-proxy 6.7.19 Streamable HTTP (`/mcp`), 2026-07-28 client', 'http'],
  ];
  // `BENCH_GATEWAY_ROUTES=a,b`: only these routes (with the raw relay, every ratio's floor), for development.
  const chosen = process.env.BENCH_GATEWAY_ROUTES?.split(',');
  const routes = chosen ? allRoutes.filter(([r]) => r === 'relay' || chosen.includes(r)) : allRoutes;
  // Calls per route and round, made sequentially twice (the first calls, then the steady state),
  // then again with `inFlight` at a time (each call that ends starts the next): the same load for
  // all. The first 5,000 calls still carry every process's warm-up (V8 optimises a function only
  // after many calls; caches and heaps grow): relay and client alike spent 20-70% more CPU per
  // call in them than in the next 5,000, and no less in the 5,000 after 15,000. The steady state
  // is what issue 26 asks for; the first calls are reported beside it. In flight the same: one
  // burst of 1,000 (50 ms on stdio) read its throughput ±15% run to run. In flight twice: with
  // 200 calls at once (what issue 44 measures, an agent host's busy moment) and with 1,000.
  // `BENCH_GATEWAY_ROUNDS=N`: fewer (or more) rounds than 5, for development.
  const sequential = { stdio: quick ? 300 : 5000, http: quick ? 100 : 5000 };
  const inFlight = quick ? [50, 200] : [200, 1000];
  const gatewayRounds = quick ? 1 : Number(process.env.BENCH_GATEWAY_ROUNDS ?? 5);
  const runsOf = Object.fromEntries(routes.map(([route]) => [route, []]));
  for (let i = 0; i < gatewayRounds; i++) {
    for (const [route, , transport] of routes) {
      const calls = String(sequential[transport]);
      const args = [route, calls, inFlight.join(','), calls];
      runsOf[route].push(
        await worker(lib('gateway-peers-worker.mjs'), args, env).catch((error) => ({
          route,
          // The worker's own crash: the error line of its stderr, not the command line.
          error: (
            String(error.message)
              .split('\n')
              .find((line) => /Error\b/.test(line)) ?? String(error.message)
          ).slice(0, 300),
          warnings: [],
        })),
      );
    }
  }
  const of = (route) => {
    const ok = runsOf[route].filter((r) => !r.error);
    const warnings = [...new Set(runsOf[route].flatMap((r) => r.warnings ?? []))];
    if (warnings.length) notes.push(`gateway ${route}: client process warnings ${warnings.join(', ')}`);
    const failed = runsOf[route].length - ok.length;
    if (failed && ok.length)
      notes.push(
        `gateway ${route}: ${failed} of ${runsOf[route].length} runs failed: ${runsOf[route].find((r) => r.error).error}`,
      );
    if (!ok.length) return { error: runsOf[route][0]?.error ?? 'not run' };
    const medianOf = (key) =>
      ok.some((r) => r[key] === undefined) ? undefined : median(ok.map((r) => r[key]));
    const inFlightOf = (n, key) =>
      ok.some((r) => r.inFlight?.[n]?.[key] === undefined)
        ? undefined
        : median(ok.map((r) => r.inFlight[n][key]));
    return {
      inFlight: Object.fromEntries(
        inFlight.map((n) => [
          n,
          {
            callsPerSecond: inFlightOf(n, 'callsPerSecond'),
            relayCpuUs: route === 'direct' ? undefined : inFlightOf(n, 'relayCpuUs'),
            clientCpuUs: inFlightOf(n, 'clientCpuUs'),
          },
        ]),
      ),
      sequentialUs: medianOf('sequentialUs'),
      callsPerSecond: medianOf('callsPerSecond'),
      clientCpuUs: medianOf('clientCpuUs'),
      relayCpuUs: route === 'direct' ? undefined : medianOf('relayCpuUs'),
      firstSequentialUs: medianOf('firstSequentialUs'),
      firstRelayCpuUs: route === 'direct' ? undefined : medianOf('firstRelayCpuUs'),
      inFlightRelayCpuUs: route === 'direct' ? undefined : medianOf('inFlightRelayCpuUs'),
    };
  };
  const figures = Object.fromEntries(routes.map(([route]) => [route, of(route)]));
  const floor = figures.relay;
  const cpu = (us) => (us === undefined ? '—' : fmt(us, 0));
  gatewayRows.push(
    ...routes.map(([route, label, transport]) => {
      const g = figures[route];
      if (g.error)
        return [
          label,
          transport,
          `failed: ${g.error.replaceAll('|', '\\|')}`,
          ...Array(5 + 3 * inFlight.length).fill(''),
        ];
      return [
        label,
        transport,
        fmt(g.sequentialUs, 0),
        floor.error ? 'n/a' : ratio(g.sequentialUs, floor.sequentialUs),
        fmt(g.firstSequentialUs, 0),
        ...inFlight.flatMap((n) => {
          const [mine, floors] = [g.inFlight[n], floor.inFlight?.[n]];
          return [
            mine.callsPerSecond === undefined ? '—' : fmt(mine.callsPerSecond, 0),
            // In flight as time per call against the relay's, the way the sequential column reads.
            floor.error || !floors?.callsPerSecond || !mine.callsPerSecond
              ? 'n/a'
              : ratio(floors.callsPerSecond, mine.callsPerSecond),
            cpu(mine.relayCpuUs),
          ];
        }),
        cpu(g.relayCpuUs),
        cpu(g.firstRelayCpuUs),
        cpu(g.clientCpuUs),
      ];
    }),
  );
  gatewayHeads = inFlight;
  gatewayFacts = `${gatewayRounds} rounds; per route and round ${sequential.stdio} (stdio) / ${sequential.http} (HTTP) sequential calls after 200 untimed (the first calls), then as many again (the steady state), then as many again with ${inFlight.join(', then with ')} in flight`;
  // mcpx beside each peer on its transport, in flight: its time per call as a multiple of theirs,
  // and its relay CPU per call as a multiple of theirs (below 1×: mcpx ahead).
  const peersOf = {
    stdio: ['relay', 'mcporter'],
    http: [
      'raw-http',
      'supergateway-sse',
      'supergateway-stateful',
      'mcp-proxy-sse',
      'mcp-proxy-stream',
      'mcp-proxy-stream-2026',
    ],
  };
  const label = {
    relay: 'the raw line relay',
    mcporter: 'mcporter',
    'raw-http': 'the raw HTTP relay',
    'supergateway-sse': 'supergateway SSE',
    'supergateway-stateful': 'supergateway Streamable HTTP',
    'mcp-proxy-sse': 'mcp-proxy SSE',
    'mcp-proxy-stream': 'mcp-proxy Streamable HTTP (2025-11-25)',
    'mcp-proxy-stream-2026': 'mcp-proxy Streamable HTTP (2026-07-28)',
    'mcpx-transparent': '`mcpx serve --server bench` (stdio)',
    'mcpx-namespaced': '`mcpx serve` (stdio, namespaced)',
    'mcpx-http-2025': '`mcpx serve --http`, 2025-11-25 client',
    'mcpx-http-2026': '`mcpx serve --http`, 2026-07-28 client',
    'mcpx-http-sse': '`mcpx serve --http --legacy-sse`, SSE',
  };
  for (const [mine, transport] of [
    ['mcpx-transparent', 'stdio'],
    ['mcpx-namespaced', 'stdio'],
    ['mcpx-http-2025', 'http'],
    ['mcpx-http-2026', 'http'],
    ['mcpx-http-sse', 'http'],
  ]) {
    const m = figures[mine];
    if (!m || m.error) continue;
    for (const n of inFlight) {
      const beside = peersOf[transport]
        .filter((peer) => figures[peer] && !figures[peer].error && figures[peer].inFlight[n].callsPerSecond)
        .map((peer) => {
          const p = figures[peer].inFlight[n];
          const cpuRatio =
            p.relayCpuUs && m.inFlight[n].relayCpuUs
              ? `, CPU ${ratio(m.inFlight[n].relayCpuUs, p.relayCpuUs)}`
              : '';
          return `${ratio(p.callsPerSecond, m.inFlight[n].callsPerSecond)} ${label[peer]}${cpuRatio}`;
        });
      if (beside.length) gatewayVersus.push(`${label[mine]}, ${n} in flight: time ${beside.join('; ')}`);
    }
  }
}

/** `+5.4` or `−5.9`: how far above (or below) the floor's peak RSS. */
function signed(value) {
  return value < 0 ? `−${fmt(-value)}` : `+${fmt(value)}`;
}

const header = ['measure', 'baseline', 'baseline figure', 'mcpx', 'ratio', 'target'];
const markdown = (head, body) =>
  [head, head.map(() => '---'), ...body].map((r) => `| ${r.join(' | ')} |`).join('\n');
const table = rows.length === 0 ? '' : markdown(header, rows);
const gatewayHeader = [
  'route',
  'transport',
  'sequential µs/call',
  '× raw relay',
  'first calls, µs/call',
  ...gatewayHeads.flatMap((n) => [
    `${n} in flight, calls/s`,
    `${n} in flight, × raw relay`,
    `relay CPU µs/call, ${n} in flight`,
  ]),
  'relay CPU µs/call',
  'relay CPU µs/call, first calls',
  'client CPU µs/call',
];
const gatewayTableText =
  gatewayRows.length === 0
    ? ''
    : `\n\nGateway: the SDK \`Client\` through each relay to the same minimal stdio server (${gatewayFacts}); CPU from /proc; client CPU per sequential call.\n\n${markdown(gatewayHeader, gatewayRows)}${gatewayVersus.length ? `\n\nIn flight, mcpx beside each relay on its transport (its time per call and its relay CPU per call as multiples of the other's; below 1×: mcpx ahead):\n\n${gatewayVersus.map((line) => `- ${line}`).join('\n')}` : ''}`;
loads.push(loadavg()[0]);
const load = `load average ${fmt(Math.min(...loads), 1)}–${fmt(Math.max(...loads), 1)} (median ${fmt(median(loads), 1)}) on ${cpus().length} cores during the run`;
// A load above the core count means other work held the CPU for much of the run: say so where the figures are.
const overloaded =
  median(loads) > cpus().length
    ? `\n\nThe machine was overloaded during this run (other jobs shared its ${cpus().length} cores): figures that hang on scheduling — µs per call, calls/s in flight, fan-out — move by 2× between such runs; the cold-call ratios, paired round by round, hold best.`
    : '';
const facts = `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${quick ? 'quick run' : `${rounds} rounds`}, ${load}${baselineName ? `; the baseline build: ${baselineName}` : ''}`;
process.stdout.write(
  `\n${facts}\n\n${table}${gatewayTableText}\n${notes.length ? `\nnotes:\n${notes.map((n) => `- ${n}`).join('\n')}\n` : ''}`,
);
if (!quick && !only) {
  // The sections below the run's own table (`## …`: separate runs, their readings) are kept.
  const results = join(here, 'RESULTS.md');
  const previous = await readFile(results, 'utf8').catch(() => '');
  const kept = previous.indexOf('\n## ');
  await writeFile(
    results,
    `# Benchmark results\n\n${facts}. Medians; every ratio is against a baseline measured in the same run. Every timed process runs with only PATH, HOME and MCPX_HOME set (no NODE_EXTRA_CA_CERTS).${overloaded}\n\n${table}${gatewayTableText}\n${notes.length ? `\nNotes:\n${notes.map((n) => `- ${n}`).join('\n')}\n` : ''}${kept === -1 ? '' : previous.slice(kept)}`,
  );
}
