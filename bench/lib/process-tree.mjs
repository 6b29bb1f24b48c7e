// The bench's own processes: a free port, waiting for a listener, the CPU time of a process,
// and ending a process with everything it started (peers spawn their upstream through a shell,
// some in a process group of its own, so killing the one pid we know is not enough).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/**
 * Start `node ARGS` (an `mcpx serve --http`, say) and resolve with its URL and pid once it prints
 * `listening on <url>` on either stream; the child is pushed onto `children`, for the caller to end.
 */
export function spawnListening(args, children) {
  const child = spawn(process.execPath, args, { env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no URL from ${args.join(' ')}:\n${output}`)), 30_000);
    const seen = (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1], pid: child.pid });
      }
    };
    child.stdout.setEncoding('utf8').on('data', seen);
    child.stderr.setEncoding('utf8').on('data', seen);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}):\n${output}`)));
  });
}

/** A TCP port on 127.0.0.1 that nothing listens on right now (for peers that cannot take port 0). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Resolve once something accepts TCP connections on 127.0.0.1:port; reject when `child` exits
 * first or after `timeoutMs`, with what it printed (`output()`).
 */
export async function listeningOn(port, child, output, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited || child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited (${child.exitCode ?? child.signalCode}) before listening: ${tail(output())}`);
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not listening on port ${port} after ${timeoutMs} ms: ${tail(output())}`);
}

/** CPU time (user + system, µs) of one process from Linux /proc; undefined elsewhere or once it is gone. */
export function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // clock ticks at USER_HZ 100
  } catch {
    return undefined;
  }
}

/** Every descendant of `pid` (children first found, then theirs), from `ps`. */
export function descendantsOf(pid) {
  let table;
  try {
    table = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const children = new Map();
  for (const line of table.split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (!child) continue;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(child);
  }
  const found = [];
  const queue = [pid];
  while (queue.length) {
    for (const child of children.get(queue.shift()) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * End process `pid` and every process it started (`also`: more pids read earlier, before a parent
 * let go of them): SIGTERM to all, SIGKILL to whatever is left after `graceMs`. The tree is read
 * before the first signal, while the parents still hold it.
 */
export async function killTree(pid, graceMs = 3_000, also = []) {
  const pids = [...new Set([pid, ...descendantsOf(pid), ...also])];
  const signal = (name) => {
    for (const each of pids) {
      try {
        process.kill(each, name);
      } catch {
        // already gone
      }
    }
  };
  const alive = () =>
    pids.filter((each) => {
      try {
        process.kill(each, 0);
        return true;
      } catch {
        return false;
      }
    });
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive().length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (alive().length) signal('SIGKILL');
  while (alive().length && Date.now() < deadline + 2_000)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

function tail(text) {
  const trimmed = text.trim();
  return trimmed.length > 400 ? `…${trimmed.slice(-400)}` : trimmed || '(no output)';
}
