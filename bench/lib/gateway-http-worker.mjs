// The gateway over HTTP, one process: the SDK `Client` (2026-07-28, stateless) over Streamable
// HTTP straight to an HTTP MCP server, or to `mcpx serve --http --server bench` in front of it
// (the upstream reached over HTTP too). The server is mcpx's HTTP test server in its 2026-07-28
// era, in its own process. Sequential µs per call and calls/s with N in flight; one JSON line.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { spawnListening } from './process-tree.mjs';

const [variant, sequentialCalls, concurrentCalls] = [
  process.argv[2],
  Number(process.argv[3]),
  Number(process.argv[4]),
];
if (!['direct', 'gateway'].includes(variant)) throw new Error(`unknown variant ${variant}`);
// `BENCH_HTTP_ERA=legacy`: the client speaks 2025-11-25 (a session) to the gateway; the upstream
// stays 2026-07-28. The `direct` variant has no 2025 server to talk to in that era.
const legacy = process.env.BENCH_HTTP_ERA === 'legacy';
if (legacy && variant === 'direct')
  throw new Error('BENCH_HTTP_ERA=legacy: the direct server is 2026-07-28 only');
const dist = (path) => fileURLToPath(new URL(`../../dist/${path}`, import.meta.url));
const warnings = [];
process.on('warning', (w) => warnings.push(w.name));
const children = [];

// The test server keeps idle connections 65 s by default (`outliveClientKeepAlive`), longer than
// any client's, so a loaded gateway never reuses a socket the server is closing.
const upstream = await spawnListening(
  [dist('testing/http-test-server.js'), ...['--port', '0', '--era', 'modern']],
  children,
);
let target = upstream;
if (variant === 'gateway') {
  // The bench gives every worker a private HOME; the gateway's config lives there.
  const configFile = join(process.env.HOME, 'gateway-http-bench.json');
  await writeFile(
    configFile,
    JSON.stringify({ permission: 'yolo', mcpServers: { bench: { url: upstream.url, protocol: 'modern' } } }),
  );
  // `BENCH_GATEWAY_PROFILE=DIR`: the gateway process writes a V8 CPU profile there.
  const profile = process.env.BENCH_GATEWAY_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_GATEWAY_PROFILE}`]
    : [];
  target = await spawnListening(
    [...profile, dist('bin/mcpx.cjs'), '--config', configFile, 'serve', '--http', '--server', 'bench'],
    children,
  );
}

const client = new Client(
  { name: 'bench', version: '1.0.0' },
  { versionNegotiation: legacy ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } } },
);
await client.connect(new StreamableHTTPClientTransport(new URL(target.url)));
const ownCpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
// CPU time (µs) of the process the client talks to (the server, or mcpx serve; Linux /proc).
const peerCpu = () => {
  try {
    const fields = readFileSync(`/proc/${target.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return undefined;
  }
};
const call = async (message) => {
  const result = await client.callTool({ name: 'echo', arguments: { message } });
  if (result.content[0].text !== message) throw new Error(`${variant}: wrong echo ${JSON.stringify(result)}`);
};
try {
  for (let i = 0; i < 200; i++) await call('warm');

  let started = process.hrtime.bigint();
  const [ownBefore, peerBefore] = [ownCpu(), peerCpu()];
  for (let i = 0; i < sequentialCalls; i++) await call(`m${i}`);
  const sequentialUs = Number(process.hrtime.bigint() - started) / 1000 / sequentialCalls;
  const [ownAfter, peerAfter] = [ownCpu(), peerCpu()];

  started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrentCalls }, (_, i) => call(`c${i}`)));
  const concurrentSeconds = Number(process.hrtime.bigint() - started) / 1e9;

  process.stdout.write(
    `${JSON.stringify({
      variant,
      sequentialUs,
      callsPerSecond: concurrentCalls / concurrentSeconds,
      clientCpuUs: (ownAfter - ownBefore) / sequentialCalls,
      peerCpuUs:
        peerBefore === undefined || peerAfter === undefined
          ? undefined
          : (peerAfter - peerBefore) / sequentialCalls,
      warnings,
    })}\n`,
  );
} finally {
  await client.close();
  // The gateway first (it drains, then closes its upstream connection), then the server.
  for (const child of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  }
}
