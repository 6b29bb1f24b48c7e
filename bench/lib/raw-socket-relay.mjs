// The floor of a daemon that holds a server for other processes: it listens on a Unix socket,
// starts the minimal server once, and passes each JSON-RPC line between a connection and the
// server, parsing and re-serializing it as a daemon that shares one server among sessions must
// (it rewrites ids). With `socket-bridge.cjs` as the client's stdio process, it is the floor of
// the shared-sessions path: two hops (a bridge, then a daemon) where a relay has one.
// No SDK, no validation, no policy, no id table (one session at a time in the bench).
//
//   node raw-socket-relay.mjs <socket path> <server script> [args…]
// Prints `listening` once the socket accepts connections; ends with its server.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

const [socketPath, ...serverArgs] = process.argv.slice(2);
const child = spawn(process.execPath, serverArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
let connection;
const lines = (input, onLine) =>
  createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY }).on('line', onLine);
lines(child.stdout, (line) => connection?.write(`${JSON.stringify(JSON.parse(line))}\n`));
const server = createServer((socket) => {
  connection = socket;
  lines(socket, (line) => child.stdin.write(`${JSON.stringify(JSON.parse(line))}\n`));
  socket.on('error', () => {});
});
// A socket left by an earlier run that was killed would refuse the listen (EADDRINUSE).
rmSync(socketPath, { force: true });
server.listen(socketPath, () => process.stdout.write('listening\n'));
const end = () => {
  rmSync(socketPath, { force: true });
  process.exit(0);
};
child.on('exit', end);
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => {
    child.kill();
    end();
  });
