// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the config syntax under test
/**
 * Issue 14: other client apps' config files, through the built CLI in a temporary
 * HOME and project, as a person moving to mcpx would use them.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse } from 'jsonc-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLIENT_APP_IDS,
  CLIENT_APPS,
  type ClientAppContext,
  type ClientAppId,
} from '../../src/config/client-apps/index.js';
import { repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';

const slow = { timeout: 120_000 };
let dir: { path: string; remove: () => Promise<void> };
let count = 0;
beforeAll(async () => {
  dir = await tempDir('mcpx-interop-');
});
afterAll(() => dir.remove());

/** The fixture each client app's file is made from, and the server in it the test calls. */
const FIXTURES: Record<ClientAppId, { file: string; server: string }> = {
  'claude-desktop': { file: 'claude_desktop_config.json', server: 'desktop-test' },
  'claude-code': { file: '.claude.json', server: 'code-test' },
  cursor: { file: 'mcp.json', server: 'cursor-test' },
  vscode: { file: 'mcp.json', server: 'vscode-test' },
  windsurf: { file: 'mcp_config.json', server: 'windsurf-test' },
  codex: { file: 'config.toml', server: 'codex-test' },
  gemini: { file: 'settings.json', server: 'gemini-test' },
  opencode: { file: 'opencode.json', server: 'opencode-test' },
  zed: { file: 'settings.json', server: 'zed-test' },
};

// What VS Code's fixture asks for with `${input:api-key}`, given without a terminal.
const INPUTS = { MCPX_INPUT_API_KEY: 'not-a-real-key' };

async function workspace() {
  count += 1;
  const root = join(dir.path, `w${count}`);
  const cwd = join(root, 'repo');
  const home = join(root, 'home');
  await mkdir(cwd, { recursive: true });
  await mkdir(home, { recursive: true });
  const ctx: ClientAppContext = { homedir: home, platform: process.platform, env: {}, cwd };
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, { cwd, home, env: { ...INPUTS, ...env }, timeoutMs: 30_000 });
  const globalFile = join(home, '.mcpx', 'mcp.json');
  const servers = async () => {
    const value = parse(await readFile(globalFile, 'utf8')) as { mcpServers: Record<string, unknown> };
    return value.mcpServers;
  };
  return { root, cwd, home, ctx, cli, globalFile, servers };
}

type Workspace = Awaited<ReturnType<typeof workspace>>;

/** A file under the workspace's home as mcpx shows it to a person: `~/…` (`--json` keeps it whole). */
const shown = (w: Workspace, path: string) =>
  path.startsWith(`${w.home}/`) ? `~${path.slice(w.home.length)}` : path;

/** The client app's documented file, pointed at the built test server, at the client app's user location. */
async function placeFixture(w: Workspace, app: ClientAppId): Promise<string> {
  const text = (await readFile(join(repoRoot, 'test/fixtures/client-apps', app, FIXTURES[app].file), 'utf8'))
    .replaceAll('TEST_SERVER_PATH', testServerPath)
    .replaceAll('PROJECT_PATH', w.cwd);
  const path = CLIENT_APPS[app].files(w.ctx)[0]?.path ?? '';
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

describe('config import → list → call, and export → import, for every client app', () => {
  for (const app of CLIENT_APP_IDS) {
    it(app, slow, async () => {
      const w = await workspace();
      const source = await placeFixture(w, app);
      const { server } = FIXTURES[app];
      const imported = await w.cli(['config', 'import', app, '--yes']);
      expect(imported.stderr).toBe('');
      expect(imported).toMatchObject({ code: 0 });
      expect(imported.stdout).toContain(`+ ${server}  from ${CLIENT_APPS[app].label}: ${shown(w, source)}:`);
      const written = await readFile(w.globalFile, 'utf8');
      expect(written).toContain(`// imported from ${CLIENT_APPS[app].label}: ${source}:`);

      // The client app's env values are not copied: the preview names the variables, which are then set.
      const variables = Object.fromEntries(
        [...imported.stdout.matchAll(/ not copied — set (\w+) to it/g)].map((m) => [m[1] as string, 'set']),
      );
      expect(written).not.toMatch(/"(info|debug)"/);
      const list = await w.cli(['list'], variables);
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(new RegExp(`^${server}\\s+ready\\s+\\d+`, 'm'));
      const call = await w.cli(['call', `${server}.echo`, `message=from ${app}`], variables);
      expect(call).toMatchObject({ code: 0, stdout: `from ${app}\n` });

      // Round trip: mcpx's servers in the client app's dialect, read back in a fresh home, are the same servers.
      const before = await w.servers();
      const exported = await w.cli(['config', 'export', '--to', app], variables);
      expect(exported.code).toBe(0);
      const again = await workspace();
      const path = CLIENT_APPS[app].files(again.ctx)[0]?.path ?? '';
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, exported.stdout.replaceAll(w.cwd, again.cwd));
      const reimported = await again.cli(['config', 'import', app, '--yes']);
      expect(reimported.code).toBe(0);
      expect(JSON.stringify(await again.servers()).replaceAll(again.cwd, w.cwd)).toBe(JSON.stringify(before));
    });
  }
});

