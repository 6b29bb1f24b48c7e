// The console's page data with many servers and a full history: `mcpx console --no-open` over
// SERVERS minimal servers, CALLS calls made from its API first (untimed; the history keeps the
// last 1,000), then REQUESTS sequential GETs of each endpoint the page reads — `/api/state`
// (servers, tools, calls, audit) and `/api/waterfalls` — against the same bodies served by a bare
// node:http server (the floor: no host, no JSON made per request). With chromium at
// /usr/bin/chromium (`.ci/run` installs it), also the page's first render (navigation to every
// list drawn) and a live update (a call made to the new call drawn).
// Prints one JSON line.
//   node console-worker.mjs <cli> <minimal-server> <servers> <calls> <requests>
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './measure.mjs';
import { killTree } from './process-tree.mjs';

const [cli, minimalServer] = process.argv.slice(2, 4);
const [servers, calls, requests] = process.argv.slice(4, 7).map(Number);
const CHROMIUM = '/usr/bin/chromium';

const dir = await mkdtemp(join(tmpdir(), 'mcpx-bench-console-'));
const config = join(dir, 'mcp.json');
await writeFile(
  config,
  JSON.stringify({
    mcpServers: Object.fromEntries(
      Array.from({ length: servers }, (_, i) => [
        `s${i}`,
        { command: process.execPath, args: [minimalServer] },
      ]),
    ),
  }),
);
const child = spawn(process.execPath, [cli, '--config', config, 'console', '--no-open'], {
  env: process.env,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stderr = '';
child.stderr.setEncoding('utf8').on('data', (d) => {
  stderr += d;
});
const out = { servers, calls, requests };
try {
  const url = await new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`mcpx console printed no URL: ${stderr}`)), 60_000);
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`mcpx console exited ${code}: ${stderr}`)));
  });
  const { origin, searchParams } = new URL(url);
  const headers = { 'X-Mcpx-Token': searchParams.get('token') };
  const get = async (base, path) => {
    const response = await fetch(base + path, { headers });
    return response.text();
  };
  // Every server up before anything is timed.
  for (;;) {
    const state = JSON.parse(await get(origin, '/api/state'));
    if (state.servers.filter((s) => s.state === 'ready').length === servers) break;
    if (state.servers.some((s) => s.state === 'error')) throw new Error('a minimal server failed to start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The history filled, ten calls at a time, spread over the servers.
  let next = 0;
  const call = (n) =>
    fetch(`${origin}/api/call`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ server: `s${n % servers}`, tool: 'echo', args: { message: `call ${n}` } }),
    }).then((r) => r.json());
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < calls) await call(next++);
    }),
  );
  const paths = ['/api/state', '/api/waterfalls'];
  const bodies = Object.fromEntries(await Promise.all(paths.map(async (p) => [p, await get(origin, p)])));
  out.historyKept = JSON.parse(bodies['/api/state']).calls.length;
  out.stateBytes = Buffer.byteLength(bodies['/api/state']);
  // The floor: the same bodies from a bare node:http server in this process.
  const floor = createServer((request, response) => {
    const body = bodies[new URL(request.url, 'http://floor').pathname] ?? '{}';
    response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(body);
  });
  await new Promise((resolve) => floor.listen(0, '127.0.0.1', resolve));
  const floorOrigin = `http://127.0.0.1:${floor.address().port}`;
  // Alternating console and floor request by request, so drift hits both.
  const times = Object.fromEntries(
    paths.flatMap((p) => [
      [`console ${p}`, []],
      [`floor ${p}`, []],
    ]),
  );
  for (let i = 0; i < requests; i++)
    for (const p of paths)
      for (const [name, base] of [
        ['console', origin],
        ['floor', floorOrigin],
      ]) {
        const started = process.hrtime.bigint();
        await get(base, p);
        times[`${name} ${p}`].push(Number(process.hrtime.bigint() - started) / 1e6);
      }
  floor.close();
  out.ms = Object.fromEntries(Object.entries(times).map(([name, list]) => [name, median(list)]));
  if (existsSync(CHROMIUM)) out.page = await pageTimes(url, origin, headers);
  else out.page = { error: `no chromium at ${CHROMIUM}` };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  // SIGTERM to the console and its servers (the console stops its own on it), SIGKILL after a grace.
  if (child.exitCode === null) await killTree(child.pid);
  await rm(dir, { recursive: true, force: true });
}

/** The page's first render with every list drawn, and a live update: median of 3 each. */
async function pageTimes(url, origin, headers) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  try {
    const first = [];
    const update = [];
    for (let round = 0; round < 3; round++) {
      const page = await browser.newPage();
      const started = process.hrtime.bigint();
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector('body[data-loaded=true]', { timeout: 60_000 });
      await page.waitForFunction(
        (n) =>
          document.querySelectorAll('#calls li').length >= n &&
          document.querySelectorAll('#waterfalls .waterfall').length > 0,
        Math.min(1000, calls),
      );
      first.push(Number(process.hrtime.bigint() - started) / 1e6);
      const before = process.hrtime.bigint();
      const made = await (
        await fetch(`${origin}/api/call`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ server: 's0', tool: 'echo', args: { message: 'live' } }),
        })
      ).json();
      await page.waitForSelector(`#calls li[data-call="${made.id}"]`, { timeout: 60_000 });
      update.push(Number(process.hrtime.bigint() - before) / 1e6);
      await page.close();
    }
    return { firstRenderMs: median(first), liveUpdateMs: median(update) };
  } finally {
    await browser.close();
  }
}
