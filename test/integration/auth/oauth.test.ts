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

describe('re-authorization inside a running connection', () => {
  async function connect(
    server: ServerConfig,
    home: string,
    interactive: boolean,
    options: { present?: (url: URL) => Promise<void>; requestTimeoutMs?: number } = {},
  ) {
    const connection = await connectServer(server, {
      createTransport: () =>
        createServerTransport(server, {
          hostEnv: process.env,
          oauthHome: home,
          ...(interactive ? { signIn: { present: options.present ?? browser } } : {}),
        }),
      ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    });
    cleanups.push(() => connection.close());
    return connection;
  }

  it('steps up on 403 insufficient_scope: signs in for the union of scopes and retries the call', async () => {
    const { as, home, server, store } = await setup(undefined, { toolCallScope: 'tools:write' });
    await signIn(server, { store, present: browser });
    const connection = await connect(server, home, true);
    expect((await connection.listTools()).length).toBeGreaterThan(0);
    const result = await connection.callTool('echo', { message: 'stepped up' });
    expect(result.content).toEqual([{ type: 'text', text: 'stepped up' }]);
    const scopes = as.requests.filter((r) => r.path === '/authorize').map((r) => r.params.scope);
    expect(scopes).toEqual(['basic', 'basic tools:write']);
    // The stored grant is the wider one: the next connection needs no new sign-in.
    expect((await store.load(server.name, server.url))?.tokens?.scope).toBe('basic tools:write');
  });

  it('asks once when several calls are refused for the same scope at the same time', async () => {
    const { as, home, server, store } = await setup(undefined, { toolCallScope: 'tools:write' });
    await signIn(server, { store, present: browser });
    const connection = await connect(server, home, true);
    const results = await Promise.all(
      ['one', 'two', 'three'].map((message) => connection.callTool('echo', { message })),
    );
    expect(results.map((r) => r.content)).toEqual([
      [{ type: 'text', text: 'one' }],
      [{ type: 'text', text: 'two' }],
      [{ type: 'text', text: 'three' }],
    ]);
    expect(as.requests.filter((r) => r.path === '/authorize')).toHaveLength(2);
  });

  it('signs in again at connect when the grant was revoked, then connects', async () => {
    const { as, home, server, store } = await setup();
    await signIn(server, { store, present: browser });
    as.revokeAll();
    const connection = await connect(server, home, true);
    expect((await connection.callTool('echo', { message: 'back' })).content).toEqual([
      { type: 'text', text: 'back' },
    ]);
    expect(as.requests.filter((r) => r.path === '/authorize')).toHaveLength(2);
    // Without a person to ask, the same situation is an AUTH_REQUIRED naming `mcpx auth`.
    as.revokeAll();
    const error = await call(server, home, 'x').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired });
  });

  it.each(['legacy', 'modern'] as const)(
    'never runs a call that timed out while the person was signing in (%s era)',
    async (era) => {
      const { as, home, server, store } = await setup(undefined, { toolCallScope: 'tools:write', era });
      await signIn(server, { store, present: browser });
      let signedIn!: () => void;
      const done = new Promise<void>((resolve) => {
        signedIn = resolve;
      });
      const slowPerson = async (url: URL) => {
        await new Promise((resolve) => setTimeout(resolve, 800));
        await browser(url);
        setTimeout(signedIn, 300);
      };
      const connection = await connect(server, home, true, { present: slowPerson, requestTimeoutMs: 400 });
      const error = await connection.callTool('echo', { message: 'late' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: ErrorCode.RequestTimeout });
      await done;
      expect(as.requests.filter((r) => r.path === '/authorize')).toHaveLength(2);
      expect(as.forwarded).not.toContain('tools/call');
      // The new grant is in place: the next call goes through at once.
      expect((await connection.callTool('echo', { message: 'now' })).content).toEqual([
        { type: 'text', text: 'now' },
      ]);
      expect(as.forwarded.filter((m) => m === 'tools/call')).toHaveLength(1);
    },
  );

  it('does not send the person to sign in for a plain 403 that no scope would cure', async () => {
    const { as, home, server, store } = await setup(undefined, { forbiddenTool: 'add' });
    await signIn(server, { store, present: browser });
    const connection = await connect(server, home, true);
    const error = await connection.callTool('add', { a: 1, b: 2 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired });
    expect(as.requests.filter((r) => r.path === '/authorize')).toHaveLength(1);
  });

  it('without an interactive host, the step-up fails with AUTH_REQUIRED and nothing is retried', async () => {
    const { as, home, server, store } = await setup(undefined, { toolCallScope: 'tools:write' });
    await signIn(server, { store, present: browser });
    const connection = await connect(server, home, false);
    const error = await connection.callTool('echo', { message: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired });
    expect(formatErrorVerbose(error)).toContain('mcpx auth secure');
    expect(as.requests.filter((r) => r.path === '/authorize')).toHaveLength(1);
  });
});

