import { lstat, mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAuthorizationResponse, startLoopbackListener } from '../../../src/auth/loopback.js';
import { McpxOAuthProvider } from '../../../src/auth/oauth-provider.js';
import { TokenStore } from '../../../src/auth/token-store.js';
import { ErrorCode } from '../../../src/errors/index.js';
import { tempDir } from '../../helpers/cli.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});
async function home(): Promise<string> {
  const dir = await tempDir('mcpx-auth-');
  cleanups.push(dir.remove);
  return dir.path;
}

const tokens = { access_token: 'at-secret', token_type: 'Bearer', refresh_token: 'rt-secret' };

describe('TokenStore', () => {
  it('writes the directory 0700 and each file 0600, with no temporary files left', async () => {
    const store = new TokenStore(await home());
    await store.save('api', { serverUrl: 'https://api.example.com/mcp', tokens });
    expect((await stat(store.directory)).mode & 0o777).toBe(0o700);
    const file = store.fileFor('api', 'https://api.example.com/mcp');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(store.directory)).toEqual([file.split('/').pop()]);
    expect((await store.load('api', 'https://api.example.com/mcp'))?.tokens).toEqual(tokens);
  });

  it('keeps servers apart: another name or another URL never sees the tokens', async () => {
    const store = new TokenStore(await home());
    await store.save('api', { serverUrl: 'https://api.example.com/mcp', tokens });
    expect(await store.load('other', 'https://api.example.com/mcp')).toBeUndefined();
    expect(await store.load('api', 'https://evil.example.com/mcp')).toBeUndefined();
  });

  it('refuses a symlink planted where its file or directory goes', async () => {
    const root = await home();
    const store = new TokenStore(root);
    await mkdir(store.directory, { recursive: true, mode: 0o700 });
    const target = join(root, 'elsewhere.json');
    await writeFile(target, '{}');
    await symlink(target, store.fileFor('api', 'https://api.example.com/mcp'));
    await expect(
      store.save('api', { serverUrl: 'https://api.example.com/mcp', tokens }),
    ).rejects.toMatchObject({
      code: ErrorCode.HomeUnsafe,
      message: expect.stringContaining('is a symbolic link'),
    });
    expect((await lstat(target)).size).toBe(2);

    const other = await home();
    await symlink(root, join(other, 'oauth'));
    await expect(new TokenStore(other).save('api', { serverUrl: 'https://x/mcp', tokens })).rejects.toThrow(
      /symbolic link/,
    );
  });

  it('logs out: removes the file and says whether there was one', async () => {
    const store = new TokenStore(await home());
    await store.save('api', { serverUrl: 'https://api.example.com/mcp', tokens });
    expect(await store.remove('api', 'https://api.example.com/mcp')).toBe(true);
    expect(await store.remove('api', 'https://api.example.com/mcp')).toBe(false);
    expect(await store.load('api', 'https://api.example.com/mcp')).toBeUndefined();
  });
});

describe('two providers of one server', () => {
  const server = {
    name: 'api',
    url: 'https://api.example.com/mcp',
    origin: 'test',
  } as unknown as ConstructorParameters<typeof McpxOAuthProvider>[0]['server'];

  it("never put back each other's old tokens: a running connection's write merges into the sign-in's", async () => {
    const store = new TokenStore(await home());
    await store.save('api', { serverUrl: server.url, tokens });
    const connection = new McpxOAuthProvider({ server, store, redirectUrl: 'http://127.0.0.1/callback' });
    expect((await connection.tokens())?.access_token).toBe('at-secret');
    const signIn = new McpxOAuthProvider({ server, store, redirectUrl: 'http://127.0.0.1/callback' });
    await signIn.saveTokens({ access_token: 'at-new', token_type: 'Bearer', scope: 'tools:write' });
    // The connection, which read the old tokens, now starts a sign-in of its own.
    await connection.saveCodeVerifier('verifier');
    await connection.state();
    await connection.saveDiscoveryState({ authorizationServerUrl: 'https://as.example.com' });
    const stored = await store.load('api', server.url);
    expect(stored?.tokens?.access_token).toBe('at-new');
    expect(stored?.discoveryState?.authorizationServerUrl).toBe('https://as.example.com');
    // A sign-in's secrets stay with it: another's state never replaces the one its redirect brings back.
    expect(stored).not.toHaveProperty('codeVerifier');
    expect(stored).not.toHaveProperty('state');
    expect(await connection.codeVerifier()).toBe('verifier');
    expect(await signIn.expectedState()).toBeUndefined();
    expect((await connection.tokens())?.access_token).toBe('at-new');
    await connection.invalidateCredentials('verifier');
    expect((await store.load('api', server.url))?.tokens?.access_token).toBe('at-new');
    expect(await readdir(store.directory)).toHaveLength(1);
  });

  it('all land when many change one file at once', async () => {
    const store = new TokenStore(await home());
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        new McpxOAuthProvider({ server, store }).saveDiscoveryState({
          authorizationServerUrl: `https://as${i}.example.com`,
        }),
      ),
    );
    await Promise.all([
      new McpxOAuthProvider({ server, store }).saveTokens(tokens),
      new McpxOAuthProvider({ server, store }).saveClientInformation({ client_id: 'c' }),
    ]);
    const stored = await store.load('api', server.url);
    expect(stored).toMatchObject({ tokens, clientInformation: { client_id: 'c' } });
    expect(stored?.discoveryState?.authorizationServerUrl).toMatch(/^https:\/\/as\d\.example\.com$/);
  });
});

describe('the authorization response', () => {
  it('is read from the redirect, with state and iss', () => {
    expect(
      parseAuthorizationResponse('http://127.0.0.1:1/callback?code=c1&state=s1&iss=https%3A%2F%2Fas'),
    ).toEqual({
      code: 'c1',
      state: 's1',
      iss: 'https://as',
    });
    expect(() => parseAuthorizationResponse('http://127.0.0.1:1/callback?error=access_denied')).toThrow(
      /refused the sign-in: access_denied/,
    );
    expect(() => parseAuthorizationResponse('http://127.0.0.1:1/callback?state=x')).toThrow(
      /no authorization code/,
    );
  });

  it('arrives once on the loopback listener, or pasted', async () => {
    const listener = await startLoopbackListener();
    cleanups.push(() => listener.close());
    expect(listener.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const page = await fetch(`${listener.redirectUrl}?code=abc&state=s`);
    expect(page.status).toBe(200);
    expect(await listener.response).toEqual({ code: 'abc', state: 's' });
    const pasted = await startLoopbackListener();
    cleanups.push(() => pasted.close());
    pasted.accept(`${pasted.redirectUrl}?code=pasted&state=p`);
    expect(await pasted.response).toEqual({ code: 'pasted', state: 'p' });
  });
});
