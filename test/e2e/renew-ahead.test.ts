/**
 * Long-running processes hold the sign-in: a daemon and two `mcpx serve` sessions calling a
 * server whose access tokens live five seconds renew the token ahead of its expiry — one
 * refresh at the authorization server for all of them, and no request ever refused with a 401.
 */
import { writeFile } from 'node:fs/promises';
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

/** How long a signed-in token lives at the test authorization server (a refreshed one: an hour). */
const LIFETIME_S = 5;

let dir: { path: string; remove: () => Promise<void> };
let as: OAuthTestServer;
let config: string;
let store: TokenStore;
let server: ServerConfig & { url: string };
const home = () => join(dir.path, 'home');

beforeAll(async () => {
  dir = await tempDir('mcpx-renew-ahead-');
  as = await startOAuthTestServer({ accessTokenSeconds: LIFETIME_S });
  config = join(dir.path, 'mcp.json');
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

const viaDaemon = { MCPX_DAEMON: 'on' };
const mcpx = (args: string[], env: Record<string, string> = viaDaemon): Promise<CliRun> =>
  runCli(['--config', config, ...args], { cwd: dir.path, home: home(), env, timeoutMs: 60_000 });

async function serveSession(name: string, errors: string[]): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, '--config', config, 'serve', '--allow', 'secure'],
    env: { PATH: process.env.PATH ?? '', HOME: home(), MCPX_HOME: join(home(), '.mcpx'), MCPX_DAEMON: 'off' },
    cwd: dir.path,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => errors.push(d.toString()));
  await client.connect(transport);
  return client;
}

describe('a daemon and two serve sessions across a token expiry', () => {
  it('renew ahead of it: one refresh for all, every call answered, no 401 from the server', {
    timeout: 180_000,
  }, async () => {
    expect((await mcpx(['daemon', 'start'])).code).toBe(0);
    const sessions: Client[] = [];
    const serveErrors: string[] = [];
    try {
      // Warm: the daemon holds the server, each serve has connected to it.
      expect(await mcpx(['call', 'secure.echo', 'message=warm'])).toMatchObject({
        code: 0,
        stdout: 'warm\n',
      });
      for (const name of ['agent-0', 'agent-1']) sessions.push(await serveSession(name, serveErrors));
      for (const client of sessions)
        expect(firstText(await client.callTool({ name: 'secure__echo', arguments: { message: 'w' } }))).toBe(
          'w',
        );
      // A fresh sign-in now, so the calls below run from well before its expiry to well after.
      await signIn(server, { store, present: browser });
      const signedInAt = Date.now();
      const refusedBefore = as.unauthorized();
      const before = as.refreshes();
      const until = signedInAt + (LIFETIME_S + 2) * 1000;
      const served = sessions.map(async (client, i) => {
        const answers: { text: string | undefined; expected: string; at: number }[] = [];
        for (let n = 0; Date.now() < until; n++) {
          const expected = `s${i}-${n}`;
          const result = await client.callTool({ name: 'secure__echo', arguments: { message: expected } });
          answers.push({ text: firstText(result), expected, at: Date.now() });
          await new Promise((resolve) => setTimeout(resolve, 150));
        }
        return answers;
      });
      const daemonCalls = (async () => {
        const runs: { run: CliRun; expected: string; at: number }[] = [];
        for (let n = 0; Date.now() < until; n++) {
          const expected = `d${n}`;
          runs.push({
            run: await mcpx(['call', 'secure.echo', `message=${expected}`]),
            expected,
            at: Date.now(),
          });
        }
        return runs;
      })();
      const [answers, runs] = await Promise.all([Promise.all(served), daemonCalls]);
      const expiry = signedInAt + LIFETIME_S * 1000;
      for (const session of answers) {
        expect(session.map((a) => a.text)).toEqual(session.map((a) => a.expected));
        // The calls went on past the first token's expiry.
        expect(session.at(-1)?.at).toBeGreaterThan(expiry);
      }
      expect(runs.map((r) => ({ code: r.run.code, stdout: r.run.stdout }))).toEqual(
        runs.map((r) => ({ code: 0, stdout: `${r.expected}\n` })),
      );
      expect(runs.at(-1)?.at).toBeGreaterThan(expiry);
      const after = as.refreshes();
      expect({
        refused: as.unauthorized() - refusedBefore,
        refreshes: after.granted - before.granted,
        arrived: after.arrived - before.arrived,
        reused: after.reused,
      }).toEqual({ refused: 0, refreshes: 1, arrived: 1, reused: 0 });
    } finally {
      await Promise.all(sessions.map((client) => client.close()));
      await mcpx(['daemon', 'stop']);
    }
    expect(serveErrors.join('')).not.toMatch(/warning/i);
  });
});

describe('a renewal the authorization server refuses, in a long-running process', () => {
  it('`mcpx serve` says why and how to sign in again once, however many calls fail', {
    timeout: 120_000,
  }, async () => {
    await signIn(server, { store, present: browser });
    const serveErrors: string[] = [];
    const client = await serveSession('agent', serveErrors);
    const failures: string[] = [];
    try {
      expect(firstText(await client.callTool({ name: 'secure__echo', arguments: { message: 'ok' } }))).toBe(
        'ok',
      );
      // The grant is revoked at the authorization server, and the access token has lapsed.
      as.revokeAll();
      for (let i = 0; i < 3; i++) {
        const result = await client.callTool({ name: 'secure__echo', arguments: { message: `x${i}` } }).then(
          (r) => JSON.stringify(r),
          (error: Error) => error.message,
        );
        failures.push(result);
      }
    } finally {
      await client.close();
    }
    // Every call fails, and says how to sign in again.
    for (const failure of failures) expect(failure).toContain('mcpx auth secure');
    const told = serveErrors.join('').match(/the sign-in to 'secure' has ended[^\n]*/g) ?? [];
    expect(told, JSON.stringify(serveErrors)).toHaveLength(1);
    expect(told[0]).toContain('invalid_grant');
    expect(told[0]).toContain('sign in again with `mcpx auth secure`');
  });
});
