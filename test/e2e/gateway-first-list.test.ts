// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders keep the entry (and its fingerprint) the same between runs
/**
 * A headless host's first list is complete (issue 38, item 9): `claude -p` works from the tools
 * its first list held, and a short run is over before a late server's list change. `mcpx
 * serve` answers that list at once with
 * what each server still starting listed the last time it ran (remembered in the mcpx home
 * under the entry's fingerprint), a call of such a tool waits for its server, a live list
 * that differs is announced (and remembered), and a server that fails takes its remembered
 * tools with it. The config's tool filters and `--exclude-tools` hold for remembered tools.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, gatewayPathEnv, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

// A host's patience: Claude Code fails a tools/list it has waited on for 5 s.
const PATIENCE = { timeout: 5_000 };
// The test server's own tools (catalog.ts), as `mcpx serve` names them for a server.
const OWN_TOOLS = [
  'add',
  'add_tool',
  'echo',
  'env',
  'fail',
  'get_time',
  'large_output',
  'log',
  'slow_operation',
  'touch_resource',
];
const toolsOf = (server: string, names = OWN_TOOLS) => names.map((n) => `${server}__${n}`);

let world: GatewayWorld | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await world?.close();
  world = undefined;
});

/**
 * `fast`, and `slow`, whose start, faults and extra tools each run sets through variables: the
 * entry (and so its fingerprint) stays the same, as a server's does between two days.
 */
async function twoServers(slowEntry: Record<string, unknown> = {}): Promise<GatewayWorld> {
  const w = await gatewayWorld({});
  await writeConfig(w, slowEntry);
  return w;
}

async function writeConfig(w: GatewayWorld, slowEntry: Record<string, unknown> = {}): Promise<void> {
  await writeFile(
    w.configFile,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: {
        fast: { command: process.execPath, args: [testServerPath] },
        slow: {
          command: process.execPath,
          args: [testServerPath],
          env: {
            MCPX_TEST_FAULT: '${SLOW_FAULT:-slow-start}',
            MCPX_TEST_SLOW_START_MS: '${SLOW_MS}',
            MCPX_TEST_EXIT_AFTER_MS: '3000',
            MCP_TOOL_COUNT: '${SLOW_EXTRA_TOOLS:-0}',
          },
          ...slowEntry,
        },
      },
    }),
  );
}

interface Session {
  readonly client: Client;
  /** Tool list changes heard so far. */
  readonly toolChanges: () => number;
  /** Resolves at the next tool list change. */
  changed(): Promise<void>;
  /** The public tool names listed now. */
  names(): Promise<string[]>;
}

/** A cold `mcpx serve` on stdio, as a host starts it, and an SDK client of it in one era. */
async function serve(
  w: GatewayWorld,
  env: Record<string, string>,
  era: 'legacy' | 'modern',
  args: readonly string[] = [],
): Promise<Session> {
  let heard = 0;
  let waiting: (() => void)[] = [];
  const client = new Client(
    { name: 'first-list-test', version: '0.0.0' },
    {
      versionNegotiation: era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } },
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: 0,
          onChanged: () => {
            heard += 1;
            for (const resolve of waiting) resolve();
            waiting = [];
          },
        },
      },
    },
  );
  clients.push(client);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, '--config', w.configFile, 'serve', ...args],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: w.home,
        MCPX_HOME: join(w.home, '.mcpx'),
        ...gatewayPathEnv(),
        ...env,
      },
      cwd: w.dir,
      // Its notices (a server that failed) are the test's to check, not to print.
      stderr: 'ignore',
    }),
    PATIENCE,
  );
  return {
    client,
    toolChanges: () => heard,
    changed: () => new Promise<void>((resolve) => waiting.push(resolve)),
    names: async () => (await client.listTools(undefined, PATIENCE)).tools.map((t) => t.name).sort(),
  };
}

/** The names listed once `done` holds of them, listing again at each change. */
async function until(session: Session, done: (names: string[]) => boolean): Promise<string[]> {
  for (;;) {
    const next = session.changed();
    const names = await session.names();
    if (done(names)) return names;
    await next;
  }
}

