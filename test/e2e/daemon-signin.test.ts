/**
 * A keep-alive server that needs a new sign-in midway (a step-up to a wider
 * scope, or a revoked grant): through the daemon the sign-in happens at the
 * calling terminal, the browser opened by the caller (the person's desktop),
 * and the token it stores serves the next direct command too. Without a
 * terminal it is refused exactly as on the direct path.
 */
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../../src/auth/sign-in.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { adhocHttpServer } from '../../src/config/index.js';
import type { ServerConfig } from '../../src/config/types.js';
import { type OAuthTestServer, startOAuthTestServer } from '../../src/testing/oauth-test-server.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';

let dir: { path: string; remove: () => Promise<void> };
let as: OAuthTestServer;
let config: string;
const home = () => join(dir.path, 'home');
const bin = () => join(dir.path, 'bin');
const openedLog = () => join(dir.path, 'opened.log');
const stayPut = () => join(dir.path, 'browser-stays-put');

/** The browser, headless: follow the authorization URL to its redirect and deliver it. */
async function browser(url: URL): Promise<void> {
  const response = await fetch(url, { redirect: 'manual' });
  await fetch(new URL(response.headers.get('location') ?? '', url));
}

beforeAll(async () => {
  dir = await tempDir('mcpx-daemon-signin-');
  as = await startOAuthTestServer({ toolCallScope: 'tools:write' });
  config = join(dir.path, 'mcp.json');
  await writeFile(config, JSON.stringify({ mcpServers: { secure: { url: as.url, keep_alive: true } } }));
  // The desktop's URL opener as `openBrowser` finds it on the caller's PATH (the daemon's PATH
  // lacks it): records who opened which URL, then approves the sign-in as a person would.
  await mkdir(bin(), { recursive: true });
  const opener = join(bin(), 'xdg-open');
  await writeFile(
    opener,
    `#!${process.execPath}
const { appendFileSync, existsSync } = require('node:fs');
const url = new URL(process.argv[2]);
appendFileSync(${JSON.stringify(openedLog())}, JSON.stringify({ ppid: process.ppid, url: url.href }) + '\\n');
if (!existsSync(${JSON.stringify(stayPut())}))
  fetch(url, { redirect: 'manual' }).then((r) => fetch(new URL(r.headers.get('location'), url)));
`,
  );
  await chmod(opener, 0o755);
});
afterAll(async () => {
  await as.close();
  await dir.remove();
});
afterEach(async () => {
  await mcpx(['daemon', 'stop']);
  await rm(openedLog(), { force: true });
  await rm(stayPut(), { force: true });
});

const mcpx = (args: string[], env: Record<string, string> = {}) =>
  runCli(['--config', config, ...args], { cwd: dir.path, home: home(), env, timeoutMs: 60_000 });

/** A person at a terminal whose desktop opens URLs with the opener above. */
const atTerminal = (args: string[]) =>
  runInPty(['--config', config, ...args], {
    cwd: dir.path,
    home: home(),
    env: { PATH: `${bin()}:${process.env.PATH ?? '/usr/bin:/bin'}` },
  });

/** Signed in with the basic scope only: a tool call then asks for more. */
async function signedInBasic(): Promise<void> {
  const server = { ...adhocHttpServer(as.url), name: 'secure' } as ServerConfig & { url: string };
  await signIn(server, { store: new TokenStore(join(home(), '.mcpx')), present: browser, scope: 'basic' });
}

async function opened(): Promise<{ ppid: number; url: string }[]> {
  const text = await readFile(openedLog(), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { ppid: number; url: string });
}

const authorizeCount = () => as.requests.filter((r) => r.path === '/authorize').length;

