/**
 * `mcpx serve` answers a host within its patience (issue 24, item 3): a list request is
 * answered with the servers up after a short wait, the rest follow with a list change
 * (a notification on 2025-11-25, the `subscriptions/listen` stream on 2026-07-28), a call
 * for a server still starting waits for it, one that failed is named with its reason, and
 * `--servers` starts only the servers it names.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, gatewayPathEnv, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

// A host's patience: Claude Code fails a tools/list it has waited on for 5 s.
const PATIENCE = { timeout: 5_000 };
const FAST = ['a', 'b', 'c', 'd'];
const SLOW = ['slow1', 'slow2'];

type Kind = 'tools' | 'prompts' | 'resources';

let world: GatewayWorld | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await world?.close();
  world = undefined;
});

const server = (env: Record<string, string> = {}) => ({
  command: process.execPath,
  args: [testServerPath],
  env,
});

interface Listening {
  readonly client: Client;
  /** Every list change heard so far, in order. */
  readonly changes: Kind[];
  /** Resolves at the next change of `kind`. */
  changed(kind: Kind): Promise<void>;
}

/**
 * An SDK client of `mcpx serve` in one era that records each list change it hears: on stdio
 * (the gateway spawned with `args`), or over HTTP at `url`.
 */
async function connect(
  w: GatewayWorld,
  era: 'legacy' | 'modern',
  to: { args?: readonly string[]; url?: string } = {},
): Promise<Listening> {
  const changes: Kind[] = [];
  const waiting: { kind: Kind; resolve: () => void }[] = [];
  const heard = (kind: Kind) => () => {
    changes.push(kind);
    for (const w of waiting.splice(0))
      if (w.kind === kind) w.resolve();
      else waiting.push(w);
  };
  const handler = (kind: Kind) => ({ autoRefresh: false, debounceMs: 0, onChanged: heard(kind) });
  const client = new Client(
    { name: 'late-servers-test', version: '0.0.0' },
    {
      versionNegotiation: era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } },
      listChanged: { tools: handler('tools'), prompts: handler('prompts'), resources: handler('resources') },
    },
  );
  clients.push(client);
  const transport = to.url
    ? new StreamableHTTPClientTransport(new URL(to.url))
    : new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, '--config', w.configFile, 'serve', ...(to.args ?? [])],
        env: {
          PATH: process.env.PATH ?? '',
          HOME: w.home,
          MCPX_HOME: join(w.home, '.mcpx'),
          ...gatewayPathEnv(),
        },
        cwd: w.dir,
      });
  await client.connect(transport, PATIENCE);
  const changed = (kind: Kind) => new Promise<void>((resolve) => waiting.push({ kind, resolve }));
  return { client, changes, changed };
}

/** The servers whose items a list holds (`<server>__name`, or `mcpx://<server>/…`). */
function serversOf(names: readonly string[]): string[] {
  const servers = names.map((n) => (n.startsWith('mcpx://') ? n.slice(7).split('/')[0] : n.split('__')[0]));
  return [...new Set(servers as string[])].sort();
}

const toolServers = async (client: Client) =>
  serversOf((await client.listTools(undefined, PATIENCE)).tools.map((t) => t.name));

/** Six servers, two of which take 15 s to start. */
async function lateWorld(): Promise<GatewayWorld> {
  const slow = server({ MCPX_TEST_FAULT: 'slow-start', MCPX_TEST_SLOW_START_MS: '15000' });
  return gatewayWorld({
    permission: 'yolo',
    mcpServers: {
      ...Object.fromEntries(FAST.map((name) => [name, server()])),
      ...Object.fromEntries(SLOW.map((name) => [name, slow])),
    },
  });
}

/**
 * Every list answered within the host's patience while two servers are still starting;
 * the four ready ones are listed; a call for a late server waits for it; a list change
 * announces each late kind, after which the lists hold all six servers.
 */
