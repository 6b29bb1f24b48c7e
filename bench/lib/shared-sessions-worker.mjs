// `node shared-sessions-worker.mjs <shared|direct> <home> <sessions>`: that many `mcpx serve`
// sessions on stdio (each an SDK `Client`, as agent hosts start them) on one config of three
// keep-alive reference servers (server-everything, -memory, -filesystem), through the daemon
// (`shared`) or each with its own servers (`direct`, MCPX_DAEMON=off). Once every session lists
// every server's tools it prints, as JSON, the processes running for them (the serve processes,
// their children, the daemon and its children) and their total resident memory, each serve
// process's own memory and start (spawn → initialize answered; in `shared` the first session
// starts the daemon, the others find it running; all are thin bridges), and `node -e 0`'s time
// from spawn to exit measured beside them. In `shared`, with every server up in the daemon, it then
// starts three more sessions one at a time (the thin serve's start on a warm daemon) and, as the
// floor of any bridge, a process that only pipes its stdin to a Unix socket and back
// (`socket-bridge.cjs`, to a socket of this worker's that answers `initialize`): each one's start
// beside `node -e 0`'s, and the floor's memory. Then it stops them all.
// Linux only: the processes are read from /proc.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, home, count = '5'] = process.argv.slice(2);
const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist/bin/mcpx.cjs');
const modules = join(root, 'node_modules/@modelcontextprotocol');
const files = join(home, 'files');
mkdirSync(files, { recursive: true });
mkdirSync(join(home, '.mcpx'), { recursive: true });
const server = (script, ...args) => ({
  command: process.execPath,
  args: [script, ...args],
  keep_alive: true,
});
writeFileSync(
  join(home, '.mcpx', 'mcp.json'),
  JSON.stringify({
    mcpServers: {
      everything: server(join(modules, 'server-everything/dist/index.js'), 'stdio'),
      memory: {
        ...server(join(modules, 'server-memory/dist/index.js')),
        env: { MEMORY_FILE_PATH: join(home, 'memory.jsonl') },
      },
      filesystem: server(join(modules, 'server-filesystem/dist/index.js'), files),
    },
  }),
);
const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  MCPX_HOME: join(home, '.mcpx'),
  TMPDIR: home,
  ...(mode === 'direct' ? { MCPX_DAEMON: 'off' } : {}),
};

function processes() {
  const all = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const rss = /VmRSS:\s+(\d+) kB/.exec(status);
      // Private memory: what one more such process costs (the Node binary's pages are shared).
      const anon = /RssAnon:\s+(\d+) kB/.exec(status);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      all.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        state: fields[0],
        rssKb: Number(rss?.[1] ?? 0),
        anonKb: Number(anon?.[1] ?? 0),
        cmdline,
      });
    } catch {
      // gone meanwhile
    }
  }
  return all.filter((p) => p.state !== 'Z');
}

function tree(roots, all) {
  const found = new Map();
  const queue = [...roots];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    const p = all.find((x) => x.pid === pid);
    if (!p || found.has(pid)) continue;
    found.set(pid, p);
    for (const child of all.filter((x) => x.ppid === pid)) queue.push(child.pid);
  }
  return [...found.values()];
}

/** A client on a new process running `args`: spawn → `initialize` answered, in ms. */
async function session(name, args) {
  const client = new Client({ name, version: '0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env,
    cwd: home,
    stderr: 'ignore',
  });
  const before = performance.now();
  await client.connect(transport);
  return { client, transport, ms: performance.now() - before };
}

/** The floor of any Node process's start, beside each session's (the machine's load moves both). */
function nodeStart() {
  const floor = performance.now();
  spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore', env });
  return performance.now() - floor;
}

/** A Unix socket that answers `initialize` as a gateway session would (for the floor bridge). */
async function answeringSocket(path) {
  const server = createServer((socket) => {
    let carry = '';
    socket.on('data', (chunk) => {
      const lines = (carry + chunk).split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) {
        const message = JSON.parse(line);
        if (message.method !== 'initialize') continue;
        const result = {
          protocolVersion: message.params.protocolVersion,
          capabilities: {},
          serverInfo: { name: 'floor', version: '0' },
        };
        socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
      }
    });
    socket.on('error', () => {});
  });
  await new Promise((resolve) => server.listen(path, resolve));
  return server;
}

const clients = [];
const bridges = [];
const started = [];
const nodeStarts = [];
const warm = { thinMs: [], bridgeMs: [], nodeMs: [], bridge: undefined };
let floorSocket;
try {
  for (let i = 0; i < Number(count); i++) {
    const { ms, ...opened } = await session(`session${i}`, [cli, 'serve']);
    started.push(ms);
    clients.push(opened);
    nodeStarts.push(nodeStart());
  }
  for (const { client } of clients) {
    for (;;) {
      const names = (await client.listTools()).tools.map((t) => t.name);
      if (
        ['everything__echo', 'memory__read_graph', 'filesystem__list_directory'].every((n) =>
          names.includes(n),
        )
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
  }
  if (mode === 'shared') {
    // Every server is up in the daemon now: the thin serve's own start, and the floor bridge's.
    floorSocket = await answeringSocket(join(home, 'floor.sock'));
    for (let i = 0; i < 3; i++) {
      const thin = await session(`warm${i}`, [cli, 'serve']);
      warm.thinMs.push(thin.ms);
      await thin.client.close();
      warm.nodeMs.push(nodeStart());
      const bridge = await session(`bridge${i}`, [
        join(root, 'bench/lib/socket-bridge.cjs'),
        join(home, 'floor.sock'),
      ]);
      warm.bridgeMs.push(bridge.ms);
      // Kept open (the last one's memory is read below), as a session would be.
      bridges.push(bridge);
      warm.bridge = bridge.transport.pid;
    }
  }
  const all = processes();
  const daemons = all.filter(
    (p) => p.cmdline.includes('daemon') && p.cmdline.includes('run') && p.cmdline[1] === cli,
  );
  // Everything running for the sessions, mcpx's small orphan watchdogs included.
  const mine = tree([...clients.map((c) => c.transport.pid), ...daemons.map((d) => d.pid)], all);
  const servers = mine.filter((p) => p.cmdline.some((a) => a.includes('@modelcontextprotocol/server-')));
  const bridge = all.find((x) => x.pid === warm.bridge);
  const serves = clients.map(({ transport }, i) => {
    const p = all.find((x) => x.pid === transport.pid);
    return { rssKb: p?.rssKb ?? 0, anonKb: p?.anonKb ?? 0, startMs: started[i] };
  });
  process.stdout.write(
    `${JSON.stringify({
      processes: mine.length,
      servers: servers.length,
      rssMb: mine.reduce((sum, p) => sum + p.rssKb, 0) / 1024,
      serves,
      nodeStartMs: nodeStarts,
      ...(mode === 'shared'
        ? {
            warmThinStartMs: warm.thinMs,
            bridgeStartMs: warm.bridgeMs,
            warmNodeStartMs: warm.nodeMs,
            bridgeRssKb: bridge?.rssKb ?? 0,
            bridgeAnonKb: bridge?.anonKb ?? 0,
          }
        : {}),
    })}\n`,
  );
} finally {
  await Promise.all([...clients, ...bridges].map(({ client }) => client.close().catch(() => {})));
  floorSocket?.close();
  if (mode === 'shared')
    execFileSync(process.execPath, [cli, 'daemon', 'stop'], { env, cwd: home, stdio: 'ignore' });
}
