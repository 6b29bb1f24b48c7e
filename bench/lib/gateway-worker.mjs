// One way of reaching the minimal server, one process: the SDK `Client` over
// stdio straight to the server, or to `mcpx serve` in front of it (transparent
// `--server bench`, or namespaced with the tool as `bench__echo`). Sequential µs
// per call and calls/s with N in flight; prints one JSON line.
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
const cli = fileURLToPath(new URL('../../dist/bin/mcpx.js', import.meta.url));
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
const serve = (extra) => [cli, '--config', configFile, 'serve', ...extra];
const targets = {
  direct: { args: [server], tool: 'echo' },
  'gateway-server': { args: serve(['--server', 'bench']), tool: 'echo' },
  gateway: { args: serve([]), tool: 'bench__echo' },
};
const target = targets[variant];
if (!target) throw new Error(`unknown variant ${variant}`);

const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: target.args,
    env: { ...process.env },
    stderr: process.env.BENCH_GATEWAY_STDERR ? 'inherit' : 'ignore',
  }),
);
const call = async (message) => {
  const result = await client.callTool({ name: target.tool, arguments: { message } });
  if (result.content[0].text !== message) throw new Error(`${variant}: wrong echo ${JSON.stringify(result)}`);
};
for (let i = 0; i < 200; i++) await call('warm');

let started = process.hrtime.bigint();
for (let i = 0; i < sequentialCalls; i++) await call(`m${i}`);
const sequentialUs = Number(process.hrtime.bigint() - started) / 1000 / sequentialCalls;

started = process.hrtime.bigint();
await Promise.all(Array.from({ length: concurrentCalls }, (_, i) => call(`c${i}`)));
const concurrentSeconds = Number(process.hrtime.bigint() - started) / 1e9;

await client.close();
process.stdout.write(
  `${JSON.stringify({ variant, sequentialUs, callsPerSecond: concurrentCalls / concurrentSeconds, warnings })}\n`,
);
