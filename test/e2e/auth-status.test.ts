/** `mcpx auth status` and `mcpx auth logout`: what a sign-in is, never a token; a logout reaches a running daemon. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../../src/auth/sign-in.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { adhocHttpServer } from '../../src/config/index.js';
import type { ServerConfig } from '../../src/config/types.js';
import { type OAuthTestServer, startOAuthTestServer } from '../../src/testing/oauth-test-server.js';
import { type CliRun, runCli, tempDir } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let as: OAuthTestServer;
let config: string;
let store: TokenStore;
let server: ServerConfig & { url: string };
const printed: string[] = [];
const home = () => join(dir.path, 'home');

beforeAll(async () => {
  dir = await tempDir('mcpx-auth-status-');
  as = await startOAuthTestServer({ machineClient: { id: 'robot', secret: 'robot-secret' } });
  config = join(dir.path, 'mcp.json');
  const oauth = { scope: 'read write' };
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        secure: { url: as.url, keep_alive: true, oauth },
        robot: {
          url: as.url,
          oauth: { grant_type: 'client_credentials', client_id: 'robot', client_secret: 'robot-secret' },
        },
        local: { command: 'node', args: ['-e', ''] },
      },
    }),
  );
  store = new TokenStore(join(home(), '.mcpx'));
  server = { ...adhocHttpServer(as.url), name: 'secure', oauth } as ServerConfig & { url: string };
});
afterAll(async () => {
  await as?.close();
  await dir?.remove();
});

async function browser(url: URL): Promise<void> {
  const response = await fetch(url, { redirect: 'manual' });
  await fetch(new URL(response.headers.get('location') ?? '', url));
}

async function mcpx(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const run = await runCli(['--config', config, ...args], {
    cwd: dir.path,
    home: home(),
    env: { MCPX_DAEMON: 'off', ...env },
    timeoutMs: 60_000,
  });
  printed.push(run.stdout, run.stderr);
  return run;
}

async function statusJson(name?: string): Promise<Record<string, unknown>[]> {
  const run = await mcpx(['--json', 'auth', 'status', ...(name ? [name] : [])]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>[];
}

describe('mcpx auth status', () => {
  it('says signed out before any sign-in, and how to sign in', async () => {
    const run = await mcpx(['auth', 'status']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/secure\s+signed out\s+-/);
    expect(run.stdout).toMatch(/robot\s+machine\s+-\s+-\s+client credentials\s+memory only/);
    expect(run.stdout).not.toContain('local');
    expect(run.stdout).toContain("Sign in to 'secure' with `mcpx auth secure`.");
    expect(await statusJson()).toEqual([
      { server: 'secure', state: 'signed-out' },
      { server: 'robot', state: 'machine', grantType: 'client_credentials' },
    ]);
  });

  it('after a sign-in: expiry, scopes, grant, issuer and the file, in text and JSON', async () => {
    await signIn(server, { store, present: browser });
    const [status] = await statusJson('secure');
    const expiry = Date.parse(String(status?.expiresAt));
    expect(Math.abs(expiry - (Date.now() + 3_600_000))).toBeLessThan(120_000);
    expect(status).toEqual({
      server: 'secure',
      state: 'signed-in',
      grantType: 'authorization_code',
      expiresAt: expect.any(String),
      renewable: true,
      scopes: ['read', 'write'],
      issuer: new URL(as.url).origin,
      file: store.fileFor('secure', as.url),
    });
    const run = await mcpx(['auth', 'status', 'secure']);
    expect(run.stdout).toMatch(
      /secure\s+signed in\s+in (59|60) min, renews itself\s+read write\s+authorization code\s+~\/\.mcpx\/oauth\/secure-[0-9a-f]+\.json/,
    );
  });

  it('refuses a local server by name, saying only remote servers sign in', async () => {
    const run = await mcpx(['auth', 'status', 'local']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("'local' is a local (stdio) server: only remote servers sign in");
  });

  it('after the authorization server refused to renew it: ended, why, and how to sign in again', async () => {
    as.revokeAll();
    await store.update('secure', as.url, (current) => ({
      ...current,
      ...(current.tokens ? { tokens: { ...current.tokens, obtained_at: Date.now() - 7_200_000 } } : {}),
    }));
    expect((await statusJson('secure'))[0]).toMatchObject({ state: 'expired', renewable: true });
    const call = await mcpx(['call', 'secure.echo', 'message=x']);
    expect(call.code).toBe(3);
    const [status] = await statusJson('secure');
    expect(status).toMatchObject({
      server: 'secure',
      state: 'ended',
      ended: { at: expect.any(String), reason: expect.stringContaining('invalid_grant') },
    });
    const run = await mcpx(['auth', 'status']);
    expect(run.stdout).toMatch(/secure\s+ended/);
    expect(run.stdout).toContain("'secure': the authorization server refused to renew it (invalid_grant");
    expect(run.stdout).toContain("Sign in to 'secure' with `mcpx auth secure`.");
  });
});

describe('mcpx auth logout', () => {
  it('signs a running daemon out too: its next call needs a sign-in', { timeout: 120_000 }, async () => {
    await signIn(server, { store, present: browser });
    const daemon = { MCPX_DAEMON: 'on' };
    expect((await mcpx(['daemon', 'start'], daemon)).code).toBe(0);
    try {
      expect(await mcpx(['call', 'secure.echo', 'message=held'], daemon)).toMatchObject({
        code: 0,
        stdout: 'held\n',
      });
      const out = await mcpx(['auth', 'logout', 'secure']);
      expect(out).toMatchObject({ code: 0, stdout: "Signed out of 'secure'.\n" });
      const after = await mcpx(['call', 'secure.echo', 'message=after'], daemon);
      expect(after.code, after.stdout).toBe(3);
      expect(after.stderr).toContain('mcpx auth secure');
      expect((await statusJson('secure'))[0]).toEqual({ server: 'secure', state: 'signed-out' });
    } finally {
      await mcpx(['daemon', 'stop'], daemon);
    }
  });

  it('no token or code issued is in any output', () => {
    const secrets = as.issuedSecrets();
    expect(secrets.length).toBeGreaterThan(4);
    for (const secret of secrets) for (const text of printed) expect(text).not.toContain(secret);
  });
});