describe('endpoints a server hands out are checked before use', () => {
  const PUBLIC = 'mcp.example.com';
  /** A "public" MCP server that is really the local test server: names resolve as given, traffic goes to 127.0.0.1. */
  async function publicServer(options: OAuthTestServerOptions, addresses: Record<string, string>) {
    const { as, store } = await setup(undefined, { ...options, advertisedBase: `https://${PUBLIC}` });
    const local = new URL(as.url);
    const reached: string[] = [];
    const fakeFetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : input);
      reached.push(url.href);
      url.protocol = 'http:';
      url.host = local.host;
      return fetch(url, init);
    }) as typeof fetch;
    const resolver = async (host: string) => {
      const address = addresses[host];
      if (!address) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
      return [{ address, family: 4 }];
    };
    const server = {
      ...adhocHttpServer(`https://${PUBLIC}/mcp`),
      name: 'secure',
    } as ServerConfig & { url: string };
    return { as, store, server, reached, fakeFetch, resolver };
  }

  it('refuses a registration endpoint on a private address from a public server, sending nothing there', async () => {
    const { as, store, server, reached, fakeFetch, resolver } = await publicServer(
      { registrationEndpoint: 'https://register.internal.example/register' },
      { [PUBLIC]: '93.184.216.34', 'register.internal.example': '10.1.2.3' },
    );
    let opened = false;
    const error = await signIn(server, {
      store,
      fetch: fakeFetch,
      resolver,
      present: async () => {
        opened = true;
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.SsrfBlocked });
    expect(formatErrorVerbose(error)).toContain('register.internal.example');
    expect(reached.some((u) => u.includes('internal.example'))).toBe(false);
    expect(as.requests.some((r) => r.path === '/register')).toBe(false);
    expect(opened).toBe(false);
  });

  it('refuses a plain-http endpoint off loopback', async () => {
    const { store, server, reached, fakeFetch, resolver } = await publicServer(
      { registrationEndpoint: 'http://auth.example.org/register' },
      { [PUBLIC]: '93.184.216.34', 'auth.example.org': '93.184.216.35' },
    );
    const error = await signIn(server, { store, fetch: fakeFetch, resolver, present: async () => {} }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: ErrorCode.SsrfBlocked, message: expect.stringContaining('https') });
    expect(reached.some((u) => u.includes('auth.example.org'))).toBe(false);
  });

  it('lets a host through when the config allows it (allowed_hosts)', async () => {
    const { as, store, server, fakeFetch, resolver } = await publicServer(
      { registrationEndpoint: 'https://register.internal.example/register' },
      { [PUBLIC]: '93.184.216.34', 'register.internal.example': '10.1.2.3' },
    );
    const allowed = { ...server, allowedHosts: ['register.internal.example'] };
    const stop = new Error('browser step reached');
    const error = await signIn(allowed, {
      store,
      fetch: fakeFetch,
      resolver,
      present: async () => {
        throw stop;
      },
    }).catch((e: unknown) => e);
    expect(as.requests.some((r) => r.path === '/register')).toBe(true);
    expect(formatErrorVerbose(error)).toContain('browser step reached');
  });
});
