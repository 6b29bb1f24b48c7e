/**
 * The shipped Dockerfile built and run for real (docs/deploy-fleet.md, "The image, checked"): podman
 * builds it unchanged on a local stand-in for `node:24-bookworm-slim` (deploy/image/stand-in-base.sh:
 * no container registry is reachable here), then the container runs a stdio server through `npx -y`
 * from its own config, token file and port; its probes, an MCP call through the SDK `Client`, its
 * user, tini as PID 1, the image's HEALTHCHECK, and `podman stop` (SIGTERM) draining and exiting are
 * checked, and nothing of it is left afterwards (no container, no process, no image: podman keeps
 * them in a store of the test's own, removed at the end).
 *
 * Needs root, podman, runc and debootstrap, Debian's mirror and the npm registry: `.ci/run` installs
 * the packages and runs this (`vitest.image.config.ts`); `npm test` does not.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';

const run = promisify(execFile);
const BASE = 'docker.io/library/node:24-bookworm-slim';
const IMAGE = 'localhost/mcpx-image-test:latest';
const NAME = `mcpx-image-test-${process.pid}`;
/** The Dockerfile's `--drain-timeout` (CMD), in seconds. */
const DRAIN_TIMEOUT_S = 10;

let dir: { path: string; remove: () => Promise<void> };
let env: NodeJS.ProcessEnv;
let port: number;
let token: string;
let containerId = '';
const clients: Client[] = [];

/** podman with the test's own configuration and store. */
async function podman(args: readonly string[], timeout = 120_000): Promise<string> {
  const { stdout } = await run('podman', args, { env, timeout, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** This machine's hard limit for `ulimit -<flag>` (podman's defaults are above what we may set). */
async function hardLimit(flag: string): Promise<string> {
  return (await run('sh', ['-c', `ulimit -H${flag}`])).stdout.trim();
}

/** Every process on the machine that belongs to the container: its cgroup, or conmon naming it. */
function processesOf(id: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cgroup = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cgroup.includes(id) || cmdline.includes(id)) found.push(`${pid} ${cmdline}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The container's output, both streams (tini and mcpx write to stderr). */
async function containerLog(): Promise<string> {
  const { stdout, stderr } = await run('podman', ['logs', NAME], { env }).catch(() => ({
    stdout: '',
    stderr: '',
  }));
  return `${stdout}${stderr}`.slice(-2_000);
}

/** Until /readyz answers 200; at once if the container has exited (a broken image fails fast). */
async function waitUntilReady(ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  let last = '';
  while (Date.now() < deadline) {
    const status = (await podman(['inspect', '--format', '{{.State.Status}}', NAME])).trim();
    if (status === 'exited')
      throw new Error(`the container exited before it was ready:\n${await containerLog()}`);
    try {
      const response = await fetch(url('/readyz'));
      if (response.status === 200) return;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`/readyz not 200 within ${ms} ms (${last})\ncontainer log:\n${await containerLog()}`);
}

const url = (path: string) => `http://127.0.0.1:${port}${path}`;

beforeAll(async () => {
  dir = await tempDir('mcpx-image-');
  // runc, not crun: crun 1.8 refuses this machine's hybrid cgroup layout (a controller on the v2
  // hierarchy). The limits: podman's defaults for root are above what a process without
  // CAP_SYS_RESOURCE may set; RLIMIT_NPROC counts uid 1000's processes machine-wide, so it is lowered.
  const conf = join(dir.path, 'containers.conf');
  const nofile = await hardLimit('n');
  await writeFile(
    conf,
    `[containers]\ndefault_ulimits = ["nofile=${nofile}:${nofile}", "nproc=4096:4096"]\n` +
      `[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n`,
  );
  const storage = join(dir.path, 'storage.conf');
  await writeFile(
    storage,
    `[storage]\ndriver = "overlay"\ngraphroot = "${dir.path}/store"\nrunroot = "${dir.path}/run"\n`,
  );
  env = { ...process.env, CONTAINERS_CONF: conf, CONTAINERS_STORAGE_CONF: storage };

  await run('bash', [join(repoRoot, 'deploy/image/stand-in-base.sh'), BASE], { env, timeout: 300_000 });
  // The Dockerfile as shipped; `--format docker` keeps its HEALTHCHECK (OCI images have none).
  await podman(
    ['build', '--pull=never', '--network=host', '--format', 'docker', '-t', IMAGE, repoRoot],
    600_000,
  );

  const config = join(dir.path, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({
      permission: 'trusted',
      mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } },
    }),
    { mode: 0o644 },
  );
  token = randomBytes(32).toString('hex');
  const tokenFile = join(dir.path, 'token');
  await writeFile(tokenFile, token, { mode: 0o644 });
  port = await freePort();
  containerId = (
    await podman([
      'run',
      '--detach',
      '--name',
      NAME,
      '--publish',
      `127.0.0.1:${port}:8080`,
      '--volume',
      `${config}:/etc/mcpx/mcp.json:ro`,
      '--volume',
      `${tokenFile}:/run/secrets/mcpx/token:ro`,
      IMAGE,
    ])
  ).trim();
  // Ready once the stdio server, fetched by `npx -y` inside the container, has connected.
  await waitUntilReady(120_000);
}, 900_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  if (env) {
    await podman(['rm', '--force', '--time', '0', NAME]).catch(() => '');
    await podman(['rmi', '--all', '--force']).catch(() => '');
  }
  await dir?.remove();
  // Checked after the cleanup, whatever the tests did: nothing of the container outlives the file.
  if (containerId) expect(processesOf(containerId), 'processes of the container left').toEqual([]);
}, 120_000);

