/**
 * Issue 25, item 2: `mcpx config export --to <host> --via-gateway` puts one
 * `mcpx serve` entry in the client app's file instead of a copy of every server,
 * and `--remove-copies` takes out the copies an earlier export wrote.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_APPS, type ClientAppContext, type ClientAppId } from '../../src/config/client-apps/index.js';
import { cliPath, runCli, tempDir, testServerPath } from '../helpers/cli.js';

const slow = { timeout: 120_000 };
let dir: { path: string; remove: () => Promise<void> };
let count = 0;
beforeAll(async () => {
  dir = await tempDir('mcpx-via-gateway-');
});
afterAll(() => dir.remove());

async function workspace() {
  count += 1;
  const root = join(dir.path, `w${count}`);
  const cwd = join(root, 'repo');
  const home = join(root, 'home');
  await mkdir(cwd, { recursive: true });
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await writeFile(
    join(home, '.mcpx', 'mcp.json'),
    JSON.stringify({ mcpServers: { tests: { command: process.execPath, args: [testServerPath] } } }),
  );
  const ctx: ClientAppContext = { homedir: home, platform: process.platform, env: {}, cwd };
  const cli = (args: string[]) => runCli(args, { cwd, home, timeoutMs: 30_000 });
  return { cwd, home, ctx, cli };
}

/** The servers in the client app's user file, read back as the client app's dialect reads them. */
async function appServers(app: ClientAppId, ctx: ClientAppContext) {
  const file = CLIENT_APPS[app].files(ctx).find((f) => f.scope === 'user');
  if (!file) throw new Error(`${app} has no user file`);
  const text = await readFile(file.path, 'utf8');
  return { path: file.path, text, servers: CLIENT_APPS[app].read(text, file, ctx).servers };
}

