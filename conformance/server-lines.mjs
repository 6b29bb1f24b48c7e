// The server half of `npm run conformance`: the suite's server scenarios against a running MCP
// server, either the conformance backend (dist/testing/conformance-backend.js) over HTTP, or that
// backend behind the gateway (`mcpx serve --http --server backend`, the backend spawned over stdio),
// or the gateway's own HTTP front (`mcpx serve --http`, many servers). Each line is one run of the
// suite (`server --url … --suite all` or `--requirements R`), read back per scenario from the
// checks.json files it writes; a scenario that fails unexpectedly runs once more on its own.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Spawn a long-running server and resolve with the URL it prints (`listening on http://…`). */
export function startServer(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(
      () => fail(new Error(`no URL after 30 s from ${args.join(' ')}:\n${output}`)),
      30_000,
    );
    const fail = (error) => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(error);
    };
    const look = (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        url: match[1],
        output: () => output,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout.setEncoding('utf8').on('data', look);
    child.stderr.setEncoding('utf8').on('data', look);
    child.once('exit', (code) => fail(new Error(`exited (${code}) before listening:\n${output}`)));
  });
}

/**
 * A gateway on a temporary config whose `backend` entry is the stdio conformance backend (and,
 * for many-server mode, `demo`, the shipped test server), with its own HOME so nothing of the
 * user's leaks in. `--allow` is the consent a person would give: the gateway has nobody to ask.
 */
export async function startGateway({ node, mcpx, backend, testServer, outRoot, args }) {
  const dir = await mkdtemp(join(outRoot, 'gateway-'));
  const home = join(dir, 'home');
  await mkdir(home, { recursive: true });
  const config = join(dir, 'mcp.json');
  const servers = {
    backend: { command: node, args: [backend] },
    ...(testServer ? { demo: { command: node, args: [testServer] } } : {}),
  };
  await writeFile(config, JSON.stringify({ mcpServers: servers }, null, 2));
  return startServer(
    node,
    [
      mcpx,
      '--config',
      config,
      'serve',
      '--http',
      '--port',
      '0',
      '--allow',
      Object.keys(servers).join(','),
      ...args,
    ],
    { cwd: dir, env: { PATH: process.env.PATH, HOME: home, MCPX_HOME: join(home, '.mcpx') } },
  );
}

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The server scenarios a line runs, with their tags, as `list --server` names them. */
export async function serverScenariosOf(node, suite, line) {
  if (line.scenarios) return line.scenarios.map((name) => ({ name, tags: 'gateway' }));
  if (!line.requirements) {
    const { output } = await run(node, [suite, 'list', '--server']);
    return [...output.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map((m) => ({ name: m[1], tags: m[2] }));
  }
  // Only what the revision requires of a server; its "never scored" extras already run in the plain line.
  const { output } = await run(node, [suite, 'list', '--server', '--requirements', line.requirements]);
  const section = output.split(/^Server scenarios.*$/m)[1]?.split(/^\S/m)[0] ?? '';
  return [...section.matchAll(/^\s+- (\S+)\s*$/gm)].map((m) => ({ name: m[1], tags: line.requirements }));
}

/** Per scenario, the checks one suite run wrote under `dir` (`server-<name>-<timestamp>/checks.json`). */
function checksByScenario(dir) {
  const found = new Map();
  let entries = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return found;
  }
  for (const entry of entries) {
    const name = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry)?.[1];
    if (!name) continue;
    try {
      found.set(name, JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')));
    } catch {
      found.set(name, []);
    }
  }
  return found;
}

/** One scenario's verdict from its checks: a FAILURE fails it; nothing but skips proves nothing. */
function verdict(line, scenario, checks, seconds, output) {
  const count = (status) => (checks ?? []).filter((c) => c.status === status).length;
  const succeeded = count('SUCCESS');
  const failed = count('FAILURE');
  const scored = (checks ?? []).length - count('SKIPPED') - count('INFO');
  const firstFailure = (checks ?? []).find((c) => c.status === 'FAILURE');
  return {
    line: line.name,
    ...scenario,
    status: checks === undefined || failed > 0 ? 'failed' : scored === 0 ? 'skipped' : 'passed',
    checks: `${succeeded}/${succeeded + failed}${count('SKIPPED') ? ` +${count('SKIPPED')} skipped` : ''}`,
    warnings: count('WARNING'),
    firstFailure:
      checks === undefined
        ? 'the suite wrote no results for this scenario'
        : firstFailure && `${firstFailure.id}: ${firstFailure.errorMessage ?? ''}`,
    seconds,
    output: `${output}\n${(checks ?? [])
      .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
      .map((c) => `  ${c.status} ${c.id}: ${c.errorMessage ?? ''}`)
      .join('\n')}`,
  };
}

/**
 * Run one server line against `url`: the whole line in one suite process, then each unexpected
 * failure once more alone (reported as passing on the 2nd attempt if it then passes).
 */
export async function runServerLine({ node, suite, line, url, scenarios, outRoot, expected, oneByOne }) {
  const started = performance.now();
  const results = [];
  if (line.scenarios || oneByOne) {
    // A hand-picked few: `server` takes one --scenario at a time.
    for (const scenario of scenarios) results.push(await runOne(node, suite, line, url, scenario, outRoot));
  } else {
    const dir = await mkdtemp(join(outRoot, 'server-'));
    const selection = line.requirements ? ['--requirements', line.requirements] : ['--suite', 'all'];
    const { output } = await run(node, [suite, 'server', '--url', url, ...selection, '-o', dir]);
    const found = checksByScenario(dir);
    const seconds = (performance.now() - started) / 1000 / Math.max(scenarios.length, 1);
    for (const scenario of scenarios)
      results.push(verdict(line, scenario, found.get(scenario.name), seconds, output));
    await rm(dir, { recursive: true, force: true });
  }
  for (const [i, first] of results.entries()) {
    if (first.status !== 'failed' || expected(line, first.name)) continue;
    const second = await runOne(node, suite, line, url, first, outRoot);
    results[i] = second.status === 'failed' ? second : { ...second, flaky: first.firstFailure ?? 'failed' };
  }
  return results;
}

async function runOne(node, suite, line, url, scenario, outRoot) {
  const started = performance.now();
  const dir = await mkdtemp(join(outRoot, 'server-one-'));
  const { output } = await run(node, [
    suite,
    'server',
    '--url',
    url,
    '--scenario',
    scenario.name,
    ...(line.requirements ? ['--spec-version', line.requirements, '--force'] : []),
    '-o',
    dir,
  ]);
  const result = verdict(
    line,
    { name: scenario.name, tags: scenario.tags },
    checksByScenario(dir).get(scenario.name),
    (performance.now() - started) / 1000,
    output,
  );
  await rm(dir, { recursive: true, force: true });
  return result;
}
