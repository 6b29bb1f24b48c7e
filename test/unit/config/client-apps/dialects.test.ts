// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the syntax under test
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_APP_IDS,
  CLIENT_APPS,
  type ClientAppContext,
  type ClientAppId,
  canonicalEntry,
  type McpxEntry,
} from '../../../../src/config/client-apps/index.js';
import { repoRoot } from '../../../helpers/cli.js';

const ctx: ClientAppContext = { homedir: '/home/ada', platform: 'linux', env: {}, cwd: '/work/app' };

const stdio: McpxEntry = {
  command: 'node',
  args: ['server.js', '--flag'],
  env: { A: '1', TOKEN: '${TOKEN}' },
};
const remote: McpxEntry = { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${API_KEY}' } };

/** What each client app's dialect can say, beyond a plain stdio server. */
const SAMPLES: Record<ClientAppId, McpxEntry[]> = {
  'claude-desktop': [stdio],
  'claude-code': [stdio, remote, { url: 'https://example.com/sse', type: 'sse' }],
  cursor: [stdio, remote],
  vscode: [stdio, remote, { ...stdio, cwd: '/srv' }, { url: 'https://example.com/sse', type: 'sse' }],
  windsurf: [stdio, remote, { ...stdio, enabled: false }],
  codex: [
    { ...stdio, env_passthrough: ['PATH_EXTRA'], cwd: '/srv', connect_timeout: 20, request_timeout: 90 },
    { ...remote, headers: { Authorization: 'Bearer ${API_KEY}', 'X-Team': '${TEAM}', 'X-Plain': 'v' } },
    { ...stdio, enabled: false, allowed_tools: ['echo'], disabled_tools: ['fail'] },
  ],
  gemini: [
    { ...stdio, cwd: '/srv', request_timeout: 30, allowed_tools: ['echo'], disabled_tools: ['fail'] },
    remote,
    { url: 'https://example.com/sse', type: 'sse' },
  ],
  opencode: [stdio, remote, { ...stdio, enabled: false, connect_timeout: 5 }],
  zed: [stdio, remote, { ...stdio, enabled: false }],
};

describe('every client app dialect: import(export(x)) = x', () => {
  for (const app of CLIENT_APP_IDS) {
    it(`${app}`, () => {
      const dialect = CLIENT_APPS[app];
      const written: Record<string, unknown> = {};
      SAMPLES[app].forEach((entry, i) => {
        const { value, dropped } = dialect.write(canonicalEntry(entry));
        expect(dropped, `${app} sample ${i}`).toEqual([]);
        written[`s${i}`] = value;
      });
      const file = dialect.files(ctx)[0];
      if (!file) throw new Error(`${app} has no user file`);
      const text = dialect.merge(undefined, written, ctx);
      const read = dialect.read(text, file, ctx);
      expect(read.servers.map((s) => [s.name, s.entry])).toEqual(
        SAMPLES[app].map((entry, i) => [`s${i}`, canonicalEntry(entry)]),
      );
      expect(read.servers.every((s) => typeof s.line === 'number')).toBe(true);
    });
  }

  it('says what a dialect cannot hold instead of dropping it silently', () => {
    expect(CLIENT_APPS['claude-desktop'].write(remote)).toEqual({ value: undefined, dropped: ['url'] });
    expect(CLIENT_APPS.cursor.write({ ...stdio, request_timeout: 9 }).dropped).toEqual(['request_timeout']);
    expect(CLIENT_APPS.codex.write(stdio).caveats).toEqual([
      'env TOKEN is "${TOKEN}": Codex does not expand variables, so the server gets it as written',
    ]);
  });
});

async function fixture(app: ClientAppId, file: string): Promise<string> {
  return (await readFile(join(repoRoot, 'test/fixtures/client-apps', app, file), 'utf8'))
    .replaceAll('TEST_SERVER_PATH', '/srv/test-server.js')
    .replaceAll('PROJECT_PATH', ctx.cwd);
}

describe("each client app's documented file shape", () => {
  const user = (app: ClientAppId) => {
    const file = CLIENT_APPS[app].files(ctx)[0];
    if (!file) throw new Error(app);
    return file;
  };
  const run = { command: 'node', args: ['/srv/test-server.js'] };

  it('finds the files where each client app keeps them', () => {
    const paths = Object.fromEntries(
      CLIENT_APP_IDS.map((h) => [h, CLIENT_APPS[h].files(ctx).map((f) => f.path)]),
    );
    expect(paths).toEqual({
      'claude-desktop': ['/home/ada/.config/Claude/claude_desktop_config.json'],
      'claude-code': ['/home/ada/.claude.json', '/work/app/.mcp.json'],
      cursor: ['/home/ada/.cursor/mcp.json', '/work/app/.cursor/mcp.json'],
      vscode: ['/home/ada/.config/Code/User/mcp.json', '/work/app/.vscode/mcp.json'],
      windsurf: ['/home/ada/.codeium/windsurf/mcp_config.json'],
      codex: ['/home/ada/.codex/config.toml', '/work/app/.codex/config.toml'],
      gemini: ['/home/ada/.gemini/settings.json', '/work/app/.gemini/settings.json'],
      opencode: ['/home/ada/.config/opencode/opencode.json', '/work/app/opencode.json'],
      zed: ['/home/ada/.config/zed/settings.json', '/work/app/.zed/settings.json'],
    });
    const mac = { ...ctx, platform: 'darwin' as const };
    expect(CLIENT_APPS['claude-desktop'].files(mac)[0]?.path).toBe(
      '/home/ada/Library/Application Support/Claude/claude_desktop_config.json',
    );
    const win = { ...ctx, platform: 'win32' as const, env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' } };
    expect(CLIENT_APPS.vscode.files(win)[0]?.path).toContain('Code');
    expect(CLIENT_APPS.codex.files({ ...ctx, env: { CODEX_HOME: '/opt/codex' } })[0]?.path).toBe(
      '/opt/codex/config.toml',
    );
  });

  it('Claude Code: user servers and this project’s private ones, around numStartups and friends', async () => {
    const read = CLIENT_APPS['claude-code'].read(
      await fixture('claude-code', '.claude.json'),
      user('claude-code'),
      ctx,
    );
    expect(read.servers.map((s) => [s.name, s.entry, s.line])).toEqual([
      ['code-test', run, 8],
      ['code-local', { ...run, env: { MODE: '${MODE:-local}' } }, 20],
    ]);
    expect(read.warnings).toEqual([]);
  });

  it('VS Code: ${input:id} becomes MCPX_INPUT_<ID> with a note, ${workspaceFolder} is resolved', async () => {
    const read = CLIENT_APPS.vscode.read(await fixture('vscode', 'mcp.json'), user('vscode'), ctx);
    expect(read.servers[0]?.entry).toEqual({
      ...run,
      env: { API_KEY: '${MCPX_INPUT_API_KEY}', WORKSPACE: '/work/app' },
    });
    expect(read.notes).toEqual([
      "VS Code asks for input 'api-key' (Test API key): a secret, so it was not copied; set MCPX_INPUT_API_KEY in the environment mcpx runs in",
    ]);
  });

  it('Codex TOML, Gemini milliseconds and tool lists, OpenCode arrays, Zed both command shapes', async () => {
    const codex = CLIENT_APPS.codex.read(await fixture('codex', 'config.toml'), user('codex'), ctx);
    expect(codex.servers).toEqual([
      {
        name: 'codex-test',
        line: 7,
        entry: { ...run, env: { LOG_LEVEL: 'debug' }, connect_timeout: 20, request_timeout: 60 },
      },
    ]);
    const gemini = CLIENT_APPS.gemini.read(await fixture('gemini', 'settings.json'), user('gemini'), ctx);
    expect(gemini.servers[0]?.entry).toEqual({
      ...run,
      env: { LOG_LEVEL: 'info' },
      request_timeout: 30,
      allowed_tools: ['echo', 'add'],
    });
    const opencode = CLIENT_APPS.opencode.read(
      await fixture('opencode', 'opencode.json'),
      user('opencode'),
      ctx,
    );
    expect(opencode.servers[0]?.entry).toEqual({ ...run, env: { LOG_LEVEL: 'info' } });
    const zed = CLIENT_APPS.zed.read(await fixture('zed', 'settings.json'), user('zed'), ctx);
    expect(zed.servers.map((s) => s.entry)).toEqual([run, { ...run, env: { LOG_LEVEL: 'info' } }]);
  });

  it('warns about a key that looks like a typo, and only then', () => {
    const text =
      '{"theme": "x", "mcpServers": {"a": {"comand": "node", "args": [], "trust": true, "fancy": 1}}}';
    const read = CLIENT_APPS.gemini.read(text, user('gemini'), ctx);
    expect(read.warnings).toHaveLength(1);
    expect(read.warnings[0]).toContain("server 'a': unknown key 'comand' — did you mean 'command'?");
  });

  it('merges into an existing file, keeping its comments and other keys', async () => {
    const text = await fixture('zed', 'settings.json');
    const merged = CLIENT_APPS.zed.merge(text, { added: { command: 'x', args: [] } }, ctx);
    expect(merged).toContain('// Zed settings');
    expect(merged).toContain('"buffer_font_size": 15');
    expect(CLIENT_APPS.zed.read(merged, user('zed'), ctx).servers.map((s) => s.name)).toEqual([
      'zed-test',
      'zed-flat',
      'added',
    ]);
  });
});
