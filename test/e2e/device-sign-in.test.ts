/**
 * Sign-in without a browser (RFC 8628, the device authorization grant) through the built CLI:
 * the code shown, a scripted "person" approves it at the test authorization server, and
 * `mcpx call` then works; chosen by itself on a machine with no display; every refusal says
 * what to do; and no device code or token the server issued reaches any output.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type OAuthTestServer,
  type OAuthTestServerOptions,
  startOAuthTestServer,
} from '../../src/testing/oauth-test-server.js';
import { type CliRun, runCli, tempDir } from '../helpers/cli.js';

/** A desktop's environment: a display, so only --device asks for the device grant. */
const DESKTOP = { DISPLAY: ':0' };

interface Setup {
  readonly as: OAuthTestServer;
  readonly home: string;
  mcpx(
    args: string[],
    options?: { env?: Record<string, string>; onStderr?: (stderr: string) => void },
  ): Promise<CliRun>;
  /** Every stdout and stderr so far. */
  readonly printed: string[];
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(options: OAuthTestServerOptions): Promise<Setup> {
  const dir = await tempDir('mcpx-device-');
  const as = await startOAuthTestServer(options);
  cleanups.push(async () => {
    await as.close();
    await dir.remove();
  });
  const config = join(dir.path, 'mcp.json');
  await writeFile(config, JSON.stringify({ mcpServers: { secure: { url: as.url } } }));
  const home = join(dir.path, 'home');
  const printed: string[] = [];
  return {
    as,
    home,
    printed,
    mcpx: async (args, { env = DESKTOP, onStderr } = {}) => {
      const run = await runCli(['--config', config, ...args], {
        cwd: dir.path,
        home,
        env,
        timeoutMs: 60_000,
        ...(onStderr ? { onOutput: ({ stderr }) => onStderr(stderr) } : {}),
      });
      printed.push(run.stdout, run.stderr);
      return run;
    },
  };
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The person: once the code is on the screen, approve (or deny) it at the verification page. */
function person(as: OAuthTestServer, action: 'approve' | 'deny'): (stderr: string) => void {
  let done = false;
  return (stderr) => {
    const code = /enter the code:\s+(\S+)/.exec(stderr)?.[1];
    if (done || !code) return;
    done = true;
    void (action === 'approve' ? as.approveDevice(code) : as.denyDevice(code));
  };
}

describe('mcpx auth --device', () => {
  it('shows the code and the verification URL, waits for the person, and signs in; a call then works', {
    timeout: 60_000,
  }, async () => {
    const { as, mcpx } = await setup({ device: {} });
    expect((await mcpx(['call', 'secure.echo', 'message=before'])).code).toBe(3);
    const auth = await mcpx(['auth', 'secure', '--device'], { onStderr: person(as, 'approve') });
    expect(auth.code, auth.stderr).toBe(0);
    expect(auth.stdout).toBe("Signed in to 'secure'.\n");
    const code = /enter the code:\s+([A-Z]{4}-[A-Z]{4})/.exec(auth.stderr)?.[1];
    expect(code).toBeDefined();
    const page = `${new URL(as.url).origin}/device`;
    expect(auth.stderr).toContain(`\n  ${page}\n`);
    expect(auth.stderr).toContain(`(or open ${page}?user_code=${code}, which fills the code in)`);
    expect(as.requests.some((r) => r.path === '/authorize')).toBe(false);
    expect(await mcpx(['call', 'secure.echo', 'message=after'])).toMatchObject({
      code: 0,
      stdout: 'after\n',
    });
  });

  it('is chosen by itself with no DISPLAY and no WAYLAND_DISPLAY', { timeout: 60_000 }, async () => {
    const { as, mcpx } = await setup({ device: { noCompleteUri: true } });
    const auth = await mcpx(['auth', 'secure'], { env: {}, onStderr: person(as, 'approve') });
    expect(auth.code, auth.stderr).toBe(0);
    expect(auth.stderr).toMatch(/enter the code:\s+[A-Z]{4}-[A-Z]{4}/);
    expect(auth.stderr).not.toContain('which fills the code in');
    expect(as.requests.some((r) => r.path === '/authorize')).toBe(false);
    expect(await mcpx(['call', 'secure.echo', 'message=hi'], { env: {} })).toMatchObject({
      code: 0,
      stdout: 'hi\n',
    });
  });

  it('without a display, an authorization server with no device endpoint gets the URL to open anywhere', {
    timeout: 60_000,
  }, async () => {
    const { as, mcpx } = await setup({});
    let followed = false;
    const auth = await mcpx(['auth', 'secure'], {
      env: {},
      onStderr: (stderr) => {
        const url = /\n {2}(http\S+authorize\S+)\n/.exec(stderr)?.[1];
        if (followed || !url) return;
        followed = true;
        // The person's browser elsewhere: the authorization server redirects to mcpx's listener.
        void fetch(url, { redirect: 'manual' }).then((r) => fetch(r.headers.get('location') ?? ''));
      },
    });
    expect(auth.code, auth.stderr).toBe(0);
    expect(auth.stderr).toContain("'secure' offers no sign-in with a device code");
    expect(as.requests.some((r) => r.path === '/authorize')).toBe(true);
  });

  it('--device at an authorization server without the grant says so and how to sign in instead', async () => {
    const { mcpx } = await setup({});
    const auth = await mcpx(['auth', 'secure', '--device']);
    expect(auth.code).toBe(3);
    expect(auth.stderr).toContain(
      "the authorization server of 'secure' does not offer sign-in with a device code",
    );
    expect(auth.stderr).toContain('mcpx auth secure --no-browser');
  });

  it('a refusal on the verification page is an error saying to try again', { timeout: 60_000 }, async () => {
    const { as, mcpx } = await setup({ device: {} });
    const auth = await mcpx(['auth', 'secure', '--device'], { onStderr: person(as, 'deny') });
    expect(auth.code).toBe(3);
    expect(auth.stderr).toContain("the device sign-in to 'secure' was refused");
    expect(auth.stderr).toContain('mcpx auth secure --device');
    expect((await mcpx(['call', 'secure.echo', 'message=x'])).code).toBe(3);
  });

  it('a code nobody approves in time expires with an error saying to start again', {
    timeout: 60_000,
  }, async () => {
    const { mcpx } = await setup({ device: { expiresIn: 2 } });
    const auth = await mcpx(['auth', 'secure', '--device']);
    expect(auth.code).toBe(3);
    expect(auth.stderr).toContain("the device sign-in to 'secure' expired before it was approved");
    expect(auth.stderr).toContain('mcpx auth secure --device');
  });

  it('polls no faster than the interval, and five seconds slower after slow_down', {
    timeout: 60_000,
  }, async () => {
    const { as, mcpx } = await setup({ device: { interval: 1, slowDownOnce: true } });
    const running = mcpx(['auth', 'secure', '--device']);
    // The person approves once the first poll has been answered slow_down.
    await until(() => as.devicePolls().length >= 1, 30_000);
    await as.approveDevice();
    const auth = await running;
    expect(auth.code, auth.stderr).toBe(0);
    const polls = as.devicePolls();
    expect(polls.length).toBe(2);
    const gaps = polls.slice(1).map((at, i) => at - (polls[i] as number));
    // The first poll was answered slow_down: every later one waits the interval plus five seconds.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(5_900);
  });

  it('keeps polling through a network that drops out, waiting longer after each failure', {
    timeout: 60_000,
  }, async () => {
    const { as, mcpx } = await setup({ device: { interval: 1, dropPolls: 3 } });
    const running = mcpx(['auth', 'secure', '--device'], { onStderr: person(as, 'approve') });
    const auth = await running;
    expect(auth.code, auth.stderr).toBe(0);
    const polls = as.devicePolls();
    // Three polls cut, then one answered with the tokens (approved while the network was out).
    expect(polls.length).toBe(4);
    const gaps = polls.slice(1).map((at, i) => at - (polls[i] as number));
    // RFC 8628 §3.5: each failed poll doubles the wait for the next (2, 4, 8 s at an interval of 1 s).
    expect(gaps).toHaveLength(3);
    for (const [i, least] of [1_950, 3_950, 7_950].entries()) expect(gaps[i]).toBeGreaterThanOrEqual(least);
  });

  it("shows a hostile user code without the server's terminal controls", { timeout: 60_000 }, async () => {
    const hostile = 'AB\u001b[2J\u001b]0;pwned\u0007CD\u202eEF';
    const { as, mcpx } = await setup({ device: { userCode: hostile } });
    let approved = false;
    const auth = await mcpx(['auth', 'secure', '--device'], {
      onStderr: (stderr) => {
        if (approved || !stderr.includes('enter the code:')) return;
        approved = true;
        void as.approveDevice(hostile);
      },
    });
    expect(auth.code, auth.stderr).toBe(0);
    expect(auth.stderr).not.toContain('\u001b');
    expect(auth.stderr).not.toContain('\u0007');
    expect(auth.stderr).not.toContain('\u202e');
    expect(auth.stderr).toContain('<U+202E>');
  });

  it('leaves no device code or token in any output, or any file of the home but the token file', {
    timeout: 60_000,
  }, async () => {
    const { as, mcpx, home, printed } = await setup({ device: {} });
    const auth = await mcpx(['--verbose', 'auth', 'secure', '--device'], { onStderr: person(as, 'approve') });
    expect(auth.code, auth.stderr).toBe(0);
    expect((await mcpx(['--verbose', 'call', 'secure.echo', 'message=x'])).code).toBe(0);
    const status = await mcpx(['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject([{ server: 'secure', state: 'signed-in' }]);
    const files: string[] = [];
    for (const entry of await readdir(join(home, '.mcpx'), { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isFile() && !path.includes(`${join('.mcpx', 'oauth')}/secure-`))
        files.push(await readFile(path, 'utf8').catch(() => ''));
    }
    const secrets = as.issuedSecrets();
    // A device code, an access token and a refresh token at least.
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    for (const secret of secrets)
      for (const text of [...printed, ...files]) expect(text).not.toContain(secret);
  });
});
