// `node shared-sessions-worker.mjs <shared|direct> <home> <sessions>`: that many `mcpx serve`
// sessions on stdio (each an SDK `Client`, as agent hosts start them) on one config of three
// keep-alive reference servers (server-everything, -memory, -filesystem), through the daemon
// (`shared`) or each with its own servers (`direct`, MCPX_DAEMON=off). Once every session lists
// every server's tools it prints, as JSON, the processes running for them (the serve processes,
// their children, the daemon and its children) and their total resident memory, each serve
// process's own memory and start (spawn → initialize answered; in `shared` the first session
// starts the daemon, the others find it running; all are thin bridges), and `node -e 0`'s time
// from spawn to exit measured beside them; then stops them all.
// Linux only: the processes are read from /proc.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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

const clients = [];
const started = [];
const nodeStarts = [];
try {
  for (let i = 0; i < Number(count); i++) {
    const client = new Client({ name: `session${i}`, version: '0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'serve'],
      env,
      cwd: home,
      stderr: 'ignore',
    });
    const before = performance.now();
    await client.connect(transport);
    started.push(performance.now() - before);
    clients.push({ client, transport });
    // The floor of any Node process's start, beside each session's (the machine's load moves both).
    const floor = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    nodeStarts.push(performance.now() - floor);
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
  const all = processes();
  const daemons = all.filter(
    (p) => p.cmdline.includes('daemon') && p.cmdline.includes('run') && p.cmdline[1] === cli,
  );
  // Everything running for the sessions, mcpx's small orphan watchdogs included.
  const mine = tree([...clients.map((c) => c.transport.pid), ...daemons.map((d) => d.pid)], all);
  const servers = mine.filter((p) => p.cmdline.some((a) => a.includes('@modelcontextprotocol/server-')));
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
    })}\n`,
  );
} finally {
  await Promise.all(clients.map(({ client }) => client.close().catch(() => {})));
  if (mode === 'shared')
    execFileSync(process.execPath, [cli, 'daemon', 'stop'], { env, cwd: home, stdio: 'ignore' });
}