async function answersInTime({ client, changes, changed }: Listening): Promise<void> {
  const begun = Date.now();
  // Each list must come within 5 s; the fast servers may take a moment on a loaded machine.
  let servers = await toolServers(client);
  while (!FAST.every((s) => servers.includes(s)) && Date.now() - begun < 10_000)
    servers = await toolServers(client);
  expect(servers).toEqual(FAST);
  const prompts = await client.listPrompts(undefined, PATIENCE);
  expect(serversOf(prompts.prompts.map((p) => p.name))).toEqual(FAST);
  const resources = await client.listResources(undefined, PATIENCE);
  expect(serversOf(resources.resources.map((r) => r.uri))).toEqual(FAST);
  // Still within the slow servers' 15 s: nothing of theirs could have been listed yet.
  expect(Date.now() - begun).toBeLessThan(12_000);

  // A call for a server still starting waits for it, within the call's own timeout.
  const call = client.callTool(
    { name: 'slow1__echo', arguments: { message: 'worth the wait' } },
    {
      timeout: 60_000,
    },
  );
  const heardPrompts = changed('prompts');
  const heardResources = changed('resources');
  while (servers.length < 6) {
    await changed('tools');
    servers = await toolServers(client);
  }
  expect(servers).toEqual([...FAST, ...SLOW].sort());
  expect(firstText(await call)).toBe('worth the wait');
  await Promise.all([heardPrompts, heardResources]);
  const allPrompts = await client.listPrompts(undefined, PATIENCE);
  expect(serversOf(allPrompts.prompts.map((p) => p.name))).toEqual([...FAST, ...SLOW].sort());
  const allResources = await client.listResources(undefined, PATIENCE);
  expect(serversOf(allResources.resources.map((r) => r.uri))).toEqual([...FAST, ...SLOW].sort());
  expect(changes).toEqual(expect.arrayContaining(['tools', 'prompts', 'resources']));
}

describe('mcpx serve with servers still starting', () => {
  it('answers a 2025-11-25 client in time and announces the late servers', { timeout: 90_000 }, async () => {
    world = await lateWorld();
    await answersInTime(await connect(world, 'legacy'));
  });

  it('answers a 2026-07-28 client in time and announces the late servers on its listen stream', {
    timeout: 90_000,
  }, async () => {
    world = await lateWorld();
    await answersInTime(await connect(world, 'modern'));
  });

  it('answers a 2026-07-28 client over HTTP in time and announces the late servers on its listen stream', {
    timeout: 90_000,
  }, async () => {
    world = await lateWorld();
    const gateway = await world.serve();
    await answersInTime(await connect(world, 'modern', { url: gateway.url }));
  });

  it('names a server that failed to start, with its reason, when its tool is called', async () => {
    world = await gatewayWorld({
      permission: 'yolo',
      mcpServers: { ok: server(), broken: server({ MCPX_TEST_FAULT: 'stderr-exit' }) },
    });
    const { client } = await connect(world, 'legacy');
    expect(await toolServers(client)).toEqual(['ok']);
    const failure = await client
      .callTool({ name: 'broken__echo', arguments: { message: 'x' } }, PATIENCE)
      .then(
        () => undefined,
        (error: Error) => error.message,
      );
    expect(failure).toContain("'broken' exited with code 1");
    expect(failure).toContain('set EXAMPLE_API_KEY');
    expect(failure).not.toContain('Unknown tool');
  });
});

describe('mcpx serve --servers', () => {
  it('starts only the servers named, and no other server is heard', async () => {
    const chatty = (name: string) =>
      server({
        MCPX_TEST_LOG_EVERY_MS: '100',
        MCPX_TEST_START_LOG: join(world?.dir ?? '', `${name}.starts`),
      });
    world = await gatewayWorld({});
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      world.configFile,
      JSON.stringify({
        permission: 'yolo',
        mcpServers: Object.fromEntries(['a', 'b', 'c', 'd'].map((name) => [name, chatty(name)])),
      }),
    );
    const { client } = await connect(world, 'legacy', { args: ['--servers', 'a,b'] });
    const loggers = new Set<string>();
    let heardBoth: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      heardBoth = resolve;
    });
    client.setNotificationHandler('notifications/message', (notification) => {
      loggers.add(String(notification.params.logger));
      if (loggers.has('a/chatter') && loggers.has('b/chatter')) heardBoth();
    });
    expect(await toolServers(client)).toEqual(['a', 'b']);
    // The served servers are heard (so the others would be, were they running)…
    await both;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect([...loggers].sort()).toEqual(['a/chatter', 'b/chatter']);
    // …and the others were never started.
    const starts = async (name: string) =>
      (await readFile(join(world?.dir ?? '', `${name}.starts`), 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean);
    expect(await starts('a')).toHaveLength(1);
    expect(await starts('c')).toEqual([]);
    expect(await starts('d')).toEqual([]);
  });
});