/** An earlier run in which every server came up: its lists are remembered. */
async function earlierRun(w: GatewayWorld): Promise<void> {
  const session = await serve(w, { SLOW_MS: '0' }, 'legacy');
  await until(session, (names) => names.includes('slow__echo'));
  await session.client.close();
}

describe('mcpx serve lists at once what servers still starting listed last time', () => {
  it('lists every tool on a cold start, and a call of a remembered tool waits for its server', {
    timeout: 90_000,
  }, async () => {
    world = await twoServers();
    await earlierRun(world);

    const begun = Date.now();
    const session = await serve(world, { SLOW_MS: '8000' }, 'modern');
    const first = await session.names();
    // Before `slow` could have started: its tools are the ones remembered.
    expect(Date.now() - begun).toBeLessThan(8_000);
    expect(first).toEqual([...toolsOf('fast'), ...toolsOf('slow')].sort());

    const result = await session.client.callTool(
      { name: 'slow__echo', arguments: { message: 'worth the wait' } },
      { timeout: 60_000 },
    );
    expect(firstText(result)).toBe('worth the wait');
    // Its live list is the one remembered: nothing to announce.
    expect(await session.names()).toEqual(first);
    expect(session.toolChanges()).toBe(0);
  });

  it('announces a live list that differs from the remembered one, and remembers it for the next run', {
    timeout: 90_000,
  }, async () => {
    world = await twoServers();
    await earlierRun(world);

    const grown = await serve(world, { SLOW_MS: '3000', SLOW_EXTRA_TOOLS: '2' }, 'legacy');
    expect(await grown.names()).toEqual([...toolsOf('fast'), ...toolsOf('slow')].sort());
    const names = await until(grown, (listed) => listed.includes('slow__tool_0001'));
    const withExtra = [
      ...toolsOf('fast'),
      ...toolsOf('slow', [...OWN_TOOLS, 'tool_0001', 'tool_0002']),
    ].sort();
    expect(names).toEqual(withExtra);
    await grown.client.close();

    const next = await serve(world, { SLOW_MS: '8000', SLOW_EXTRA_TOOLS: '2' }, 'modern');
    expect(await next.names()).toEqual(withExtra);
  });

  it('drops the remembered tools of a server that fails, with a list change, and its call gets the failure', {
    timeout: 90_000,
  }, async () => {
    world = await twoServers();
    await earlierRun(world);

    // It exits 3 s into its start ("fatal: upstream connection lost", code 4).
    const session = await serve(world, { SLOW_MS: '8000', SLOW_FAULT: 'slow-start,exit-after' }, 'modern');
    expect(await session.names()).toEqual([...toolsOf('fast'), ...toolsOf('slow')].sort());
    const names = await until(session, (listed) => !listed.includes('slow__echo'));
    expect(names).toEqual(toolsOf('fast'));
    const failure = await session.client
      .callTool({ name: 'slow__echo', arguments: { message: 'x' } }, { timeout: 60_000 })
      .then(
        () => 'answered',
        (error: Error) => error.message,
      );
    expect(failure).toContain("'slow' exited with code 4");
    expect(failure).not.toContain('Unknown tool');
  });

  it("applies the entry's tool filters and --exclude-tools to remembered tools as to live ones", {
    timeout: 90_000,
  }, async () => {
    world = await twoServers();
    await earlierRun(world);
    // A harmless edit: the entry's fingerprint, and so what is remembered for it, stays.
    await writeConfig(world, { disabled_tools: ['fail'] });

    const session = await serve(world, { SLOW_MS: '8000' }, 'legacy', ['--exclude-tools', 'slow.log*']);
    const hidden = new Set(['fail', 'log']);
    expect(await session.names()).toEqual(
      [
        ...toolsOf('fast'),
        ...toolsOf(
          'slow',
          OWN_TOOLS.filter((n) => !hidden.has(n)),
        ),
      ].sort(),
    );
  });
});
