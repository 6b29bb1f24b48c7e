// The floor of any Streamable HTTP relay: a plain `node:http` server that starts the minimal
// server and passes each JSON-RPC message through, parsing and re-serializing it as a relay
// that rewrites ids or names must. A request's answer is the POST's JSON body; anything else
// is accepted with 202. No sessions, no SDK, no validation, no policy, one client.
//
//   node raw-http-relay.mjs <port> <server command...>
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

const [port, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const waiting = new Map();

createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
  const message = JSON.parse(line);
  const res = waiting.get(message.id);
  if (!res) return;
  waiting.delete(message.id);
  const body = JSON.stringify(message);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    const message = JSON.parse(body);
    if (message.method !== undefined && message.id !== undefined) waiting.set(message.id, res);
    else res.writeHead(202).end();
    child.stdin.write(`${JSON.stringify(message)}\n`);
  });
});
server.listen(Number(port), '127.0.0.1');
child.on('exit', () => process.exit(0));
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => {
    child.kill();
    process.exit(0);
  });