/** Start the entry exactly as written, as the client app would (in another folder, with the client app's env), and list its tools. */
async function toolsOf(entry: Record<string, unknown>, home: string, cwd: string): Promise<string[]> {
  const client = new Client({ name: 'client-app', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: entry.command as string,
    args: entry.args as string[],
    env: { PATH: '/usr/bin:/bin', HOME: home, ...(entry.env as Record<string, string> | undefined) },
    cwd,
    stderr: 'pipe',
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    return tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe('config export --via-gateway', () => {
  for (const app of ['claude-code', 'cursor', 'codex'] as const) {
    it(`${app}: one mcpx serve entry replaces the copies, and it serves mcpx's servers`, slow, async () => {
      const w = await workspace();
      expect((await w.cli(['config', 'export', '--to', app, '--write'])).code).toBe(0);
      expect((await appServers(app, w.ctx)).servers.map((s) => s.name)).toEqual(['tests']);

      // Without --write: shown, nothing changed.
      const before = (await appServers(app, w.ctx)).text;
      const dry = await w.cli(['config', 'export', '--to', app, '--via-gateway', '--remove-copies']);
      expect(dry.code).toBe(0);
      expect(dry.stderr).toContain('would remove 1 copy');
      expect(dry.stderr).toContain(': tests (add --write to do it)');
      expect((await appServers(app, w.ctx)).text).toBe(before);

      const run = await w.cli([
        'config',
        'export',
        '--to',
        app,
        '--via-gateway',
        '--remove-copies',
        '--write',
      ]);
      // Codex's TOML is written anew: the one notice export gives for it.
      expect(
        run.stderr.replace(/^note: .*config\.toml was rewritten; TOML comments in it are not kept\n/, ''),
      ).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("wrote the 'mcpx' entry (mcpx serve)");
      expect(run.stdout).toContain('removed 1 copy mcpx exported before: tests');
      const after = await appServers(app, w.ctx);
      expect(after.servers.map((s) => s.name)).toEqual(['mcpx']);
      const entry = after.servers[0]?.entry ?? {};
      expect(entry.command).toBe(process.execPath);
      expect(entry.args).toEqual([cliPath, 'serve']);

      const elsewhere = join(w.home, 'somewhere-else');
      await mkdir(elsewhere, { recursive: true });
      const tools = await toolsOf(entry, w.home, elsewhere);
      expect(tools).toContain('tests__echo');
    });
  }

  it(
    '--remove-copies leaves entries that are not copies (another command, or not an mcpx server)',
    slow,
    async () => {
      const w = await workspace();
      const file = CLIENT_APPS.cursor.files(w.ctx)[0]?.path ?? '';
      await mkdir(join(w.home, '.cursor'), { recursive: true });
      await writeFile(
        file,
        JSON.stringify({
          mcpServers: {
            tests: { command: 'node', args: ['other.js'] },
            mine: { command: process.execPath, args: [testServerPath] },
          },
        }),
      );
      const run = await w.cli([
        'config',
        'export',
        '--to',
        'cursor',
        '--via-gateway',
        '--remove-copies',
        '--write',
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain('removed');
      expect((await appServers('cursor', w.ctx)).servers.map((s) => s.name)).toEqual([
        'tests',
        'mine',
        'mcpx',
      ]);
    },
  );

  it("--remove-copies leaves Claude Code's per-project servers: export never wrote there", slow, async () => {
    const w = await workspace();
    const copy = { type: 'stdio', command: process.execPath, args: [testServerPath] };
    await writeFile(
      join(w.home, '.claude.json'),
      JSON.stringify({ projects: { [w.cwd]: { mcpServers: { tests: copy } } } }),
    );
    const run = await w.cli([
      'config',
      'export',
      '--to',
      'claude-code',
      '--via-gateway',
      '--remove-copies',
      '--write',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('removed');
    const value = JSON.parse(await readFile(join(w.home, '.claude.json'), 'utf8'));
    expect(value.projects[w.cwd].mcpServers.tests).toEqual(copy);
    expect(Object.keys(value.mcpServers)).toEqual(['mcpx']);
  });

  it('--name names the entry; --config is pinned as an absolute path', slow, async () => {
    const w = await workspace();
    await writeFile(join(w.cwd, 'other.json'), JSON.stringify({ mcpServers: {} }));
    const run = await w.cli([
      '--config',
      'other.json',
      'config',
      'export',
      '--to',
      'claude-code',
      '--via-gateway',
      '--name',
      'gw',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { servers: Record<string, { args: string[] }> };
    expect(Object.keys(out.servers)).toEqual(['gw']);
    expect(out.servers.gw?.args).toEqual([cliPath, 'serve', '--config', join(w.cwd, 'other.json')]);
  });

  it('a config with project files pins the folder as cwd, or says the client app cannot', slow, async () => {
    const w = await workspace();
    await mkdir(join(w.cwd, '.mcpx'), { recursive: true });
    await writeFile(join(w.cwd, '.mcpx', 'mcp.json'), JSON.stringify({ mcpServers: {} }));
    const codex = await w.cli(['config', 'export', '--to', 'codex', '--via-gateway', '--json']);
    expect(codex.code).toBe(0);
    const out = JSON.parse(codex.stdout) as { servers: Record<string, { cwd?: string }> };
    expect(out.servers.mcpx?.cwd).toBe(w.cwd);
    const cursor = await w.cli(['config', 'export', '--to', 'cursor', '--via-gateway']);
    expect(cursor.code).toBe(0);
    expect(cursor.stderr).toContain('note: mcpx: Cursor has no setting for cwd');
  });

  it('--name without --via-gateway, and --servers with it, are usage errors', slow, async () => {
    const w = await workspace();
    const named = await w.cli(['config', 'export', '--to', 'cursor', '--name', 'gw']);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain('--name names the --via-gateway entry');
    const chosen = await w.cli(['config', 'export', '--to', 'cursor', '--via-gateway', '--servers', 'tests']);
    expect(chosen.code).toBe(1);
    expect(chosen.stderr).toContain('the --via-gateway entry serves every server of the config');
  });

  it(
    'read back by config import or by discovery, the entry does not make mcpx start itself',
    slow,
    async () => {
      const w = await workspace();
      expect(
        (await w.cli(['config', 'export', '--to', 'claude-code', '--via-gateway', '--write'])).code,
      ).toBe(0);
      // Claude Code's project file, which mcpx discovers too.
      const { servers } = await appServers('claude-code', w.ctx);
      await writeFile(
        join(w.cwd, '.mcp.json'),
        JSON.stringify({ mcpServers: { gateway: servers[0]?.entry } }),
      );
      // Import leaves the entry out rather than copying it into mcpx's own file.
      const imported = await w.cli(['config', 'import', 'claude-code', '--yes']);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toContain('skipped: it runs mcpx itself');
      expect(await readFile(join(w.home, '.mcpx', 'mcp.json'), 'utf8')).not.toContain('"serve"');
      const list = await w.cli(['list', '--json']);
      expect(list.code).toBe(0);
      const rows = JSON.parse(list.stdout) as { name: string; state: string }[];
      const state = (name: string) => rows.find((r) => r.name === name)?.state;
      expect(state('tests')).toBe('ready');
      expect(state('mcpx')).toBeUndefined();
      expect(state('gateway')).not.toBe('ready');
      expect(list.stderr).toContain("skipped server 'gateway'");
      expect(list.stderr).toContain('it runs mcpx itself');
    },
  );
});
