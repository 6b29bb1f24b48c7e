/**
 * One sign-in for every process: many `mcpx call`s that meet an expired token at once make one
 * refresh at an authorization server that rotates refresh tokens and revokes the grant on reuse;
 * a refresh's holder killed mid-refresh does not block the next; a refused renewal is said once.
 */
import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../../src/auth/sign-in.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { adhocHttpServer } from '../../src/config/index.js';
import type { ServerConfig } from '../../src/config/types.js';
import { type OAuthTestServer, startOAuthTestServer } from '../../src/testing/oauth-test-server.js';
import { type CliRun, cliPath, runCli, tempDir } from '../helpers/cli.js';
import { firstText } from '../helpers/gateway.js';
import { waitForExit } from '../helpers/processes.js';

const CONCURRENT = 10;
/**
 * Each round starts ten CLI processes (about 6 s on two busy cores): the suite runs 5 rounds;
 * `MCPX_REFRESH_ROUNDS=20` runs the twenty (about 2 minutes).
 */
const ROUNDS = Number(process.env.MCPX_REFRESH_ROUNDS ?? 5);

let dir: { path: string; remove: () => Promise<void> };
let as: OAuthTestServer;
let config: string;
let store: TokenStore;
let server: ServerConfig & { url: string };
/** Everything every run printed: no token may be in any of it. */
const printed: string[] = [];
const home = () => join(dir.path, 'home');

beforeAll(async () => {
  dir = await tempDir('mcpx-shared-refresh-');
  as = await startOAuthTestServer();
  config = join(dir.path, 'mcp.json');
  const { writeFile } = await import('node:fs/promises');
  // Held by the daemon when one runs; the calls below go direct (MCPX_DAEMON=off) unless they say.
  await writeFile(config, JSON.stringify({ mcpServers: { secure: { url: as.url, keep_alive: true } } }));
  store = new TokenStore(join(home(), '.mcpx'));
  server = { ...adhocHttpServer(as.url), name: 'secure' } as ServerConfig & { url: string };
  await signIn(server, { store, present: browser });
});
afterAll(async () => {
  await as?.close();
  await dir?.remove();
});

/** The browser, headless: follow the authorization URL to its redirect and deliver it. */
async function browser(url: URL): Promise<void> {
  const response = await fetch(url, { redirect: 'manual' });
  await fetch(new URL(response.headers.get('location') ?? '', url));
}

async function mcpx(
  args: string[],
  onSpawn?: (pid: number) => void,
  env: Record<string, string> = { MCPX_DAEMON: 'off' },
): Promise<CliRun> {
  const run = await runCli(['--config', config, ...args], {
    cwd: dir.path,
    home: home(),
    env,
    timeoutMs: 60_000,
    ...(onSpawn ? { onSpawn } : {}),
  });
  printed.push(run.stdout, run.stderr);
  return run;
}

/** Time passes: the access token has expired at the server, and (`clock`) by its own expires_in too. */
async function expire(clock: boolean): Promise<void> {
  as.expireAccessTokens();
  if (clock)
    await store.update(server.name, server.url, (current) => ({
      ...current,
      ...(current.tokens ? { tokens: { ...current.tokens, obtained_at: Date.now() - 7_200_000 } } : {}),
    }));
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('many processes meet an expired token at once', () => {
  it(`${CONCURRENT} concurrent calls make exactly one refresh, and all succeed (${ROUNDS} rounds)`, {
    timeout: 600_000,
  }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await expire(round % 2 === 0);
      const before = as.refreshes();
      const runs = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) =>
          // Some verbose: what the SDK and mcpx say in detail must hold no token either.
          mcpx([...(i % 3 === 0 ? ['--verbose'] : []), 'call', 'secure.echo', `message=r${round}c${i}`]),
        ),
      );
      const outcomes = runs.map((run, i) => ({ code: run.code, stdout: run.stdout, i }));
      expect(outcomes, runs.map((r) => r.stderr).join('\n')).toEqual(
        Array.from({ length: CONCURRENT }, (_, i) => ({ code: 0, stdout: `r${round}c${i}\n`, i })),
      );
      const after = as.refreshes();
      expect({ round, granted: after.granted - before.granted, reused: after.reused }).toEqual({
        round,
        granted: 1,
        reused: 0,
      });
      expect(after.arrived - before.arrived).toBe(1);
    }
  });
});

