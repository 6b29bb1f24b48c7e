/** `mcpx auth` where there is nothing to sign in to, and where registration answers an error page. */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpTestServer, startHttpTestServer } from '../../src/testing/http-test-server.js';
import { type OAuthTestServer, startOAuthTestServer } from '../../src/testing/oauth-test-server.js';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
const servers: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  dir = await tempDir('mcpx-auth-none-');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await dir.remove();
});

async function configFor(name: string, url: string): Promise<string> {
  const file = join(dir.path, `${name}.json`);
  await writeFile(file, JSON.stringify({ mcpServers: { [name]: { url } } }));
  return file;
}

const home = () => join(dir.path, 'home');
const mcpx = (config: string, args: string[]) =>
  runCli(['--config', config, ...args], { cwd: dir.path, home: home(), timeoutMs: 30_000 });

describe('mcpx auth on a server that needs no sign-in', () => {
  for (const era of ['legacy', 'modern', 'both'] as const) {
    it(`says there is nothing to do (${era} era), registers nothing and stores nothing`, async () => {
      const server: HttpTestServer = await startHttpTestServer({ era });
      servers.push(server);
      const config = await configFor(`open-${era}`, server.url);
      const run = await mcpx(config, ['auth', `open-${era}`, '--no-browser']);
      expect(run.stderr).toBe('');
      expect(run).toMatchObject({
        code: 0,
        stdout: `'open-${era}' accepted a request without sign-in: nothing to do.\n`,
      });
      const json = await mcpx(config, ['--json', 'auth', `open-${era}`, '--no-browser']);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({ server: `open-${era}`, signedIn: false, needed: false });
      // No registration or discovery was attempted: the only requests were the probes.
      expect(server.requests.every((r) => r.startsWith('POST'))).toBe(true);
      expect(await readdir(join(home(), '.mcpx', 'oauth')).catch(() => [])).toEqual([]);
    });
  }
});

describe('mcpx auth when registration answers an HTML error page', () => {
  let as: OAuthTestServer;
  beforeAll(async () => {
    as = await startOAuthTestServer({ registrationErrorPage: 404 });
    servers.push(as);
  });

  it('fails in one line naming the status, with no HTML and no control characters', async () => {
    const config = await configFor('broken', as.url);
    const run = await mcpx(config, ['auth', 'broken', '--no-browser']);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(
      "sign-in to 'broken' failed: the authorization server refused to register mcpx as a client (HTTP 404)",
    );
    expect(run.stderr).not.toMatch(/<|html|DOCTYPE|Cannot POST/i);
    expect(run.stderr).not.toContain('\u001b');
    expect(as.requests.map((r) => r.path)).toContain('/register');
  });
});
