// One variant, one process: one tool call returning `bytes` of text; reports
// the call's wall time and the process's peak RSS. Prints one JSON line.
import { fileURLToPath } from 'node:url';
import { connectVariant } from './clients.mjs';

const [variant, bytes] = [process.argv[2], Number(process.argv[3])];
const server = fileURLToPath(new URL('./raw-server.mjs', import.meta.url));
const peer = await connectVariant(variant, process.execPath, [server]);
const baselineRssKb = process.resourceUsage().maxRSS;
const started = process.hrtime.bigint();
let error;
let length = 0;
try {
  length = (await peer.call('large', { bytes })).length;
} catch (e) {
  error = e instanceof Error ? e.message : String(e);
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
await peer.close();
process.stdout.write(
  `${JSON.stringify({ variant, ms, peakRssMb: process.resourceUsage().maxRSS / 1024, baselineRssMb: baselineRssKb / 1024, length, error })}\n`,
);