describe('a sign-in a keep-alive server needs midway, at the calling terminal', () => {
  it('light caller (`call`): a step-up is shown at the caller, its browser opens, the call succeeds', {
    timeout: 90_000,
  }, async () => {
    await signedInBasic();
    expect((await mcpx(['daemon', 'start'])).code).toBe(0);
    const before = authorizeCount();
    const term = atTerminal(['call', 'secure.echo', 'message=stepped up']);
    await term.waitFor("'secure' asks you to sign in again");
    await term.waitFor("Opening your browser to sign in to 'secure'");
    expect(await term.exited).toBe(0);
    expect(term.text()).toContain('stepped up');
    // The caller opened it (not the daemon, whose PATH has no opener), for the wider scope.
    await firstOpened();
    const urls = await opened();
    expect(urls).toHaveLength(1);
    expect(urls[0]?.ppid).toBe(term.pid);
    expect(new URL(urls[0]?.url ?? '').searchParams.get('scope')).toBe('basic tools:write');
    expect(authorizeCount()).toBe(before + 1);
    // The call ran in the daemon's warm server.
    const status = JSON.parse((await mcpx(['daemon', 'status', '--json'])).stdout) as {
      servers: { name: string; calls: number }[];
    };
    expect(status.servers.find((s) => s.name === 'secure')?.calls).toBeGreaterThan(0);
    // The token landed where the direct path reads it: no sign-in there.
    const direct = await mcpx(['call', 'secure.echo', 'message=direct'], { MCPX_DAEMON: 'off' });
    expect(direct).toMatchObject({ code: 0, stdout: 'direct\n' });
    expect(authorizeCount()).toBe(before + 1);
  });

  it('MCP route (`list`): a revoked grant is signed in again at the caller, then the server is listed', {
    timeout: 90_000,
  }, async () => {
    await signedInBasic();
    expect((await mcpx(['daemon', 'start'])).code).toBe(0);
    as.revokeAll();
    const before = authorizeCount();
    const term = atTerminal(['list']);
    await term.waitFor("Opening your browser to sign in to 'secure'");
    expect(await term.exited).toBe(0);
    expect(term.text()).toMatch(/secure\s+ready/);
    await firstOpened();
    const urls = await opened();
    expect(urls).toHaveLength(1);
    expect(urls[0]?.ppid).toBe(term.pid);
    expect(authorizeCount()).toBe(before + 1);
    const direct = await mcpx(['tools', 'secure'], { MCPX_DAEMON: 'off' });
    expect(direct.code, direct.stderr).toBe(0);
    expect(direct.stdout).toContain('echo');
    expect(authorizeCount()).toBe(before + 1);
  });

  it('Ctrl-C while the sign-in waits abandons it: exit 130 and the redirect listener closed', {
    timeout: 90_000,
  }, async () => {
    await signedInBasic();
    expect((await mcpx(['daemon', 'start'])).code).toBe(0);
    await writeFile(stayPut(), '');
    const calls = () => as.forwarded.filter((method) => method === 'tools/call').length;
    const callsBefore = calls();
    const term = atTerminal(['call', 'secure.echo', 'message=never']);
    await term.waitFor("Opening your browser to sign in to 'secure'");
    const open = await firstOpened();
    const redirect = new URL(new URL(open?.url ?? '').searchParams.get('redirect_uri') ?? '');
    // Listening while the person signs in (it is the daemon's, for a light caller).
    expect((await fetch(new URL('/other', redirect))).status).toBe(404);
    term.kill('SIGINT');
    expect(await term.exited).toBe(130);
    await expect(waitUntilRefused(redirect)).resolves.toBe(true);
    // The refused call was not sent again.
    expect(calls()).toBe(callsBefore);
    // The daemon lives on, and a following call signs in as before.
    await rm(stayPut());
    const again = atTerminal(['call', 'secure.echo', 'message=after']);
    expect(await again.exited).toBe(0);
    expect(again.text()).toContain('after');
  });

  it('without a terminal the step-up is refused exactly as on the direct path', {
    timeout: 90_000,
  }, async () => {
    await signedInBasic();
    expect((await mcpx(['daemon', 'start'])).code).toBe(0);
    const before = authorizeCount();
    for (const flags of [[], ['--json'], ['--verbose']]) {
      const viaDaemon = await mcpx([...flags, 'call', 'secure.echo', 'message=x']);
      const direct = await mcpx([...flags, 'call', 'secure.echo', 'message=x'], { MCPX_DAEMON: 'off' });
      expect(direct.code).toBe(3);
      expect(viaDaemon).toEqual(direct);
      expect(viaDaemon.stderr).toContain('mcpx auth secure');
    }
    expect(authorizeCount()).toBe(before);
    expect(await opened()).toEqual([]);
  });
});

async function firstOpened(): Promise<{ ppid: number; url: string }> {
  for (let i = 0; i < 200; i++) {
    const [first] = await opened();
    if (first) return first;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no browser was opened');
}

async function waitUntilRefused(url: URL): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(new URL('/other', url));
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
