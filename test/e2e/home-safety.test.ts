import { lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestServer } from '../../src/testing/http-test-server.js';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';

// Links are what a cloned repository's script plants; Windows needs privileges to make them.
const posix = process.platform !== 'win32';

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('mcpx-home-e2e-');
});
afterAll(() => dir.remove());

/** A fresh user: a home with `.mcpx`, a project whose `.mcp.json` is not trusted, and a victim file. */
async function user(name: string) {
  const home = join(dir.path, name, 'home');
  const mcpxHome = join(home, '.mcpx');
  const project = join(dir.path, name, 'project');
  await mkdir(mcpxHome, { recursive: true, mode: 0o700 });
  await mkdir(project, { recursive: true });
  await writeFile(
    join(project, '.mcp.json'),
    JSON.stringify({ mcpServers: { local: { command: process.execPath, args: [testServerPath] } } }),
  );
  const victim = join(dir.path, name, 'victim.json');
  return { home, mcpxHome, project, victim };
}

describe.runIf(posix)('the mcpx home through the built CLI', () => {
  it('refuses a planted ~/.mcpx/trust.json link: no server starts and the target is untouched', async () => {
    const { home, mcpxHome, project, victim } = await user('trust-link');
    // What an attacker would point at: a file approving the repository's server.
    const planted = JSON.stringify({ version: 1, entries: { [join(project, '.mcp.json')]: { local: 'x' } } });
    await writeFile(victim, planted);
    const trustFile = join(mcpxHome, 'trust.json');
    await symlink(victim, trustFile);

    // Named as a person reads it (~/ for the home); the fix's quoted path stays whole for the shell.
    const message = '~/.mcpx/trust.json is a symbolic link; mcpx does not follow links in its home';
    const call = await runCli(['call', 'local.echo', 'message=x'], { cwd: project, home });
    expect(call.code).toBe(2);
    expect(call.stderr).toContain(message);
    expect(call.stderr).toContain(`rm '${trustFile}'`);
    expect(call.stdout).toBe('');
    expect(call.stderr).not.toMatch(/\n\s+at /); // no stack trace

    const trust = await runCli(['config', 'trust', '--yes'], { cwd: project, home });
    expect(trust.code).toBe(2);
    expect(trust.stderr).toContain(message);

    expect(await readFile(victim, 'utf8')).toBe(planted);
    expect((await lstat(trustFile)).isSymbolicLink()).toBe(true);
  });

  it('trusts after the link is gone, writing trust.json 0600 in a 0700 home', async () => {
    const { home, mcpxHome, project } = await user('trust-ok');
    const trust = await runCli(['config', 'trust', '--yes'], { cwd: project, home });
    expect(trust.code).toBe(0);
    expect((await stat(mcpxHome)).mode & 0o777).toBe(0o700);
    expect((await stat(join(mcpxHome, 'trust.json'))).mode & 0o777).toBe(0o600);
    const call = await runCli(['call', 'local.echo', 'message=trusted'], { cwd: project, home });
    expect(call).toMatchObject({ code: 0, stdout: 'trusted\n' });
  });

  it('refuses a planted ~/.mcpx/era-cache.json link and leaves the target alone', async () => {
    const { home, mcpxHome, project, victim } = await user('era-link');
    await writeFile(victim, 'precious\n');
    const eraFile = join(mcpxHome, 'era-cache.json');
    await symlink(victim, eraFile);
    const run = await runCli(['call', 'demo.echo', 'message=x'], { cwd: project, home });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '~/.mcpx/era-cache.json is a symbolic link; mcpx does not follow links in its home',
    );
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
  });

  it('refuses a planted ~/.mcpx/oauth folder link before any request to a remote server', async () => {
    const { home, mcpxHome, project } = await user('oauth-link');
    const stolen = join(dir.path, 'oauth-link', 'stolen');
    await mkdir(stolen);
    const oauth = join(mcpxHome, 'oauth');
    await symlink(stolen, oauth);
    const server = await startHttpTestServer();
    try {
      const config = join(project, 'remote.json');
      await writeFile(config, JSON.stringify({ mcpServers: { remote: { url: server.url } } }));
      const run = await runCli(['--config', config, 'call', 'remote.echo', 'message=x'], {
        cwd: project,
        home,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        '~/.mcpx/oauth is a symbolic link; mcpx does not follow links in its home',
      );
      expect(await readdir(stolen)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
