/**
 * The sign-ins of the next spec revision's extensions through the built CLI: a workload's
 * JWT-bearer assertion read from a file the config names (SEP-1933), and DPoP-bound tokens with
 * the nonces a server asks for (SEP-1932), from `mcpx auth` through a later command's refresh.
 */
import { spawn } from 'node:child_process';
import { createSign, generateKeyPairSync } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenStore } from '../../src/auth/token-store.js';
import { type OAuthTestServer, startOAuthTestServer } from '../../src/testing/oauth-test-server.js';
import { cliPath, runCli, tempDir } from '../helpers/cli.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let dir: { path: string; remove: () => Promise<void> };
const servers: OAuthTestServer[] = [];
beforeEach(async () => {
  dir = await tempDir('mcpx-auth-ext-e2e-');
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await dir.remove();
});

const home = () => join(dir.path, 'home');
async function configWith(servers: Record<string, unknown>): Promise<string> {
  const file = join(dir.path, 'mcp.json');
  await writeFile(file, JSON.stringify({ mcpServers: servers }));
  return file;
}
const mcpx = (config: string, args: string[]) =>
  runCli(['--config', config, ...args], { cwd: dir.path, home: home() });

/** An RS256 JWT as a workload identity provider (Kubernetes, a CI system) would mint it. */
function workloadToken(privateKey: string, audience: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss: 'https://ci.example', sub: 'job-7', aud: audience, iat: now, exp: now + 600 })}`;
  return `${unsigned}.${createSign('sha256').update(unsigned).sign(privateKey, 'base64url')}`;
}

describe('workload identity: the JWT-bearer grant', () => {
  it('presents the token in the file the config names, needs no sign-in, and never shows it', async () => {
    const keys = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const as = await startOAuthTestServer({ workloadKey: keys.publicKey });
    servers.push(as);
    const assertion = workloadToken(keys.privateKey, new URL(as.url).origin);
    // Where the platform mounts it, relative to the config file.
    await writeFile(join(dir.path, 'workload-token'), `${assertion}\n`);
    const config = await configWith({
      robot: {
        url: as.url,
        oauth: { grant_type: JWT_BEARER, client_id: 'workload', assertion_file: 'workload-token' },
      },
    });

    const called = await mcpx(config, ['--verbose', 'call', 'robot.echo', 'message=beep']);
    expect(called, called.stderr).toMatchObject({ code: 0, stdout: 'beep\n' });
    const tokenRequests = as.requests.filter((r) => r.path === '/token');
    expect(tokenRequests.map((r) => [r.params.grant_type, r.params.assertion])).toEqual([
      [JWT_BEARER, assertion],
    ]);
    expect(as.requests.some((r) => r.path === '/authorize' || r.path === '/register')).toBe(false);

    const doctor = await mcpx(config, ['doctor']);
    expect(doctor.stdout).toMatch(/ok\s+robot\s+.*machine/);
    const auth = await mcpx(config, ['auth', 'robot']);
    expect(auth.code).toBe(1);
    expect(auth.stderr).toContain('signs in by itself with a JWT-bearer assertion');
    const status = await mcpx(config, ['auth', 'status', 'robot']);
    expect(status.stdout).toMatch(/robot\s+machine\s+.*jwt-bearer/);

    // The platform has not mounted the token (yet): the error names the file, not a token.
    await rm(join(dir.path, 'workload-token'));
    const missing = await mcpx(config, ['call', 'robot.echo', 'message=beep']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(join(dir.path, 'workload-token'));

    const secrets = [assertion, ...as.issuedSecrets()];
    for (const text of [
      called.stdout,
      called.stderr,
      doctor.stdout,
      doctor.stderr,
      auth.stderr,
      missing.stderr,
    ])
      for (const secret of secrets) expect(text).not.toContain(secret);
  });
});

/** `mcpx auth <name> --no-browser`, approving at once and pasting where the browser ended. */
async function signIn(
  config: string,
  name: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cliPath, '--config', config, 'auth', name, '--no-browser'], {
    cwd: dir.path,
    env: { PATH: process.env.PATH ?? '', HOME: home(), MCPX_HOME: join(home(), '.mcpx') },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let answered = false;
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', async (d) => {
    stderr += d;
    const url = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(stderr)?.[1];
    if (!url || answered) return;
    answered = true;
    const approved = await fetch(url, { redirect: 'manual' });
    child.stdin.end(`${approved.headers.get('location')}\n`);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

describe('DPoP-bound tokens', () => {
  it('binds the sign-in to a key kept with it, proves every request, answers both nonces, and refreshes bound', async () => {
    const as = await startOAuthTestServer({ dpop: { nonce: true } });
    servers.push(as);
    const config = await configWith({ secure: { url: as.url, oauth: { dpop: true } } });

    const signedIn = await signIn(config, 'secure');
    expect(signedIn.code, signedIn.stderr).toBe(0);
    const store = new TokenStore(join(home(), '.mcpx'));
    const stored = await store.load('secure', as.url);
    expect(stored?.tokens?.token_type).toBe('DPoP');
    expect(stored?.dpopKey?.alg).toBe('ES256');

    // Another process presents the token the first one got, with the key stored beside it.
    const called = await mcpx(config, ['call', 'secure.echo', 'message=bound']);
    expect(called, called.stderr).toMatchObject({ code: 0, stdout: 'bound\n' });
    // The access token expires: the next command refreshes it with a proof by the same key.
    as.expireAccessTokens();
    const again = await mcpx(config, ['call', 'secure.echo', 'message=renewed']);
    expect(again, again.stderr).toMatchObject({ code: 0, stdout: 'renewed\n' });
    // Nothing else on stderr: no warning from the SDK, no proof, no token.
    expect(called.stderr + again.stderr).toBe('');
    expect(as.refreshes().granted).toBe(1);

    const proofs = as.dpopProofs;
    expect(proofs.filter((p) => p.problem)).toEqual([]);
    // Each endpoint asked for its nonce once per process, and then got it.
    const at = (path: string) => proofs.filter((p) => p.path === path);
    expect(at('/token').length).toBeGreaterThanOrEqual(4); // code and refresh, each challenged once
    expect(at('/token').some((p) => p.nonce === 'test-server-nonce')).toBe(true);
    expect(at('/mcp').some((p) => p.nonce === 'test-server-nonce')).toBe(true);
    // A fresh proof for every request: no jti twice.
    const jtis = proofs.map((p) => p.jti);
    expect(new Set(jtis).size).toBe(jtis.length);

    const after = await store.load('secure', as.url);
    const secrets = [
      ...as.issuedSecrets(),
      String(after?.dpopKey?.privateJwk.d),
      String(stored?.dpopKey?.privateJwk.d),
    ];
    for (const text of [signedIn.stdout, signedIn.stderr, called.stderr, again.stderr])
      for (const secret of secrets) expect(text).not.toContain(secret);
  });

  it('binds a machine’s client-credentials tokens too', async () => {
    const as = await startOAuthTestServer({
      dpop: {},
      machineClient: { id: 'robot', secret: 'robot-secret' },
    });
    servers.push(as);
    const config = await configWith({
      robot: {
        url: as.url,
        oauth: {
          grant_type: 'client_credentials',
          client_id: 'robot',
          client_secret: 'robot-secret',
          dpop: true,
        },
      },
    });
    const called = await mcpx(config, ['call', 'robot.echo', 'message=beep']);
    expect(called, called.stderr).toMatchObject({ code: 0, stdout: 'beep\n', stderr: '' });
    expect(as.dpopProofs.filter((p) => p.path === '/mcp' && p.jti).length).toBeGreaterThan(0);
    expect(as.dpopProofs.filter((p) => p.problem)).toEqual([]);
  });
});