describe('leniency', () => {
  it(
    '--config ~/.claude.json loads despite numStartups; a typo of an mcpx key warns on stderr only',
    slow,
    async () => {
      const w = await workspace();
      const path = await placeFixture(w, 'claude-code');
      const list = await w.cli(['--config', path, 'list', '--json']);
      expect(list.code).toBe(0);
      expect(list.stderr).toBe('');
      expect(JSON.parse(list.stdout)).toBeTruthy();
      const text = (await readFile(path, 'utf8')).replace('"args":', '"argz": [], "args":');
      await writeFile(path, text);
      const warned = await w.cli(['--config', path, 'list', '--json']);
      expect(warned.code).toBe(0);
      expect(warned.stderr).toContain("unknown key 'argz' — did you mean 'args'?");
      expect(warned.stdout).not.toContain('argz');
    },
  );

  it("a typo in mcpx's own file is still an error with a did-you-mean", slow, async () => {
    const w = await workspace();
    await mkdir(join(w.home, '.mcpx'), { recursive: true });
    await writeFile(w.globalFile, JSON.stringify({ mcpServers: { a: { comand: 'node' } } }));
    const run = await w.cli(['list']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown field 'comand' — did you mean 'command'?");
  });
});

describe('config import', () => {
  it('without a terminal and without --yes previews and writes nothing', slow, async () => {
    const w = await workspace();
    await placeFixture(w, 'cursor');
    const run = await w.cli(['config', 'import', 'cursor']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('+ cursor-test');
    expect(run.stderr).toContain('--yes');
    await expect(readFile(w.globalFile, 'utf8')).rejects.toThrow();
    const dry = await w.cli(['config', 'import', '--dry-run']);
    expect(dry.code).toBe(0);
    await expect(readFile(w.globalFile, 'utf8')).rejects.toThrow();
  });

  it(
    'keeps the comments of the file it edits, and resolves name conflicts only when told',
    slow,
    async () => {
      const w = await workspace();
      await placeFixture(w, 'cursor');
      await mkdir(join(w.home, '.mcpx'), { recursive: true });
      const mine =
        '{\n  // my own servers, hand-written\n  "mcpServers": {\n    "cursor-test": {"command": "node", "args": ["other.js"]} // keep me\n  }\n}\n';
      await writeFile(w.globalFile, mine);
      const skipped = await w.cli(['config', 'import', 'cursor', '--yes']);
      expect(skipped.code).toBe(0);
      expect(skipped.stdout).toContain("skipped: mcpx already has a different 'cursor-test'");
      expect(skipped.stdout).toContain('nothing to write');
      expect(await readFile(w.globalFile, 'utf8')).toBe(mine);

      const renamed = await w.cli(['config', 'import', 'cursor', '--yes', '--rename', 'cursor-test=cursor2']);
      expect(renamed.code).toBe(0);
      const text = await readFile(w.globalFile, 'utf8');
      expect(text).toContain('// my own servers, hand-written');
      expect(text).toContain('// keep me');
      expect(Object.keys(await w.servers())).toEqual(['cursor-test', 'cursor2']);

      const overwritten = await w.cli(['config', 'import', 'cursor', '--yes', '--overwrite']);
      expect(overwritten.stdout).toContain('~ cursor-test');
      const servers = await w.servers();
      expect(servers['cursor-test']).toEqual(servers.cursor2);
      expect(await readFile(w.globalFile, 'utf8')).toContain('// my own servers, hand-written');
    },
  );

  it(
    'never copies a secret in clear: it becomes a ${VAR} reference and the note names the variable',
    slow,
    async () => {
      const w = await workspace();
      const path = CLIENT_APPS.cursor.files(w.ctx)[0]?.path ?? '';
      await mkdir(dirname(path), { recursive: true });
      await writeFile(
        path,
        JSON.stringify({
          mcpServers: {
            gh: { command: 'node', args: [testServerPath], env: { GITHUB_TOKEN: 'ghp_secretvalue123' } },
          },
        }),
      );
      const run = await w.cli(['config', 'import', '--yes']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('set GITHUB_TOKEN');
      const text = await readFile(w.globalFile, 'utf8');
      expect(text).not.toContain('ghp_secretvalue123');
      expect(text).toContain('"GITHUB_TOKEN": "${GITHUB_TOKEN}"');
      // VS Code's password input: the variable named, nothing typed in anywhere.
      const v = await workspace();
      await placeFixture(v, 'vscode');
      const vs = await v.cli(['config', 'import', 'vscode', '--yes']);
      expect(vs.stdout).toContain('set MCPX_INPUT_API_KEY');
      expect(await readFile(v.globalFile, 'utf8')).toContain('${MCPX_INPUT_API_KEY}');
    },
  );

  it(
    'masks secrets by where they sit: env and headers whatever their shape, credentials in args and URLs; --copy-values copies them',
    slow,
    async () => {
      const clear = ['plain-openai-1', 'stripe2', 'argkey3', 'argtoken4', 'urlpass5', 'urlkey6', 'hdr7'];
      const appFile = {
        mcpServers: {
          ai: {
            command: 'node',
            args: [testServerPath, '--api-key=argkey3', '--token', 'argtoken4'],
            env: { OPENAI_KEY: 'plain-openai-1', STRIPE_KEY: 'stripe2' },
          },
          remote: {
            url: 'https://bob:urlpass5@example.test/mcp?key=urlkey6&region=eu',
            headers: { 'X-Api': 'hdr7' },
          },
        },
      };
      const place = async (w: Workspace) => {
        const path = CLIENT_APPS.cursor.files(w.ctx)[0]?.path ?? '';
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, JSON.stringify(appFile, null, 2));
        return path;
      };
      const w = await workspace();
      const path = await place(w);
      const run = await w.cli(['config', 'import', 'cursor', '--yes']);
      expect(run.code, run.stderr).toBe(0);
      for (const value of clear) expect(run.stdout + run.stderr).not.toContain(value);
      const text = await readFile(w.globalFile, 'utf8');
      for (const value of clear) expect(text).not.toContain(value);
      const servers = await w.servers();
      expect(servers.ai).toMatchObject({
        args: [testServerPath, '--api-key=${AI_API_KEY}', '--token', '${AI_TOKEN}'],
        env: { OPENAI_KEY: '${OPENAI_KEY}', STRIPE_KEY: '${STRIPE_KEY}' },
      });
      expect(servers.remote).toMatchObject({
        url: 'https://bob:${REMOTE_PASSWORD}@example.test/mcp?key=${REMOTE_KEY}&region=eu',
        headers: { 'X-Api': '${REMOTE_X_API}' },
      });
      // The preview names each variable and where its value was, never the value.
      for (const [where, variable] of [
        ['ai: env OPENAI_KEY', 'OPENAI_KEY'],
        ['ai: env STRIPE_KEY', 'STRIPE_KEY'],
        ['ai: args --api-key', 'AI_API_KEY'],
        ['ai: args --token', 'AI_TOKEN'],
        ['remote: url password', 'REMOTE_PASSWORD'],
        ['remote: url query key', 'REMOTE_KEY'],
        ['remote: header X-Api', 'REMOTE_X_API'],
      ])
        expect(run.stdout).toMatch(
          new RegExp(`${where} from ${shown(w, path)}:\\d+ not copied — set ${variable} to it`),
        );
      // The variables set, the imported server runs with the client app's values.
      const call = await w.cli(['call', 'ai.echo', 'message=hi'], {
        OPENAI_KEY: 'x',
        STRIPE_KEY: 'x',
        AI_API_KEY: 'x',
        AI_TOKEN: 'x',
      });
      expect(call).toMatchObject({ code: 0, stdout: 'hi\n' });

      // --copy-values: copied as the client app had them, still named; the JSON preview shows references only.
      const c = await workspace();
      await place(c);
      const preview = await c.cli(['--json', 'config', 'import', 'cursor', '--copy-values', '--dry-run']);
      expect(preview.code).toBe(0);
      for (const value of clear) expect(preview.stdout).not.toContain(value);
      const copied = await c.cli(['config', 'import', 'cursor', '--yes', '--copy-values']);
      expect(copied.code).toBe(0);
      expect(copied.stdout).toContain('ai: env OPENAI_KEY from');
      expect(copied.stdout).toContain('copied in clear (--copy-values)');
      for (const value of clear) expect(copied.stdout).not.toContain(value);
      const copiedText = await readFile(c.globalFile, 'utf8');
      for (const value of clear) expect(copiedText).toContain(value);
    },
  );

  it("a repository's .vscode/mcp.json is untrusted until approved", slow, async () => {
    const w = await workspace();
    const repoFile = CLIENT_APPS.vscode.files(w.ctx)[1]?.path ?? '';
    await mkdir(dirname(repoFile), { recursive: true });
    await writeFile(
      repoFile,
      JSON.stringify({ servers: { repo: { type: 'stdio', command: 'node', args: [testServerPath] } } }),
    );
    const global = await w.cli(['config', 'import', 'vscode', '--yes']);
    expect(global.stdout).toContain("skipped: a repository's file");
    expect(global.stdout).toContain('nothing to write');

    const project = await w.cli(['config', 'import', 'vscode', '--yes', '--scope', 'project']);
    expect(project.code).toBe(0);
    expect(project.stdout).toContain('mcpx config trust');
    const refused = await w.cli(['call', 'repo.echo', 'message=hi']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('mcpx config trust');
    const exported = await w.cli(['config', 'export', '--to', 'claude-code']);
    expect(exported.stderr).toContain("skipped 'repo'");
    expect(exported.stdout).not.toContain('"repo"');

    expect((await w.cli(['config', 'trust', '--yes'])).code).toBe(0);
    const allowed = await w.cli(['call', 'repo.echo', 'message=hi']);
    expect(allowed).toMatchObject({ code: 0, stdout: 'hi\n' });
  });

  it('asks before writing on a terminal', slow, async () => {
    const w = await workspace();
    await placeFixture(w, 'gemini');
    const term = runInPty(['config', 'import', 'gemini'], { cwd: w.cwd, home: w.home });
    await term.waitFor('Write 1 server');
    await term.type('y', '\r');
    expect(await term.exited).toBe(0);
    expect(Object.keys(await w.servers())).toEqual(['gemini-test']);
  });
});

describe('config export --write', () => {
  it("merges into the client app's own file, keeping its other keys and comments", slow, async () => {
    const w = await workspace();
    await placeFixture(w, 'cursor');
    expect((await w.cli(['config', 'import', 'cursor', '--yes'])).code).toBe(0);
    const zedFile = await placeFixture(w, 'zed');
    const run = await w.cli(['config', 'export', '--to', 'zed', '--write']);
    expect(run).toMatchObject({ code: 0 });
    const text = await readFile(zedFile, 'utf8');
    expect(text).toContain('// Zed settings');
    expect(text).toContain('"theme": "One Dark"');
    const read = CLIENT_APPS.zed.read(text, { path: zedFile, scope: 'user' }, w.ctx);
    expect(read.servers.map((s) => s.name)).toEqual(['zed-test', 'zed-flat', 'cursor-test']);
  });
});

describe('"import": [...] reads other client apps live', () => {
  it(
    "at every load, below the importing file, with the client app's file and line as origin",
    slow,
    async () => {
      const w = await workspace();
      const source = await placeFixture(w, 'cursor');
      await mkdir(join(w.home, '.mcpx'), { recursive: true });
      await writeFile(w.globalFile, JSON.stringify({ import: ['cursor'] }));
      const list = await w.cli(['list']);
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(
        new RegExp(`^cursor-test\\s+ready\\s+\\d+.*${shown(w, source)}:3 \\(global\\)`, 'm'),
      );
      expect((await w.cli(['call', 'cursor-test.echo', 'message=live'])).stdout).toBe('live\n');

      // A change in Cursor's file counts at the next load; mcpx's own entry of the same name wins.
      await writeFile(
        w.globalFile,
        JSON.stringify({
          import: ['cursor'],
          mcpServers: { 'cursor-test': { command: 'node', args: ['nowhere.js'] } },
        }),
      );
      const own = await w.cli(['list', '--json']);
      const rows = JSON.parse(own.stdout) as { name: string; file: string }[];
      expect(rows.find((r) => r.name === 'cursor-test')?.file).toBe(w.globalFile);
    },
  );

  it(
    "a project file's import, and a repository's client app file, are untrusted until approved",
    slow,
    async () => {
      const w = await workspace();
      await placeFixture(w, 'cursor');
      await mkdir(join(w.cwd, '.mcpx'), { recursive: true });
      await writeFile(join(w.cwd, '.mcpx', 'mcp.json'), JSON.stringify({ import: ['cursor'] }));
      const refused = await w.cli(['call', 'cursor-test.echo', 'message=hi']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('mcpx config trust');

      const v = await workspace();
      const repoFile = CLIENT_APPS.vscode.files(v.ctx)[1]?.path ?? '';
      await mkdir(dirname(repoFile), { recursive: true });
      await writeFile(
        repoFile,
        JSON.stringify({ servers: { repo: { command: 'node', args: [testServerPath] } } }),
      );
      await mkdir(join(v.home, '.mcpx'), { recursive: true });
      await writeFile(v.globalFile, JSON.stringify({ import: ['vscode'] }));
      const list = await v.cli(['list']);
      expect(list.stdout).toMatch(new RegExp(`^repo\\s+untrusted\\s.*${repoFile}:1 \\(project\\)`, 'm'));
      expect((await v.cli(['config', 'trust', '--yes'])).code).toBe(0);
      expect((await v.cli(['call', 'repo.echo', 'message=ok'])).stdout).toBe('ok\n');
    },
  );

  it('an unknown client app in "import" is an error with a did-you-mean', slow, async () => {
    const w = await workspace();
    await mkdir(join(w.home, '.mcpx'), { recursive: true });
    await writeFile(w.globalFile, JSON.stringify({ import: ['cursr'] }));
    const run = await w.cli(['list']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "'import' lists client apps whose servers mcpx reads; 'cursr' is not one — did you mean 'cursor'?",
    );
  });
});

describe('a client app named on the command line', () => {
  it('that mcpx does not know is an error naming the client apps, with a did-you-mean', slow, async () => {
    const w = await workspace();
    const known = `client apps: ${CLIENT_APP_IDS.join(', ')}`;
    const imported = await w.cli(['config', 'import', 'cursr', '--dry-run']);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain("unknown client app 'cursr' — did you mean 'cursor'?");
    expect(imported.stderr).toContain(known);
    const exported = await w.cli(['config', 'export', '--to', 'vscod']);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain("unknown client app 'vscod' — did you mean 'vscode'?");
    expect(exported.stderr).toContain(known);
  });
});

describe('${input:id}', () => {
  async function filesUnder(root: string): Promise<string[]> {
    const { readdir } = await import('node:fs/promises');
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  }

  async function liveVscode() {
    const w = await workspace();
    await placeFixture(w, 'vscode');
    await mkdir(join(w.home, '.mcpx'), { recursive: true });
    await writeFile(w.globalFile, JSON.stringify({ import: ['vscode'] }));
    return w;
  }

  it('is asked once at the terminal, masked, and the answer is never written to a file', slow, async () => {
    const w = await liveVscode();
    const secret = 'typed-Secret-4711';
    const term = runInPty(['call', 'vscode-test.env', 'name=API_KEY'], { cwd: w.cwd, home: w.home });
    await term.waitFor('Test API key (api-key)');
    await term.type(...secret.split(''), '\r');
    expect(await term.exited).toBe(0);
    const screen = term.text();
    expect(screen).toContain('*'.repeat(secret.length));
    // Once: the tool's answer. The keys typed were never echoed.
    expect(screen.split(secret)).toHaveLength(2);
    for (const file of [...(await filesUnder(w.home)), ...(await filesUnder(w.cwd))]) {
      expect(await readFile(file, 'utf8'), file).not.toContain(secret);
    }
  });

  it(
    'without a terminal is taken from MCPX_INPUT_<ID>, and the error names that variable when unset',
    slow,
    async () => {
      const w = await liveVscode();
      const given = await w.cli(['call', 'vscode-test.env', 'name=API_KEY'], {
        MCPX_INPUT_API_KEY: 'from-env',
      });
      expect(given).toMatchObject({ code: 0, stdout: 'from-env\n' });
      const missing = await runCli(['call', 'vscode-test.env', 'name=API_KEY'], { cwd: w.cwd, home: w.home });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('MCPX_INPUT_API_KEY');
    },
  );

  it('in a VS Code file given with --config', slow, async () => {
    const w = await workspace();
    const path = await placeFixture(w, 'vscode');
    const run = await w.cli(['--config', path, 'call', 'vscode-test.env', 'name=API_KEY'], {
      MCPX_INPUT_API_KEY: 'via-config',
    });
    expect(run).toMatchObject({ code: 0, stdout: 'via-config\n' });
  });
});
