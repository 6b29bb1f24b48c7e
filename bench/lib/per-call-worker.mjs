// One variant, one process: sequential µs per call and concurrent calls per
// second against the raw server. Prints one JSON line.
import { fileURLToPath } from 'node:url';
import { connectVariant } from './clients.mjs';

const [variant, sequentialCalls, concurrentCalls] = [
  process.argv[2],
  Number(process.argv[3]),
  Number(process.argv[4]),
];
const server = fileURLToPath(new URL('./raw-server.mjs', import.meta.url));
const warnings = [];
process.on('warning', (w) => warnings.push(w.name));

const peer = await connectVariant(variant, process.execPath, [server]);
for (let i = 0; i < 200; i++) await peer.call('echo', { message: 'warm' });

let started = process.hrtime.bigint();
for (let i = 0; i < sequentialCalls; i++) await peer.call('echo', { message: `m${i}` });
const sequentialUs = Number(process.hrtime.bigint() - started) / 1000 / sequentialCalls;

started = process.hrtime.bigint();
await Promise.all(Array.from({ length: concurrentCalls }, (_, i) => peer.call('echo', { message: `c${i}` })));
const concurrentSeconds = Number(process.hrtime.bigint() - started) / 1e9;

await peer.close();
process.stdout.write(
  `${JSON.stringify({ variant, sequentialUs, callsPerSecond: concurrentCalls / concurrentSeconds, warnings })}\n`,
);
