// One way of reaching the minimal server, one process: the SDK `Client` over
// stdio straight to the server, or to `mcpx serve` in front of it (transparent
// `--server bench`, or namespaced with the tool as `bench__echo`). Sequential µs
// per call and calls/s with N in flight; prints one JSON line.
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [variant, sequentialCalls, concurrentCalls] = [
  process.argv[2],
  Number(process.argv[3]),
  Number(process.argv[4]),
];
const server = fileURLToPath(new URL('./raw-server.mjs', import.meta.url));
// `BENCH_MCPX_CLI`: another build's mcpx (the tracing section compares with a baseline checkout).
const cli = process.env.BENCH_MCPX_CLI ?? fileURLToPath(new URL('../../dist/bin/mcpx.cjs', import.meta.url));
const warnings = [];
process.on('warning', (w) => warnings.push(w.name));

// The bench gives every worker a private HOME; the gateway's config lives there.
const configFile = join(process.env.HOME, 'gateway-bench.json');
await writeFile(
  configFile,
  JSON.stringify({
    permission: 'yolo',
    mcpServers: { bench: { command: process.execPath, args: [server] } },
  }),
);
// `BENCH_GATEWAY_PROFILE=DIR`: the gateway process writes a V8 CPU profile there (--cpu-prof
// is refused in NODE_OPTIONS, so it goes on the command line).
const profile = process.env.BENCH_GATEWAY_PROFILE
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_GATEWAY_PROFILE}`]
  : [];
const serve = (extra) => [...profile, cli, '--config', configFile, 'serve', ...extra];
const targets = {
  direct: { args: [server], tool: 'echo' },
  relay: { args: [fileURLToPath(new URL('./raw-relay.mjs', import.meta.url)), server], tool: 'echo' },
  // Not a way through: the same tool on an SDK `Server`, to measure one SDK server hop's CPU.
  'sdk-server': { args: [fileURLToPath(new URL('./sdk-server.mjs', import.meta.url))], tool: 'echo' },
  'gateway-server': { args: serve(['--server', 'bench']), tool: 'echo' },
  gateway: { args: serve([]), tool: 'bench__echo' },
};
const target = targets[variant];
if (!target) throw new Error(`unknown variant ${variant}`);

// The SDK's stdio client waits for 'drain' with one listener per write behind a full pipe: 2,000
// calls in flight are this bench's load, not a leak, and must not print a warning.
EventEmitter.defaultMaxListeners = 0;

const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
const transport = new StdioClientTransport({
  command: process.execPath,
  args: target.args,
  env: { ...process.env },
  stderr: process.env.BENCH_GATEWAY_STDERR ? 'inherit' : 'ignore',
});
await client.connect(transport);
// CPU time (µs) of this client process and of the process it talks to (the server, the relay,
// or mcpx serve; Linux /proc, else undefined): what each hop costs per call, load aside.
const ownCpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const childCpu = () => {
  try {
    const fields = readFileSync(`/proc/${transport.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // clock ticks at USER_HZ 100
  } catch {
    return undefined;
  }
};
const call = async (message) => {
  const result = await client.callTool({ name: target.tool, arguments: { message } });
  if (result.content[0].text !== message) throw new Error(`${variant}: wrong echo ${JSON.stringify(result)}`);
};
for (let i = 0; i < 200; i++) await call('warm');

let started = process.hrtime.bigint();
const [ownBefore, childBefore] = [ownCpu(), childCpu()];
for (let i = 0; i < sequentialCalls; i++) await call(`m${i}`);
const sequentialUs = Number(process.hrtime.bigint() - started) / 1000 / sequentialCalls;
const [ownAfter, childAfter] = [ownCpu(), childCpu()];
const clientCpuUs = (ownAfter - ownBefore) / sequentialCalls;
const peerCpuUs =
  childBefore === undefined || childAfter === undefined
    ? undefined
    : (childAfter - childBefore) / sequentialCalls;

started = process.hrtime.bigint();
await Promise.all(Array.from({ length: concurrentCalls }, (_, i) => call(`c${i}`)));
const concurrentSeconds = Number(process.hrtime.bigint() - started) / 1e9;

await client.close();
process.stdout.write(
  `${JSON.stringify({ variant, sequentialUs, callsPerSecond: concurrentCalls / concurrentSeconds, clientCpuUs, peerCpuUs, warnings })}\n`,
);
