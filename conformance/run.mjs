#!/usr/bin/env node
// `npm run conformance`: every client scenario of the official MCP conformance
// suite, stable and pre-release, against conformance/client.mjs (mcpx's
// library). Fails on a scenario that fails and is not in expected-failures.json,
// and on one that is listed there but now passes (the baseline stays honest).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const node22 = join(here, 'node_modules/.bin/node');
const SUITES = {
  stable: join(here, 'node_modules/conformance-stable/dist/index.js'),
  next: join(here, 'node_modules/conformance-next/dist/index.js'),
};
const CONCURRENCY = 3;
const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));

if (!existsSync(node22)) {
  console.error(
    'error: the conformance suite is not installed — run `npm install --prefix conformance` first',
  );
  process.exit(2);
}
if (!existsSync(join(here, '../dist/index.js'))) {
  console.error('error: mcpx is not built — run `npm run build` first');
  process.exit(2);
}
const baseline = JSON.parse(readFileSync(join(here, 'expected-failures.json'), 'utf8'));

function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function scenariosOf(suite) {
  const { output } = await run(node22, [SUITES[suite], 'list', '--client']);
  return [...output.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map((m) => ({ name: m[1], tags: m[2] }));
}

async function runScenario(suite, scenario, outDir) {
  const started = performance.now();
  const { code, output } = await run(
    node22,
    [
      SUITES[suite],
      'client',
      '--command',
      `${process.execPath} ${join(here, 'client.mjs')}`,
      '--scenario',
      scenario.name,
      '--timeout',
      '20000',
      '-o',
      outDir,
    ],
    { env: { PATH: process.env.PATH, HOME: process.env.HOME } },
  );
  const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
  return {
    suite,
    ...scenario,
    passed: code === 0,
    checks: summary ? `${summary[1]}/${summary[2]}` : '-',
    warnings: summary ? Number(summary[4]) : 0,
    seconds: (performance.now() - started) / 1000,
    output,
  };
}

const started = performance.now();
const outDir = await mkdtemp(join(tmpdir(), 'mcpx-conformance-'));
const results = [];
try {
  for (const suite of Object.keys(SUITES)) {
    const queue = (await scenariosOf(suite)).filter((s) => only.length === 0 || only.includes(s.name));
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let next = queue.shift(); next; next = queue.shift())
          results.push(await runScenario(suite, next, outDir));
      }),
    );
  }
} finally {
  await rm(outDir, { recursive: true, force: true });
}

let problems = 0;
const rows = [];
for (const r of results.sort((a, b) => a.suite.localeCompare(b.suite) || a.name.localeCompare(b.name))) {
  const expected = baseline[r.suite]?.[r.name];
  let verdict;
  if (r.passed && expected) {
    verdict = 'NOW PASSING: remove it from expected-failures.json';
    problems++;
  } else if (r.passed) verdict = r.warnings ? `pass (${r.warnings} warnings)` : 'pass';
  else if (expected) verdict = `expected failure: ${expected}`;
  else {
    verdict = 'FAIL';
    problems++;
    if (process.argv.includes('--verbose') || only.length)
      console.error(`\n--- ${r.suite} ${r.name}\n${r.output}`);
  }
  rows.push(
    `${r.suite.padEnd(7)} ${r.name.padEnd(44)} ${`[${r.tags}]`.padEnd(36)} ${r.checks.padEnd(6)} ${verdict}`,
  );
}
console.log(rows.join('\n'));
const passed = results.filter((r) => r.passed).length;
console.log(
  `\n${passed}/${results.length} scenarios passed; ${problems} unexpected; ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
process.exit(problems ? 1 : 0);
