/** OAuth for machines: the client_credentials grant, with the credentials bound to one authorization server. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenStore } from '../../../src/auth/token-store.js';
import { connectServer } from '../../../src/client/server-connection.js';
import { createServerTransport } from '../../../src/client/transport-factory.js';
import { adhocHttpServer } from '../../../src/config/index.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { ErrorCode, formatErrorVerbose } from '../../../src/errors/index.js';
import { startOAuthTestServer } from '../../../src/testing/oauth-test-server.js';
import { tempDir } from '../../helpers/cli.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c().catch(() => {})));
});

const machineClient = { id: 'robot', secret: 's3cret' };

async function setup(
  oauth: Record<string, unknown>,
  machine: { id: string; secret?: string; publicKey?: string } = machineClient,
) {
  const as = await startOAuthTestServer({ machineClient: machine });
  cleanups.push(() => as.close());
  const home = await tempDir('mcpx-machine-');
  cleanups.push(home.remove);
  const server = { ...adhocHttpServer(as.url), name: 'robot-api', oauth } as ServerConfig & { url: string };
  const connect = () =>
    connectServer(server, {
      createTransport: () => createServerTransport(server, { hostEnv: process.env, oauthHome: home.path }),
    });
  return { as, server, connect, store: new TokenStore(home.path) };
}

const credentials = { grant_type: 'client_credentials', client_id: 'robot', client_secret: 's3cret' };

describe('client credentials', () => {
  it('gets a token by itself and calls the server, with no sign-in and no browser', async () => {
    const { as, server, connect, store } = await setup(credentials);
    const connection = await connect();
    cleanups.push(() => connection.close());
    expect((await connection.callTool('echo', { message: 'machine' })).content).toEqual([
      { type: 'text', text: 'machine' },
    ]);
    expect(as.requests.filter((r) => r.path === '/token').map((r) => r.params.grant_type)).toEqual([
      'client_credentials',
    ]);
    expect(as.requests.some((r) => r.path === '/authorize' || r.path === '/register')).toBe(false);
    // The credentials are now bound to this authorization server.
    expect((await store.load(server.name, server.url))?.issuer).toBe(new URL(as.url).origin);
  });

  it('refuses to send the credentials to an authorization server other than the pinned one', async () => {
    const { as, server, connect, store } = await setup(credentials);
    await store.save(server.name, { serverUrl: server.url, issuer: 'https://auth.example.com' });
    const error = await connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired });
    const text = formatErrorVerbose(error);
    expect(text).toContain('they belong to https://auth.example.com');
    expect(text).toContain('mcpx logout robot-api');
    expect(as.requests.some((r) => r.path === '/token')).toBe(false);
  });

  it('says so when the secret is wrong, without printing it', async () => {
    const { connect } = await setup({ ...credentials, client_secret: 'wrong-secret' });
    const error = await connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired });
    const text = formatErrorVerbose(error);
    expect(text).toMatch(/invalid_client|wrong secret/);
    expect(text).not.toContain('wrong-secret');
  });

  it('gets a token with a signed assertion (private_key_jwt) instead of a secret', async () => {
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = (key: KeyObject, type: 'pkcs8' | 'spki') => key.export({ format: 'pem', type }).toString();
    const { as, connect } = await setup(
      { grant_type: 'client_credentials', client_id: 'robot', private_key: pem(keys.privateKey, 'pkcs8') },
      { id: 'robot', publicKey: pem(keys.publicKey, 'spki') },
    );
    const connection = await connect();
    cleanups.push(() => connection.close());
    expect((await connection.callTool('echo', { message: 'signed' })).content).toEqual([
      { type: 'text', text: 'signed' },
    ]);
    const [token] = as.requests.filter((r) => r.path === '/token');
    expect(token?.params).toMatchObject({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    });
  });

  it('refuses a private key the authorization server does not know', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const known = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { connect } = await setup(
      {
        grant_type: 'client_credentials',
        client_id: 'robot',
        private_key: other.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      },
      { id: 'robot', publicKey: known.publicKey.export({ format: 'pem', type: 'spki' }).toString() },
    );
    const error = await connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired });
    expect(formatErrorVerbose(error)).toMatch(/invalid_client/);
  });

  it('never reads or sends a workload assertion for an authorization server other than the pinned one', async () => {
    const { as, server, connect, store } = await setup({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      client_id: 'workload',
      assertion_env: 'MCPX_TEST_WORKLOAD_TOKEN',
    });
    await store.save(server.name, { serverUrl: server.url, issuer: 'https://auth.example.com' });
    const error = await connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.AuthRequired });
    expect(formatErrorVerbose(error)).toContain('they belong to https://auth.example.com');
    expect(as.requests.some((r) => r.path === '/token')).toBe(false);
  });

  it('explains an incomplete oauth block', async () => {
    const { connect } = await setup({ grant_type: 'client_credentials', client_id: 'robot' });
    const error = await connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.ConfigInvalid, context: { field: 'oauth' } });
    expect(formatErrorVerbose(error)).toContain('client_secret');
  });
});