describe('the image built from the shipped Dockerfile', () => {
  it('answers /healthz and /readyz, and refuses /mcp without the token from its token file', async () => {
    const health = await fetch(url('/healthz'));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    expect((await fetch(url('/readyz'))).status).toBe(200);
    const anonymous = await fetch(url('/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(anonymous.status).toBe(401);
  });

  it("calls the stdio server it started with npx, through the SDK Client and the container's port", async () => {
    // The config's permission is `trusted` (as deploy/k8s's): the client's person is asked first.
    const client = new Client(
      { name: 'image-test', version: '0.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { decision: 'allow-all' } };
    });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url('/mcp')), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    const create = names.find((n) => n.endsWith('create_entities'));
    const readGraph = names.find((n) => n.endsWith('read_graph'));
    expect(create, `tools: ${names.join(', ')}`).toBeDefined();
    expect(readGraph).toBeDefined();
    const entity = { name: 'image-check', entityType: 'test', observations: ['made inside the container'] };
    const created = await client.callTool({ name: create as string, arguments: { entities: [entity] } });
    expect(created.isError ?? false, JSON.stringify(created.content)).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("allow the MCP server 'memory' to be used");
    const graph = await client.callTool({ name: readGraph as string, arguments: {} });
    expect(JSON.stringify(graph.content)).toContain('made inside the container');
  });

  it('runs as uid 1000 (node) under tini as PID 1, and its HEALTHCHECK passes', async () => {
    expect((await podman(['exec', NAME, 'id'])).trim()).toMatch(/^uid=1000\(node\) gid=1000\(node\)/);
    const pid1 = (await podman(['exec', NAME, 'cat', '/proc/1/cmdline'])).split('\0');
    expect(pid1.slice(0, 3)).toEqual(['/usr/bin/tini', '--', 'mcpx']);
    const top = await podman(['top', NAME, 'user', 'comm']);
    const users = top
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/)[0]);
    expect(users.length).toBeGreaterThanOrEqual(3);
    expect(new Set(users)).toEqual(new Set(['node']));
    // `podman healthcheck run` exits 0 for healthy (the Dockerfile's node -e fetch(/healthz)).
    await expect(podman(['healthcheck', 'run', NAME])).resolves.toBeDefined();
  });

  it('drains on `podman stop` (SIGTERM to tini) and exits 0 within the drain timeout, nothing left', async () => {
    const started = Date.now();
    await podman(['stop', '--time', String(DRAIN_TIMEOUT_S + 10), NAME]);
    const took = Date.now() - started;
    const state = JSON.parse(await podman(['inspect', '--format', '{{json .State}}', NAME])) as {
      Status: string;
      ExitCode: number;
    };
    expect(state.Status).toBe('exited');
    // 0: mcpx drained and stopped its servers itself. SIGKILL after `--time` would be 137.
    expect(state.ExitCode).toBe(0);
    expect(took).toBeLessThan(DRAIN_TIMEOUT_S * 1000);
    await podman(['rm', NAME]);
    expect((await podman(['ps', '--all', '--quiet'])).trim()).toBe('');
    expect(processesOf(containerId)).toEqual([]);
  });
});
