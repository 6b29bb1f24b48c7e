/**
 * Files a cloned repository (or a hostile host-file location) can plant: a config that is a link
 * to a secret, a `.mcpx` folder that is a link to the user's own, a device and a FIFO where a host
 * keeps its file. None may print a secret, redirect a write, or hang mcpx.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let repo: string;
const cli = (args: string[]) => runCli(args, { cwd: repo, home, timeoutMs: 15_000 });

beforeEach(async () => {
  dir = await tempDir('mcpx-hostile-files-');
  home = join(dir.path, 'home');
  repo = join(dir.path, 'repo');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await mkdir(repo);
});
afterEach(() => dir.remove());

describe('a repository config that is a link to a secret', () => {
  const secret = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY';

  beforeEach(async () => {
    const credentials = join(home, 'credentials');
    await writeFile(
      credentials,
      `[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = ${secret}\n`,
    );
    await symlink(credentials, join(repo, '.mcp.json'));
  });

  it.each([
    ['-v', 'list'],
    ['--json', 'list'],
    ['config', 'validate'],
    ['--json', 'config', 'validate'],
  ])('mcpx %s %s names the link and its target and prints nothing of the content', async (...args) => {
    const run = await cli(args);
    const output = run.stdout + run.stderr;
    expect(run.code).toBe(2);
    // The link's target is under the home, so a person reads ~/; --json keeps the real path.
    const target = args.includes('--json') ? join(home, 'credentials') : '~/credentials';
    expect(output).toContain(`${join(repo, '.mcp.json')}:1:2 is not valid JSON; it is a link to ${target}`);
    for (const content of [secret, 'AKIAIOSFODNN7EXAMPLE', 'aws_', 'default'])
      expect(output).not.toContain(content);
  });
});

describe('project-scope writes through a planted .mcpx link', () => {
  beforeEach(async () => {
    await writeFile(join(home, '.mcpx', 'mcp.json'), '{ "mcpServers": {} }\n');
    await symlink(join(home, '.mcpx'), join(repo, '.mcpx'));
  });

  async function expectRefused(args: string[]) {
    const run = await cli(args);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`${join(repo, '.mcpx')} is a symbolic link (to ~/.mcpx)`);
    expect(run.stderr).toContain(`rm ${join(repo, '.mcpx')}`);
    expect(await readFile(join(home, '.mcpx', 'mcp.json'), 'utf8')).toBe('{ "mcpServers": {} }\n');
  }

  it('config add --scope project is refused, and the global file is untouched', async () => {
    await expectRefused(['config', 'add', 'planted', '--scope', 'project', '--', 'node', 'server.js']);
  });

  it('config import --scope project is refused, and the global file is untouched', async () => {
    await mkdir(join(repo, '.vscode'));
    await writeFile(
      join(repo, '.vscode', 'mcp.json'),
      JSON.stringify({ servers: { planted: { command: 'node', args: ['server.js'] } } }),
    );
    await expectRefused(['config', 'import', 'vscode', '--scope', 'project', '--yes']);
  });
});

describe('host files that are not files', () => {
  it('a device and a FIFO where hosts keep their files are refused at once, by name', async () => {
    await mkdir(join(home, '.config', 'Claude'), { recursive: true });
    await symlink('/dev/zero', join(home, '.config', 'Claude', 'claude_desktop_config.json'));
    await mkdir(join(home, '.cursor'));
    execFileSync('mkfifo', [join(home, '.cursor', 'mcp.json')]);
    const run = await cli(['config', 'import', '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      '~/.config/Claude/claude_desktop_config.json: it is a device or socket, not a file',
    );
    expect(run.stderr).toContain('~/.cursor/mcp.json: it is a named pipe (FIFO), not a file');
  });
});
