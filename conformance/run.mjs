#!/usr/bin/env node
// `npm run conformance`: every client scenario of the official MCP conformance
// suite, stable and pre-release, against conformance/client.mjs (mcpx's
// library), then the pre-release's frozen requirement sets for 2025-11-25 and
// 2026-07-28, each scenario at that revision's wire (so scenarios written for
// 2025 run on the 2026 wire too). The same four lines of server scenarios run
// against the conformance backend (dist/testing/conformance-backend.js) over
// HTTP, before the client lines (see server-lines.mjs). They run once more
// through `mcpx serve --http --server backend`, whose results must match the
// direct ones (the bridge is transparent: a gateway line inherits the direct
// line's expected failures and may add none silently), and the gateway's own
// HTTP scenarios run against `mcpx serve --http` (many servers); --no-gateway
// leaves the gateway lines out (the summary then says NOT RUN). --client /
// --server run one half. Fails on a scenario that fails and is not in expected-failures.json,
// and on one that is listed there but now passes or is skipped (the baseline
// stays honest). A scenario whose checks were all skipped
// counts as skipped, never as passed. An unexpected failure is run once more and,
// if it then passes, reported as passing on the 2nd attempt with the first failure.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runServerLine, serverScenariosOf, startGateway, startServer } from './server-lines.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const node22 = join(here, 'node_modules/.bin/node');
const BACKEND = join(here, '../dist/testing/conformance-backend.js');
const TEST_SERVER = join(here, '../dist/testing/test-server.js');
const MCPX = join(here, '../dist/bin/mcpx.cjs');
const SUITES = {
  stable: join(here, 'node_modules/conformance-stable/dist/index.js'),
  next: join(here, 'node_modules/conformance-next/dist/index.js'),
};
// Each line: a suite, and optionally the requirement set (spec revision) whose scenarios it runs at that wire.
const LINES = [
  { name: 'stable', suite: 'stable' },
  { name: 'next', suite: 'next' },
  { name: 'next@2025-11-25', suite: 'next', requirements: '2025-11-25' },
  { name: 'next@2026-07-28', suite: 'next', requirements: '2026-07-28' },
];
// Server lines: the suite against a server. `target` says which: the conformance backend over
// HTTP, that backend through the gateway's transparent bridge, or the gateway's own front.
const SERVER_LINES = [
  { name: 'server/stable', suite: 'stable', target: 'backend' },
  { name: 'server/next', suite: 'next', target: 'backend' },
  { name: 'server/next@2025-11-25', suite: 'next', requirements: '2025-11-25', target: 'backend' },
  { name: 'server/next@2026-07-28', suite: 'next', requirements: '2026-07-28', target: 'backend' },
];
// The gateway's own HTTP behaviour, which no bridged server can lend it.
const GATEWAY_OWN = ['dns-rebinding-protection', 'http-header-validation', 'server-stateless', 'caching'];
const GATEWAY_LINES = [
  ...SERVER_LINES.map((l) => ({
    ...l,
    name: l.name.replace('server/', 'gateway/'),
    target: 'bridge',
    mirrors: l.name,
  })),
  { name: 'gateway/own', suite: 'next', target: 'gateway', scenarios: GATEWAY_OWN },
  {
    name: 'gateway/own@2025-11-25',
    suite: 'next',
    requirements: '2025-11-25',
    target: 'gateway',
    scenarios: ['dns-rebinding-protection'],
  },
];
// The bridge ends a 2025-11-25 call's stream once it has run 50 ms (SSE polling): the backend's
// test_reconnection closes its own stream mid-call directly, but over stdio behind the gateway it
// cannot reach the client's stream, so the gateway does, and server-sse-polling checks the same
// priming event, retry and resumption with Last-Event-ID. Every other bridged call that runs past
// 50 ms is resumed too, so the whole bridged line also shows that a resumed stream loses nothing.
const BRIDGE_ARGS = ['--server', 'backend', '--sse-poll', '50'];
const CONCURRENCY = 3;
const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
// The gateway lines run by default (--gateway is still accepted); --no-gateway leaves them out.
const withGateway = !process.argv.includes('--no-gateway');
// --client / --server: only that half (both by default).
const half = process.argv.includes('--client')
  ? 'client'
  : process.argv.includes('--server')
    ? 'server'
    : 'both';
const clientLines = half === 'server' ? [] : LINES;
const serverLines = half === 'client' ? [] : [...SERVER_LINES, ...(withGateway ? GATEWAY_LINES : [])];
const allLines = [...clientLines, ...serverLines];

