// The fleet row (issue 43): the SDK `Client` (2026-07-28, stateless, so any instance answers any
// call) calling the minimal stdio server's `echo` through `mcpx serve --http` — one instance
// reached directly (`one`), one behind nginx (`one-nginx`: nginx's own hop), or three behind
// nginx round robin (`three-nginx`), each instance with its own copy of the stdio server, as a
// fleet runs. nginx is Debian's, run as the current user from a private prefix (as
// test/deploy/nginx.test.ts runs it). Sequential µs per call, then calls/s with N in flight;
// one JSON line.
//
// `BENCH_FLEET_STATE=redis://HOST:PORT`: every instance gets `--state <url>`, the shared store
// of issue 43 item 1 (run.mjs sets it for its "with --state" rows once `mcpx serve` has the flag).
// `BENCH_FLEET_ERA=2025-11-25`: the client holds a 2025-11-25 session instead, and asks for
// progress on each call, so the call is answered on an event stream whose every event the store
// keeps (written before it is sent) for another instance to resume; round robin across three
// instances then works only with the store (each continues the session it is sent).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { freePort, spawnListening } from './process-tree.mjs';

const [variant, nginxBinary, sequentialCalls, concurrentCalls, inFlight] = [
  process.argv[2],
  process.argv[3],
  Number(process.argv[4]),
  Number(process.argv[5]),
  Number(process.argv[6]),
];
const instances = { one: 1, 'one-nginx': 1, 'three-nginx': 3 }[variant];
if (!instances) throw new Error(`unknown variant ${variant}`);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const cli = here('../../dist/bin/mcpx.cjs');
const state = process.env.BENCH_FLEET_STATE;
const legacy = process.env.BENCH_FLEET_ERA === '2025-11-25';
const warnings = [];
process.on('warning', (w) => warnings.push(w.name));
const children = [];

/** nginx in front of `upstreams` (host:port), round robin with kept-alive connections, as docs/nginx.conf. */
async function startNginx(upstreams) {
  const prefix = join(process.env.HOME, `nginx-${variant}`);
  await mkdir(join(prefix, 'logs'), { recursive: true });
  const port = await freePort();
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `  ${kind}_temp_path ${join(prefix, `${kind}_temp`)};`)
    .join('\n');
  // As root the master would hand its workers to 'nobody', who cannot write the private prefix.
  const user = process.getuid?.() === 0 ? `user ${userInfo().username};\n` : '';
  await writeFile(
    join(prefix, 'nginx.conf'),
    `${user}daemon off;
worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'logs/error.log')} warn;
events { worker_connections 1024; }
http {
${temp}
  access_log off;
  upstream mcpx_all {
${upstreams.map((u) => `    server ${u};`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location = /mcp {
      proxy_pass http://mcpx_all;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_read_timeout 1h;
    }
  }
}
`,
  );
  const child = spawn(
    nginxBinary,
    ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'logs/error.log')],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`);
    const up = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'GET' }).then(
      () => true,
      () => false,
    );
    if (up) return url;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nginx did not listen: ${stderr}`);
}

async function stopAll() {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', resolve);
          // nginx's graceful stop is SIGQUIT; mcpx drains on SIGTERM (nothing is in flight by then).
          child.kill(child.spawnfile === nginxBinary ? 'SIGQUIT' : 'SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
        }),
    ),
  );
}

try {
  const configFile = join(process.env.HOME, 'fleet-bench.json');
  const server = here('./raw-server.mjs');
  await writeFile(
    configFile,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: { bench: { command: process.execPath, args: [server] } },
    }),
  );
  // `--state` goes with the fleet's shared key, as docs/deploy-fleet.md sets them up.
  const stateKey = join(process.env.HOME, 'fleet-state.key');
  if (state) await writeFile(stateKey, randomBytes(32), { mode: 0o600 });
  const urls = await Promise.all(
    Array.from({ length: instances }, (_, i) =>
      spawnListening(
        [
          cli,
          ...['--config', configFile, 'serve', '--http', '--server', 'bench'],
          ...['--instance-id', `i${i}`],
          // HERE the shared store: issue 43 item 1's `--state redis://…`, when run.mjs asks for it.
          ...(state ? ['--state', state, '--state-key-file', stateKey] : []),
        ],
        children,
      ).then(({ url }) => url),
    ),
  );
  const target = variant === 'one' ? urls[0] : await startNginx(urls.map((u) => new URL(u).host));

  const client = new Client(
    { name: 'bench', version: '1.0.0' },
    { versionNegotiation: legacy ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } } },
  );
  // The SDK's transport hands its one signal to every POST, and undici lets go of each listener
  // only when its request is collected: a 2025-11-25 session's thousands of calls would print
  // MaxListenersExceededWarning (the client's, not mcpx's: mcpx gives each request its own child
  // signal, src/transport/linked-signal.ts). A POST here is never cancelled, so it goes without.
  const unsignalled = (url, init) =>
    fetch(url, init?.method === 'POST' ? { ...init, signal: undefined } : init);
  await client.connect(new StreamableHTTPClientTransport(new URL(target), { fetch: unsignalled }));
  const call = async (message) => {
    // A 2025-11-25 call with a progress token is answered on an event stream, each event written
    // to the store before it is sent; a plain one gets one JSON body, which stores nothing.
    const result = await client.callTool(
      { name: 'echo', arguments: { message } },
      legacy ? { onprogress: () => {} } : undefined,
    );
    if (result.content[0].text !== message)
      throw new Error(`${variant}: wrong echo ${JSON.stringify(result)}`);
  };
  // Every instance warmed (round robin spreads these).
  for (let i = 0; i < 200 * instances; i++) await call('warm');

  let started = process.hrtime.bigint();
  for (let i = 0; i < sequentialCalls; i++) await call(`m${i}`);
  const sequentialUs = Number(process.hrtime.bigint() - started) / 1000 / sequentialCalls;

  // `inFlight` at a time, each call that ends starting the next, until `concurrentCalls` are done.
  let next = 0;
  started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < concurrentCalls) await call(`c${next++}`);
    }),
  );
  const concurrentSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  await client.close();
  process.stdout.write(
    `${JSON.stringify({ variant, instances, state: state !== undefined, era: legacy ? '2025-11-25' : '2026-07-28', sequentialUs, callsPerSecond: concurrentCalls / concurrentSeconds, warnings })}\n`,
  );
} finally {
  await stopAll();
}
