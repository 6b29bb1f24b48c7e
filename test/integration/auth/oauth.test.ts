/** OAuth end to end against a local authorization server: sign in, use, refresh on expiry, log out. */
import { stat } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { signIn } from '../../../src/auth/sign-in.js';
import { TokenStore } from '../../../src/auth/token-store.js';
import { connectServer } from '../../../src/client/server-connection.js';
import { createServerTransport } from '../../../src/client/transport-factory.js';
import { adhocHttpServer } from '../../../src/config/index.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { ErrorCode, formatErrorVerbose } from '../../../src/errors/index.js';
import {
  type OAuthTestServer,
  type OAuthTestServerOptions,
  startOAuthTestServer,
} from '../../../src/testing/oauth-test-server.js';
import { tempDir } from '../../helpers/cli.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c().catch(() => {})));
});

async function setup(accessTokenSeconds?: number, misbehaviour: OAuthTestServerOptions = {}) {
  const as: OAuthTestServer = await startOAuthTestServer({
    ...(accessTokenSeconds ? { accessTokenSeconds } : {}),
    ...misbehaviour,
  });
  cleanups.push(() => as.close());
  const home = await tempDir('mcpx-oauth-');
  cleanups.push(home.remove);
  const server = { ...adhocHttpServer(as.url), name: 'secure' } as ServerConfig & { url: string };
  return { as, home: home.path, server, store: new TokenStore(home.path) };
}

/** The browser, headless: follow the authorization URL to its redirect and deliver it. */
async function browser(url: URL): Promise<void> {
  const response = await fetch(url, { redirect: 'manual' });
  await fetch(new URL(response.headers.get('location') ?? '', url));
}

async function call(server: ServerConfig, home: string, message: string) {
  const connection = await connectServer(server, {
    createTransport: () => createServerTransport(server, { hostEnv: process.env, oauthHome: home }),
  });
  try {
    return await connection.callTool('echo', { message });
  } finally {
    await connection.close();
  }
}

describe('OAuth against a local authorization server', () => {
  it('signs in (PKCE, state, resource), stores tokens 0600, and calls the protected server', async () => {
    const { as, home, server, store } = await setup();
    await signIn(server, { store, present: browser });
    const file = store.fileFor(server.name, server.url);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const authorize = as.requests.find((r) => r.path === '/authorize');
    expect(authorize?.params).toMatchObject({ code_challenge_method: 'S256', resource: server.url });
    expect(authorize?.params.state).toBeTruthy();
    const token = as.requests.find((r) => r.path === '/token');
    expect(token?.params).toMatchObject({ grant_type: 'authorization_code', resource: server.url });
    expect((await call(server, home, 'signed in')).content).toEqual([{ type: 'text', text: 'signed in' }]);
  });

  it('refreshes an expired access token by itself', async () => {
    const { as, home, server, store } = await setup(1);
    await signIn(server, { store, present: browser });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect((await call(server, home, 'after expiry')).content).toEqual([
      { type: 'text', text: 'after expiry' },
    ]);
    expect(as.requests.some((r) => r.path === '/token' && r.params.grant_type === 'refresh_token')).toBe(
      true,
    );
  });

  it('refuses a callback whose state does not match', async () => {
    const { server, store } = await setup();
    const forged = async (url: URL) => {
      const response = await fetch(url, { redirect: 'manual' });
      const back = new URL(response.headers.get('location') ?? '', url);
      back.searchParams.set('state', 'forged');
      await fetch(back);
    };
    await expect(signIn(server, { store, present: forged })).rejects.toMatchObject({
      code: ErrorCode.AuthRequired,
      message: expect.stringContaining('state does not match'),
    });
  });

  it('after logout the server asks for sign-in again, and no token leaks into the error', async () => {
    const { home, server, store } = await setup();
    await signIn(server, { store, present: browser });
    const saved = await store.load(server.name, server.url);
    expect(await store.remove(server.name, server.url)).toBe(true);
    const error = await call(server, home, 'x').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired });
    const text = formatErrorVerbose(error);
    expect(text).toContain('mcpx auth secure');
    for (const secret of [saved?.tokens?.access_token, saved?.tokens?.refresh_token]) {
      expect(secret).toBeTruthy();
      expect(text).not.toContain(secret);
    }
  });

  it('accepts the right iss on the callback (RFC 9207)', async () => {
    const { home, server, store } = await setup(undefined, { sendIss: true });
    await signIn(server, { store, present: browser });
    expect((await call(server, home, 'iss ok')).content).toEqual([{ type: 'text', text: 'iss ok' }]);
  });

  it('refuses a callback whose iss is not the authorization server', async () => {
    const { server, store } = await setup(undefined, { wrongIss: 'https://evil.example' });
    const error = await signIn(server, { store, present: browser }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired });
    expect(formatErrorVerbose(error)).toMatch(/issuer|\biss\b/i);
    expect((await store.load(server.name, server.url))?.tokens).toBeUndefined();
  });

  it('refuses to sign in when S256 PKCE is not advertised, before any browser opens', async () => {
    const { server, store } = await setup(undefined, { noS256: true });
    let opened = false;
    const error = await signIn(server, {
      store,
      present: async () => {
        opened = true;
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired, message: expect.stringContaining('S256') });
    expect(opened).toBe(false);
  });

  it('refuses an authorization endpoint on plain http off loopback', async () => {
    const { server, store } = await setup(undefined, {
      authorizationEndpoint: 'http://auth.example.com/authorize',
    });
    let opened = false;
    const error = await signIn(server, {
      store,
      present: async () => {
        opened = true;
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired });
    expect(opened).toBe(false);
  });
});
