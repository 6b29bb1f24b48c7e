/** The oauth settings of the JWT-bearer grant (workload identity, enterprise-managed authorization) and DPoP: read, and refused with the fix. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertionGrant, JWT_BEARER_GRANT, presentAssertion } from '../../../src/auth/assertion-grant.js';
import { machineCredentials } from '../../../src/auth/client-credentials.js';
import { dpopWanted } from '../../../src/auth/dpop.js';
import { adhocHttpServer } from '../../../src/config/index.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { ErrorCode, formatErrorVerbose, McpxError } from '../../../src/errors/index.js';

const configFile = '/work/project/.mcp.json';
const server = (oauth: Record<string, unknown>): ServerConfig => ({
  ...adhocHttpServer('https://mcp.example.com/mcp'),
  name: 'api',
  origin: { layer: 'project', file: configFile, line: 3 },
  oauth,
});
const jwtBearer = { grant_type: JWT_BEARER_GRANT, client_id: 'workload' };
const enterprise = {
  ...jwtBearer,
  client_secret: 'secret',
  idp_token_endpoint: 'https://idp.example.com/token',
  idp_client_id: 'idp-client',
  id_token_env: 'SSO_ID_TOKEN',
};

function refusal(fn: () => unknown): McpxError {
  try {
    fn();
  } catch (error) {
    if (error instanceof McpxError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe('the JWT-bearer grant in an oauth block', () => {
  it('reads a workload assertion file, relative to the config file, as a machine sign-in', () => {
    const credentials = machineCredentials(server({ ...jwtBearer, assertion_file: 'tokens/mcp' }));
    expect(credentials).toMatchObject({
      clientId: 'workload',
      grant: { kind: 'workload', assertion: { file: '/work/project/tokens/mcp' } },
    });
    expect(credentials?.clientSecret).toBeUndefined();
    // The short spelling is the same grant.
    expect(
      machineCredentials(server({ ...jwtBearer, grant_type: 'jwt-bearer', assertion_env: 'TOKEN' })),
    ).toMatchObject({
      grant: { kind: 'workload', assertion: { env: 'TOKEN' } },
    });
  });

  it('reads enterprise-managed authorization: the IdP, its client, and where the ID token is', () => {
    expect(assertionGrant(server(enterprise))).toEqual({
      kind: 'enterprise',
      idToken: { env: 'SSO_ID_TOKEN' },
      idp: { tokenEndpoint: 'https://idp.example.com/token' },
      idpClientId: 'idp-client',
    });
    const { idp_token_endpoint: _, ...byIssuer } = enterprise;
    expect(assertionGrant(server({ ...byIssuer, idp_issuer: 'https://idp.example.com' }))).toMatchObject({
      idp: { issuer: 'https://idp.example.com' },
    });
  });

  it.each([
    ['no client_id', { grant_type: JWT_BEARER_GRANT, assertion_env: 'T' }, 'needs client_id'],
    ['no assertion at all', jwtBearer, 'no assertion to present'],
    [
      'a file and a variable',
      { ...jwtBearer, assertion_file: '/t', assertion_env: 'T' },
      'both assertion_file and assertion_env',
    ],
    [
      'a value where a name goes',
      { ...jwtBearer, assertion_env: `\${TOKEN}` },
      'assertion_env is not a variable name',
    ],
    ['workload and enterprise at once', { ...enterprise, assertion_file: '/t' }, 'both a workload assertion'],
    ['an IdP without its client', { ...enterprise, idp_client_id: '' }, 'without idp_client_id'],
    [
      'an ID token without an IdP',
      { ...enterprise, idp_token_endpoint: undefined },
      'without idp_token_endpoint or idp_issuer',
    ],
    [
      'enterprise without a client secret',
      { ...enterprise, client_secret: undefined },
      'without client_secret',
    ],
  ])('refuses %s with ConfigInvalid naming the file, the server, the field and a fix', (_, oauth, why) => {
    const error = refusal(() => machineCredentials(server(oauth as Record<string, unknown>)));
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toContain("server 'api'");
    expect(error.message).toContain(why);
    expect(error.context.field).toBe('oauth');
    expect(error.fixes.length).toBeGreaterThan(0);
    expect(formatErrorVerbose(error)).toContain(configFile);
  });

  it('refuses a relative assertion file for a server with no config file', () => {
    const adhoc = {
      ...adhocHttpServer('https://mcp.example.com/mcp'),
      oauth: { ...jwtBearer, assertion_file: 'token' },
    };
    expect(refusal(() => machineCredentials(adhoc)).message).toContain('relative path');
  });
});

describe('presenting the assertion', () => {
  it('reads the file at each request (a rotated token is the current one) and says which file is missing, never its content', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpx-assertion-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'token');
    const grant = assertionGrant(server({ ...jwtBearer, assertion_file: file }));
    await writeFile(file, 'first-token\n');
    expect(await presentAssertion(server({}), grant, { env: {} })).toBe('first-token');
    await writeFile(file, 'rotated-token');
    expect(await presentAssertion(server({}), grant, { env: {} })).toBe('rotated-token');
    await writeFile(file, '');
    const empty = await presentAssertion(server({}), grant, { env: {} }).catch((e: unknown) => e);
    expect(empty).toMatchObject({
      code: ErrorCode.AuthRequired,
      message: expect.stringContaining(`is empty: ${file}`),
    });
    await rm(file);
    const gone = await presentAssertion(server({}), grant, { env: {} }).catch((e: unknown) => e);
    expect(gone).toMatchObject({
      code: ErrorCode.AuthRequired,
      message: expect.stringContaining(`from ${file}`),
    });
  });

  it('names an unset variable and how to set it', async () => {
    const grant = assertionGrant(server({ ...jwtBearer, assertion_env: 'MCP_WORKLOAD_TOKEN' }));
    expect(await presentAssertion(server({}), grant, { env: { MCP_WORKLOAD_TOKEN: 'tok' } })).toBe('tok');
    const error = (await presentAssertion(server({}), grant, { env: {} }).catch(
      (e: unknown) => e,
    )) as McpxError;
    expect(error.code).toBe(ErrorCode.AuthRequired);
    expect(error.message).toContain('MCP_WORKLOAD_TOKEN is not set');
    expect(error.fixes.join(' ')).toContain('set MCP_WORKLOAD_TOKEN');
  });

  it('asks for resource metadata before trading an ID token, and sends the ID token nowhere without it', async () => {
    const grant = assertionGrant(server(enterprise));
    const error = await presentAssertion(server({}), grant, { env: { SSO_ID_TOKEN: 'id-token' } }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: ErrorCode.AuthRequired,
      message: expect.stringContaining('RFC 9728'),
    });
    expect(formatErrorVerbose(error)).not.toContain('id-token');
  });
});

describe('"dpop" in an oauth block', () => {
  it('is off unless true', () => {
    expect(dpopWanted(server({}))).toBe(false);
    expect(dpopWanted(server({ dpop: false }))).toBe(false);
    expect(dpopWanted(server({ dpop: true }))).toBe(true);
    expect(machineCredentials(server({ ...jwtBearer, assertion_env: 'T', dpop: true }))?.dpop).toBe(true);
  });

  it('refuses anything but a boolean, saying what to write', () => {
    const error = refusal(() => dpopWanted(server({ dpop: 'yes' })));
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toContain('"dpop" must be true or false');
    expect(error.context.field).toBe('oauth.dpop');
    expect(error.fixes.join(' ')).toContain('"dpop": true');
  });
});