if (!existsSync(node22)) {
  console.error(
    'error: the conformance suite is not installed — run `npm install --prefix conformance` first',
  );
  process.exit(2);
}
if (!existsSync(join(here, '../dist/index.js')) || !existsSync(BACKEND)) {
  console.error('error: mcpx is not built — run `npm run build` first');
  process.exit(2);
}
const baseline = JSON.parse(readFileSync(join(here, 'expected-failures.json'), 'utf8'));
/** Why a scenario is expected to fail on a line: its own entry, or the direct line's it mirrors. */
const expectedFailure = (line, scenario) =>
  baseline[line.name]?.[scenario] ?? (line.mirrors ? baseline[line.mirrors]?.[scenario] : undefined);

function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function scenariosOf(line) {
  if (!line.requirements) {
    const { output } = await run(node22, [SUITES[line.suite], 'list', '--client']);
    return [...output.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map((m) => ({ name: m[1], tags: m[2] }));
  }
  // The scenarios the revision requires of a client (its "never scored" extras already run in the plain line).
  const { output } = await run(node22, [
    SUITES[line.suite],
    'list',
    '--client',
    '--requirements',
    line.requirements,
  ]);
  const section = output.split(/^Client scenarios.*$/m)[1]?.split(/^\S/m)[0] ?? '';
  return [...section.matchAll(/^\s+- (\S+)\s*$/gm)].map((m) => ({ name: m[1], tags: line.requirements }));
}

/** Every check the suite wrote for one run (checks.json under `dir`, however deep). */
async function checksIn(dir) {
  const checks = [];
  for (const entry of await readdir(dir, { recursive: true }).catch(() => [])) {
    if (!entry.endsWith('checks.json')) continue;
    try {
      checks.push(...JSON.parse(readFileSync(join(dir, entry), 'utf8')));
    } catch {
      // an unreadable results file leaves the exit code to decide
    }
  }
  return checks;
}

async function runScenario(line, scenario, outRoot) {
  const started = performance.now();
  const outDir = await mkdtemp(join(outRoot, 'run-'));
  const { code, output } = await run(
    node22,
    [
      SUITES[line.suite],
      'client',
      '--command',
      `${process.execPath} ${join(here, 'client.mjs')}`,
      '--scenario',
      scenario.name,
      // What `client --requirements` does for each scenario, one scenario at a time (the
      // suite's own --requirements runs all of them at once, too many for two cores).
      ...(line.requirements ? ['--spec-version', line.requirements, '--force'] : []),
      '--timeout',
      '20000',
      '-o',
      outDir,
    ],
    { env: { PATH: process.env.PATH, HOME: process.env.HOME } },
  );
  const checks = await checksIn(outDir);
  const count = (status) => checks.filter((c) => c.status === status).length;
  const succeeded = count('SUCCESS');
  const failed = count('FAILURE');
  const scored = checks.length - count('SKIPPED') - count('INFO');
  return {
    line: line.name,
    ...scenario,
    // Exit 0 with nothing actually checked (every check SKIPPED, or none at all) proves nothing.
    status: code !== 0 ? 'failed' : scored === 0 ? 'skipped' : 'passed',
    checks: `${succeeded}/${succeeded + failed}${count('SKIPPED') ? ` +${count('SKIPPED')} skipped` : ''}`,
    warnings: count('WARNING'),
    firstFailure: checks.find((c) => c.status === 'FAILURE')?.errorMessage,
    seconds: (performance.now() - started) / 1000,
    output,
  };
}

/**
 * A failure that is not expected gets one more attempt: on a loaded two-core machine a client can
 * miss a deadline. A pass on the second attempt is reported as flaky, with the first failure.
 */
async function runWithRetry(line, scenario, outRoot) {
  const first = await runScenario(line, scenario, outRoot);
  if (first.status !== 'failed' || expectedFailure(line, scenario.name)) return first;
  const second = await runScenario(line, scenario, outRoot);
  return second.status === 'failed'
    ? second
    : { ...second, flaky: first.firstFailure ?? first.output.trim().split('\n').slice(-3).join(' | ') };
}

/** One server line: start what it runs against, run the suite at it, stop it. */
async function runServerTarget(line, outRoot) {
  const scenarios = (await serverScenariosOf(node22, SUITES[line.suite], line)).filter(
    (s) => only.length === 0 || only.includes(s.name),
  );
  if (scenarios.length === 0) return [];
  const started = performance.now();
  let server;
  try {
    server =
      line.target === 'backend'
        ? await startServer(process.execPath, [BACKEND, '--port', '0'])
        : await startGateway({
            node: process.execPath,
            mcpx: MCPX,
            backend: BACKEND,
            testServer: line.target === 'gateway' ? TEST_SERVER : undefined,
            outRoot,
            args: line.target === 'bridge' ? BRIDGE_ARGS : [],
          });
  } catch (error) {
    // Every scenario of the line fails, with the reason: never a silent skip.
    return scenarios.map((s) => ({
      line: line.name,
      ...s,
      status: 'failed',
      checks: '0/0',
      warnings: 0,
      firstFailure: `could not start the ${line.target}: ${error.message.split('\n')[0]}`,
      output: error.message,
    }));
  }
  try {
    const results = await runServerLine({
      node: node22,
      suite: SUITES[line.suite],
      line,
      url: server.url,
      scenarios,
      outRoot,
      expected: expectedFailure,
      oneByOne: only.length > 0,
    });
    serverSeconds.set(line.name, (performance.now() - started) / 1000);
    return results;
  } finally {
    await server.stop();
  }
}

const started = performance.now();
const outRoot = await mkdtemp(join(tmpdir(), 'mcpx-conformance-'));
const results = [];
const serverSeconds = new Map();
try {
  // The server lines first, two at a time: each is one suite process against one server and
  // takes seconds. Beside the client lines they would slow those down on two cores (a client
  // scenario has deadlines) and gain nothing.
  const serverQueue = [...serverLines];
  await Promise.all(
    Array.from({ length: 2 }, async () => {
      for (let next = serverQueue.shift(); next; next = serverQueue.shift())
        results.push(...(await runServerTarget(next, outRoot)));
    }),
  );
  for (const line of clientLines) {
    const queue = (await scenariosOf(line)).filter((s) => only.length === 0 || only.includes(s.name));
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let next = queue.shift(); next; next = queue.shift())
          results.push(await runWithRetry(line, next, outRoot));
      }),
    );
  }
} finally {
  await rm(outRoot, { recursive: true, force: true });
}

