/** A keep-alive server that needs an OAuth sign-in, called through the daemon with no terminal. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthTestServer, startOAuthTestServer } from '../../src/testing/oauth-test-server.js';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let as: OAuthTestServer;
let config: string;
const home = () => join(dir.path, 'home');

beforeAll(async () => {
  dir = await tempDir('mcpx-daemon-oauth-');
  as = await startOAuthTestServer();
  config = join(dir.path, 'mcp.json');
  await writeFile(config, JSON.stringify({ mcpServers: { secure: { url: as.url, keep_alive: true } } }));
});
afterAll(async () => {
  await as.close();
  await dir.remove();
});

const mcpx = (args: string[], env: Record<string, string> = {}) =>
  runCli(['--config', config, ...args], { cwd: dir.path, home: home(), env, timeoutMs: 60_000 });

describe('a keep-alive server that needs a sign-in, without a terminal', () => {
  it('is denied with the same error and exit code as the direct path', {
    timeout: 90_000,
  }, async () => {
    expect((await mcpx(['daemon', 'start'])).code).toBe(0);
    try {
      await deniedAlike();
    } finally {
      await mcpx(['daemon', 'stop']);
    }
  });
});

async function deniedAlike(): Promise<void> {
  const viaDaemon = await mcpx(['call', 'secure.echo', 'message=x']);
  const direct = await mcpx(['call', 'secure.echo', 'message=x'], { MCPX_DAEMON: 'off' });
  expect(direct.code).toBe(3);
  expect({ code: viaDaemon.code, stdout: viaDaemon.stdout, stderr: viaDaemon.stderr }).toEqual({
    code: direct.code,
    stdout: direct.stdout,
    stderr: direct.stderr,
  });
  expect(viaDaemon.stderr).toContain('mcpx auth secure');
  // The daemon was asked (it holds the entry) and is still running: a failed sign-in is the call's, not its.
  const status = JSON.parse((await mcpx(['daemon', 'status', '--json'])).stdout) as {
    running: boolean;
    servers: { name: string }[];
  };
  expect(status.running).toBe(true);
  expect(status.servers.map((s) => s.name)).toContain('secure');
}
