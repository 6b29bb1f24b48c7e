// The floor of any stdio relay: a process that starts the minimal server and
// passes each JSON-RPC line through, parsing and re-serializing it as a relay
// that rewrites ids or names must. No SDK, no validation, no policy. A gateway
// cannot cost less than this extra hop; the bench reports it next to `mcpx serve`.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const child = spawn(process.execPath, process.argv.slice(2), { stdio: ['pipe', 'pipe', 'inherit'] });
const relay = (from, to) =>
  createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    to.write(`${JSON.stringify(JSON.parse(line))}\n`);
  });
relay(process.stdin, child.stdin);
relay(child.stdout, process.stdout);
process.stdin.on('end', () => child.stdin.end());
child.on('exit', () => process.exit(0));
