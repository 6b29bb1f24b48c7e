/** `mcpx auth --no-browser` with the redirected URL pasted back, then a call, then `mcpx logout`. */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenStore } from '../../src/auth/token-store.js';
import { type OAuthTestServer, startOAuthTestServer } from '../../src/testing/oauth-test-server.js';
import { cliPath, runCli, tempDir } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let as: OAuthTestServer;
let config: string;
const home = () => join(dir.path, 'home');

beforeAll(async () => {
  dir = await tempDir('mcpx-auth-e2e-');
  as = await startOAuthTestServer();
  config = join(dir.path, 'mcp.json');
  await writeFile(config, JSON.stringify({ mcpServers: { secure: { url: as.url } } }));
});
afterAll(async () => {
  await as.close();
  await dir.remove();
});

const mcpx = (args: string[]) => runCli(['--config', config, ...args], { cwd: dir.path, home: home() });

describe('mcpx auth / logout', () => {
  it('signs in on a headless machine by pasting the redirected URL, then calls and logs out', async () => {
    expect((await mcpx(['call', 'secure.echo', 'message=x'])).code).toBe(3);

    const child = spawn(process.execPath, [cliPath, '--config', config, 'auth', 'secure', '--no-browser'], {
      cwd: dir.path,
      env: { PATH: process.env.PATH ?? '', HOME: home(), MCPX_HOME: join(home(), '.mcpx') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let answered = false;
    child.stdout.on('data', (d) => (stdout += d));
    const pasted = new Promise<void>((resolve) => {
      child.stderr.on('data', async (d) => {
        stderr += d;
        const url = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(stderr)?.[1];
        if (!url || answered) return;
        answered = true;
        // The person approves in a browser elsewhere and pastes where it ended up.
        const approved = await fetch(url, { redirect: 'manual' });
        child.stdin.end(`${approved.headers.get('location')}\n`);
        resolve();
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    await pasted;
    expect(code, stderr).toBe(0);
    expect(stdout).toBe("Signed in to 'secure'.\n");
    expect(stderr).toContain('paste the URL your browser ends on');

    const called = await mcpx(['--verbose', 'call', 'secure.echo', 'message=authorized']);
    expect(called).toMatchObject({ code: 0, stdout: 'authorized\n' });
    const doctor = await mcpx(['doctor']);
    expect(doctor.stdout).toMatch(/ok\s+secure\s+.*signed in/);
    const doctorJson = await mcpx(['--verbose', '--json', 'doctor']);
    // Tokens never reach the terminal, whatever the verbosity or format.
    const stored = await new TokenStore(join(home(), '.mcpx')).load('secure', as.url);
    const secrets = [stored?.tokens?.access_token, stored?.tokens?.refresh_token];
    const printed = [
      stdout,
      stderr,
      called.stdout,
      called.stderr,
      doctor.stdout,
      doctorJson.stdout,
      doctorJson.stderr,
    ];
    for (const secret of secrets) {
      expect(secret).toBeTruthy();
      for (const text of printed) expect(text).not.toContain(secret);
    }
    expect(await mcpx(['logout', 'secure'])).toMatchObject({ code: 0, stdout: "Signed out of 'secure'.\n" });
    const after = await mcpx(['call', 'secure.echo', 'message=x']);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('mcpx auth secure');
  });
});

describe('a machine with client credentials', () => {
  it('calls without signing in, shows as machine in doctor, and needs no mcpx auth', async () => {
    const robot = await startOAuthTestServer({ machineClient: { id: 'robot', secret: 'robot-secret' } });
    try {
      const file = join(dir.path, 'machine.json');
      await writeFile(
        file,
        JSON.stringify({
          mcpServers: {
            robot: {
              url: robot.url,
              oauth: {
                grant_type: 'client_credentials',
                client_id: 'robot',
                client_secret: `\${ROBOT_SECRET}`,
              },
            },
          },
        }),
      );
      const run = (args: string[]) =>
        runCli(['--config', file, ...args], {
          cwd: dir.path,
          home: join(dir.path, 'machine-home'),
          env: { ROBOT_SECRET: 'robot-secret' },
        });
      expect(await run(['call', 'robot.echo', 'message=beep'])).toMatchObject({ code: 0, stdout: 'beep\n' });
      const doctor = await run(['doctor']);
      expect(doctor.stdout).toMatch(/ok\s+robot\s+.*machine/);
      expect(doctor.stdout).not.toContain('robot-secret');
      const auth = await run(['auth', 'robot']);
      expect(auth.code).toBe(1);
      expect(auth.stderr).toContain('signs in by itself with its client credentials');
    } finally {
      await robot.close();
    }
  });
});