let problems = 0;
const clientRows = [];
const serverRows = [];
const tally = new Map(
  allLines.map((l) => [l.name, { passed: 0, flaky: 0, expected: 0, skipped: 0, unexpected: 0 }]),
);
const order = (r) => allLines.findIndex((l) => l.name === r.line);
const isServerLine = (name) => serverLines.some((l) => l.name === name);
const width = Math.max(15, ...serverLines.map((l) => l.name.length));
for (const r of results.sort((a, b) => order(a) - order(b) || a.name.localeCompare(b.name))) {
  const line = allLines.find((l) => l.name === r.line);
  const expected = expectedFailure(line, r.name);
  const counts = tally.get(r.line);
  let verdict;
  if (expected && r.status !== 'failed') {
    verdict = `NOW ${r.status.toUpperCase()}: remove it from expected-failures.json`;
    counts.unexpected++;
    problems++;
  } else if (r.status === 'passed') {
    verdict = r.warnings ? `pass (${r.warnings} warnings)` : 'pass';
    if (r.flaky) {
      verdict += ` on the 2nd attempt; the 1st failed: ${r.flaky}`;
      counts.flaky++;
    }
    counts.passed++;
  } else if (r.status === 'skipped') {
    verdict = 'skipped: every check was skipped';
    counts.skipped++;
  } else if (expected) {
    verdict = `expected failure: ${expected}`;
    counts.expected++;
  } else {
    verdict =
      r.firstFailure && isServerLine(r.line)
        ? `FAIL: ${r.firstFailure.split('\n')[0].slice(0, 160)}`
        : 'FAIL';
    counts.unexpected++;
    problems++;
    console.error(`\n--- ${r.line} ${r.name}\n${r.output}`);
  }
  if (isServerLine(r.line))
    serverRows.push(
      `${r.line.padEnd(width)} ${r.name.padEnd(44)} ${`[${r.tags}]`.padEnd(36)} ${r.checks.padEnd(14)} ${verdict}`,
    );
  else
    clientRows.push(
      `${r.line.padEnd(15)} ${r.name.padEnd(44)} ${`[${r.tags}]`.padEnd(36)} ${r.checks.padEnd(14)} ${verdict}`,
    );
}
if (clientRows.length) console.log(clientRows.join('\n'));
if (clientRows.length && serverRows.length) console.log('');
if (serverRows.length) console.log(serverRows.join('\n'));
console.log('');
for (const [name, c] of tally) {
  if (c.passed + c.expected + c.skipped + c.unexpected === 0) continue;
  const flaky = c.flaky ? ` (${c.flaky} on a 2nd attempt)` : '';
  const seconds = serverSeconds.has(name) ? ` (${serverSeconds.get(name).toFixed(0)} s)` : '';
  console.log(
    `${name.padEnd(width)} ${c.passed} passed${flaky}, ${c.expected} failed as expected, ${c.skipped} skipped, ${c.unexpected} unexpected${seconds}`,
  );
}
if (!withGateway && half !== 'client')
  console.log(
    `${'gateway/*'.padEnd(width)} NOT RUN (--no-gateway): the same server scenarios through \`mcpx serve\` run without it`,
  );
const passed = results.filter((r) => r.status === 'passed').length;
console.log(
  `\n${passed}/${results.length} scenario runs passed; ${problems} unexpected; ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
process.exit(problems ? 1 : 0);