describe('long-running processes meet it too', () => {
  it('a daemon and two `mcpx serve` sessions connected before, with ten calls: one refresh, all succeed', {
    timeout: 180_000,
  }, async () => {
    const viaDaemon = { MCPX_DAEMON: 'on' };
    expect((await mcpx(['daemon', 'start'], undefined, viaDaemon)).code).toBe(0);
    const sessions: Client[] = [];
    const serveErrors: string[] = [];
    try {
      expect(await mcpx(['call', 'secure.echo', 'message=warm'], undefined, viaDaemon)).toMatchObject({
        code: 0,
      });
      for (let i = 0; i < 2; i++) {
        const client = new Client({ name: `agent-${i}`, version: '1.0.0' });
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [cliPath, '--config', config, 'serve', '--allow', 'secure'],
          env: {
            PATH: process.env.PATH ?? '',
            HOME: home(),
            MCPX_HOME: join(home(), '.mcpx'),
            MCPX_DAEMON: 'off',
          },
          cwd: dir.path,
          stderr: 'pipe',
        });
        transport.stderr?.on('data', (d: Buffer) => serveErrors.push(d.toString()));
        await client.connect(transport);
        sessions.push(client);
        const warm = await client.callTool({ name: 'secure__echo', arguments: { message: `warm${i}` } });
        expect(firstText(warm)).toBe(`warm${i}`);
      }
      // Everyone holds a token that has now expired.
      await expire(true);
      const before = as.refreshes();
      const [calls, daemonCalls, served] = await Promise.all([
        Promise.all(
          Array.from({ length: CONCURRENT }, (_, i) => mcpx(['call', 'secure.echo', `message=c${i}`])),
        ),
        Promise.all([0, 1].map((i) => mcpx(['call', 'secure.echo', `message=d${i}`], undefined, viaDaemon))),
        Promise.all(
          sessions.map((client, i) =>
            client.callTool({ name: 'secure__echo', arguments: { message: `s${i}` } }).then(firstText),
          ),
        ),
      ]);
      expect(calls.map((r) => ({ code: r.code, stdout: r.stdout }))).toEqual(
        Array.from({ length: CONCURRENT }, (_, i) => ({ code: 0, stdout: `c${i}\n` })),
      );
      expect(daemonCalls.map((r) => ({ code: r.code, stdout: r.stdout }))).toEqual([
        { code: 0, stdout: 'd0\n' },
        { code: 0, stdout: 'd1\n' },
      ]);
      expect(served).toEqual(['s0', 's1']);
      const after = as.refreshes();
      expect({ granted: after.granted - before.granted, reused: after.reused }).toEqual({
        granted: 1,
        reused: 0,
      });
    } finally {
      await Promise.all(sessions.map((client) => client.close()));
      printed.push(...serveErrors);
      await mcpx(['daemon', 'stop'], undefined, viaDaemon);
    }
  });
});

describe('a refresh whose holder is killed', () => {
  it('with SIGKILL mid-refresh: the next process takes the lock over and signs in within seconds', {
    timeout: 120_000,
  }, async () => {
    await expire(true);
    const before = as.refreshes();
    as.stallRefreshes(true);
    let holder = 0;
    const killed = mcpx(['call', 'secure.echo', 'message=killed'], (pid) => {
      holder = pid;
    });
    try {
      await until(() => as.refreshes().arrived > before.arrived, 30_000);
      // Mid-refresh: the request is at the authorization server and the lock is held.
      await access(store.refreshLockFor(server.name, server.url));
      const next = mcpx(['call', 'secure.echo', 'message=next']);
      process.kill(holder, 'SIGKILL');
      expect(await waitForExit(holder, 5_000)).toBe(true);
      await until(() => as.refreshes().abandoned > before.abandoned, 5_000);
      as.stallRefreshes(false);
      const started = Date.now();
      const recovered = await next;
      expect({ code: recovered.code, stdout: recovered.stdout }, recovered.stderr).toEqual({
        code: 0,
        stdout: 'next\n',
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await killed).signal).toBe('SIGKILL');
      const after = as.refreshes();
      expect({ granted: after.granted - before.granted, reused: after.reused }).toEqual({
        granted: 1,
        reused: 0,
      });
      // The dead holder's lock was taken over and let go.
      await expect(access(store.refreshLockFor(server.name, server.url))).rejects.toThrow();
    } finally {
      as.stallRefreshes(false);
    }
  });
});

describe('a renewal the authorization server refuses', () => {
  it('is asked once: every process says why and how to sign in again, and no other asks again', {
    timeout: 120_000,
  }, async () => {
    await expire(true);
    as.revokeAll();
    const before = as.refreshes();
    const runs = await Promise.all([1, 2, 3].map((i) => mcpx(['call', 'secure.echo', `message=${i}`])));
    expect(as.refreshes().arrived - before.arrived).toBe(1);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain("the sign-in to 'secure' has ended");
      expect(run.stderr).toContain('invalid_grant');
      expect(run.stderr).toContain('mcpx auth secure');
    }
    const later = await mcpx(['call', 'secure.echo', 'message=later']);
    expect(later.code).toBe(3);
    expect(later.stderr).toContain("the sign-in to 'secure' has ended");
    expect(later.stderr).toContain('mcpx auth secure');
    expect(as.refreshes().arrived - before.arrived).toBe(1);
    // Signing in again ends it.
    await signIn(server, { store, present: browser });
    expect(await mcpx(['call', 'secure.echo', 'message=back'])).toMatchObject({ code: 0, stdout: 'back\n' });
  });
});

describe('secrets', () => {
  it('no token or code issued in these runs is in any output, or any file of the home but the token file', async () => {
    const secrets = as.issuedSecrets();
    expect(secrets.length).toBeGreaterThan(2 * ROUNDS);
    expect(printed.length).toBeGreaterThan(2 * CONCURRENT * ROUNDS);
    const files: string[] = [];
    const tokenFile = store.fileFor(server.name, server.url);
    for (const entry of await readdir(join(home(), '.mcpx'), { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isFile() && path !== tokenFile) files.push(await readFile(path, 'utf8').catch(() => ''));
    }
    for (const secret of secrets) {
      for (const text of [...printed, ...files]) expect(text).not.toContain(secret);
    }
  });
});
