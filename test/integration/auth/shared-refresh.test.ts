/**
 * One refresh for many connections at once (the e2e suite shows it across processes): each
 * connection has its own provider and reads the store for itself, as separate processes do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { signIn } from '../../../src/auth/sign-in.js';
import { TokenStore } from '../../../src/auth/token-store.js';
import { connectServer } from '../../../src/client/server-connection.js';
import { createServerTransport } from '../../../src/client/transport-factory.js';
import { adhocHttpServer } from '../../../src/config/index.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { startOAuthTestServer } from '../../../src/testing/oauth-test-server.js';
import { tempDir } from '../../helpers/cli.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c().catch(() => {})));
});

async function browser(url: URL): Promise<void> {
  const response = await fetch(url, { redirect: 'manual' });
  await fetch(new URL(response.headers.get('location') ?? '', url));
}

async function setup() {
  const as = await startOAuthTestServer();
  cleanups.push(() => as.close());
  const home = await tempDir('mcpx-shared-refresh-');
  cleanups.push(home.remove);
  const server = { ...adhocHttpServer(as.url), name: 'secure' } as ServerConfig & { url: string };
  const store = new TokenStore(home.path);
  await signIn(server, { store, present: browser });
  const connect = async () => {
    const connection = await connectServer(server, {
      createTransport: () => createServerTransport(server, { hostEnv: process.env, oauthHome: home.path }),
    });
    cleanups.push(() => connection.close());
    return connection;
  };
  return { as, server, store, connect };
}

describe('connections that hold one sign-in', () => {
  it('meeting an expired token together make one refresh, and all calls succeed', async () => {
    const { as, connect } = await setup();
    const connections = await Promise.all(Array.from({ length: 6 }, connect));
    as.expireAccessTokens();
    const results = await Promise.all(
      connections.map((c, i) => c.callTool('echo', { message: `m${i}` }).then((r) => r.content)),
    );
    expect(results).toEqual(connections.map((_, i) => [{ type: 'text', text: `m${i}` }]));
    expect(as.refreshes()).toMatchObject({ arrived: 1, granted: 1, reused: 0 });
  });

  it('a connection uses the token another one got: no second refresh, and the stored token stays', async () => {
    const { as, server, store, connect } = await setup();
    const [first, second] = await Promise.all([connect(), connect()]);
    if (!first || !second) throw new Error('not connected');
    as.expireAccessTokens();
    await first.callTool('echo', { message: 'renews' });
    expect(as.refreshes().granted).toBe(1);
    const stored = await store.load(server.name, server.url);
    const forwardedBefore = as.forwarded.length;
    expect((await second.callTool('echo', { message: 'adopts' })).content).toEqual([
      { type: 'text', text: 'adopts' },
    ]);
    // The stored token was used as it is: no second refresh (the old refresh token is spent).
    expect(as.refreshes()).toMatchObject({ arrived: 1, granted: 1 });
    expect(as.forwarded.slice(forwardedBefore)).toEqual(['tools/call']);
    expect((await store.load(server.name, server.url))?.tokens?.access_token).toBe(
      stored?.tokens?.access_token,
    );
  });
});
