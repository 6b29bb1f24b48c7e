/**
 * `mcpx config add|remove|enable|disable` through the built CLI (issue 14, item 6):
 * a hand-written file keeps its comments and formatting byte for byte outside the
 * entry changed, an edit that would break the file is refused with the file
 * untouched, and `mcpx list` sees the result.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homeEntries, runCli, tempDir, testServerPath } from '../helpers/cli.js';

/** The global file as messages show it to a person: under the home, as ~/. */
const SHOWN_GLOBAL = '~/.mcpx/mcp.json';
let dir: { path: string; remove: () => Promise<void> };
let count = 0;
beforeAll(async () => {
  dir = await tempDir('mcpx-config-edit-');
});
afterAll(() => dir.remove());

const node = JSON.stringify(process.execPath);
const server = JSON.stringify(testServerPath);

/** A hand-written global file: a `//` comment, a block comment, one-line entries with trailing comments. */
const HANDWRITTEN = `{
  // my servers, by hand
  "mcpServers": {
    /* the test server, kept on one line */
    "first": { "command": ${node}, "args": [${server}] }, // first's note
    "second": { "command": ${node}, "args": [${server}] } // second's note
  }
}
`;

async function workspace(globalText?: string) {
  count += 1;
  const cwd = join(dir.path, `w${count}`, 'repo');
  const home = join(dir.path, `w${count}`, 'home');
  await mkdir(cwd, { recursive: true });
  await mkdir(join(home, '.mcpx'), { recursive: true });
  const globalFile = join(home, '.mcpx', 'mcp.json');
  if (globalText !== undefined) await writeFile(globalFile, globalText);
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, { cwd, home, env, timeoutMs: 30_000 });
  return { cwd, home, cli, globalFile, projectFile: join(cwd, '.mcpx', 'mcp.json') };
}

interface ListRow {
  name: string;
  state: string;
  layer: string;
  file?: string;
}

describe('mcpx config add', () => {
  it('adds a stdio server below the others; every other byte, comments included, stays as written', async () => {
    const w = await workspace(HANDWRITTEN);
    const add = await w.cli([
      'config',
      'add',
      'third',
      '--env',
      `TOKEN=\${MY_TOKEN}`,
      '--',
      process.execPath,
      testServerPath,
      '--flag',
    ]);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    expect(add.stdout).toBe(`added 'third' to ${SHOWN_GLOBAL}\n`);
    const text = await readFile(w.globalFile, 'utf8');
    // The file up to the end of the second entry's line is the same bytes plus the comma it now needs.
    const secondLine = `    "second": { "command": ${node}, "args": [${server}] }`;
    const before = HANDWRITTEN.slice(0, HANDWRITTEN.indexOf(secondLine) + secondLine.length);
    expect(text.startsWith(`${before},`)).toBe(true);
    expect(text).toContain('// my servers, by hand\n');
    expect(text).toContain('/* the test server, kept on one line */\n');
    expect(text).toContain(`}, // first's note\n`);
    // The second entry's note stays on its line instead of moving to the new entry.
    expect(text).toContain(`${secondLine}, // second's note\n    "third": {\n`);
    expect(text.endsWith('\n  }\n}\n')).toBe(true);
    // `${VAR}` is kept as written, not resolved.
    expect(text).toContain(`"TOKEN": "\${MY_TOKEN}"`);

    const list = await w.cli(['--json', 'list'], { MY_TOKEN: 'x' });
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as ListRow[];
    expect(rows).toContainEqual(
      expect.objectContaining({ name: 'third', state: 'ready', file: w.globalFile }),
    );
  });

  it('adds a remote server with --url, --header and --type, and prints JSON for scripts', async () => {
    const w = await workspace(HANDWRITTEN);
    const add = await w.cli([
      '--json',
      'config',
      'add',
      'docs',
      '--url',
      'https://example.com/mcp',
      '--header',
      `Authorization: Bearer \${DOCS_TOKEN}`,
      '--type',
      'http',
    ]);
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout)).toEqual({
      server: 'docs',
      outcome: 'added',
      file: w.globalFile,
      scope: 'global',
      created: false,
    });
    const text = await readFile(w.globalFile, 'utf8');
    expect(text).toContain(
      `"docs": {\n      "type": "http",\n      "url": "https://example.com/mcp",\n      "headers": {\n        "Authorization": "Bearer \${DOCS_TOKEN}"\n      }\n    }`,
    );
  });

  it('creates a missing project file and its folder with --scope project; the global file is left alone', async () => {
    const w = await workspace(HANDWRITTEN);
    const add = await w.cli([
      'config',
      'add',
      'local',
      '--scope',
      'project',
      '--',
      process.execPath,
      testServerPath,
    ]);
    expect(add.code).toBe(0);
    expect(add.stdout).toBe(`added 'local' to ${w.projectFile} (created)\n`);
    expect(JSON.parse(await readFile(w.projectFile, 'utf8'))).toEqual({
      mcpServers: { local: { command: process.execPath, args: [testServerPath] } },
    });
    expect(await readFile(w.globalFile, 'utf8')).toBe(HANDWRITTEN);
  });

  it('creates a missing global file 0600 in a 0700 folder', async () => {
    const w = await workspace();
    const add = await w.cli(['config', 'add', 'only', '--', process.execPath, testServerPath]);
    expect(add.code).toBe(0);
    expect((await stat(w.globalFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(w.home, '.mcpx'))).mode & 0o777).toBe(0o700);
    const list = await w.cli(['--json', 'list']);
    expect(JSON.parse(list.stdout) as ListRow[]).toContainEqual(
      expect.objectContaining({ name: 'only', state: 'ready' }),
    );
  });

  it('refuses a name that is already there unless --overwrite, which replaces only that entry', async () => {
    const w = await workspace(HANDWRITTEN);
    const again = await w.cli(['config', 'add', 'first', '--', 'other-command']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`server 'first' is already in ${SHOWN_GLOBAL}`);
    expect(again.stderr).toContain('--overwrite');
    expect(await readFile(w.globalFile, 'utf8')).toBe(HANDWRITTEN);

    const replaced = await w.cli(['config', 'add', 'first', '--overwrite', '--', 'other-command']);
    expect(replaced.code).toBe(0);
    const text = await readFile(w.globalFile, 'utf8');
    expect(text).toContain('"command": "other-command"');
    expect(text).toContain(`    "second": { "command": ${node}, "args": [${server}] } // second's note\n`);
    expect(text).toContain('// my servers, by hand\n');
  });

  it('refuses an edit that would make the file invalid, and leaves the file untouched', async () => {
    const w = await workspace(HANDWRITTEN);
    const bad = await w.cli(['config', 'add', 'broken', '--url', 'ftp://example.com/mcp']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      `${SHOWN_GLOBAL} would not be valid after this change, so it was not changed`,
    );
    expect(await readFile(w.globalFile, 'utf8')).toBe(HANDWRITTEN);
    // Nothing half-written left beside it either.
    expect(await homeEntries(join(w.home, '.mcpx'))).toEqual(['mcp.json']);
  });

  it('refuses to edit a file that is already invalid, pointing at the problem', async () => {
    const broken = HANDWRITTEN.replace('"args"', '"argz"');
    const w = await workspace(broken);
    const add = await w.cli(['config', 'add', 'new', '--', 'cmd']);
    expect(add.code).toBe(2);
    expect(add.stderr).toContain('is not valid as it is, so it was not changed');
    expect(add.stderr).toContain("'argz'");
    expect(await readFile(w.globalFile, 'utf8')).toBe(broken);
  });
});

describe('mcpx config remove, enable, disable', () => {
  it('disable then list shows it off; enable brings it back; both change only that entry', async () => {
    const w = await workspace(HANDWRITTEN);
    const off = await w.cli(['config', 'disable', 'second']);
    expect(off.code).toBe(0);
    expect(off.stdout).toBe(`disabled 'second' in ${SHOWN_GLOBAL}\n`);
    const disabledText = await readFile(w.globalFile, 'utf8');
    expect(disabledText).toBe(
      HANDWRITTEN.replace(
        `"args": [${server}] } // second's note`,
        `"args": [${server}], "enabled": false } // second's note`,
      ),
    );
    const list = await w.cli(['--json', 'list']);
    const rows = JSON.parse(list.stdout) as ListRow[];
    expect(rows).toContainEqual(expect.objectContaining({ name: 'second', state: 'disabled' }));
    expect(rows).toContainEqual(expect.objectContaining({ name: 'first', state: 'ready' }));

    const on = await w.cli(['config', 'enable', 'second']);
    expect(on.code).toBe(0);
    expect(await readFile(w.globalFile, 'utf8')).toBe(HANDWRITTEN);
    const again = await w.cli(['config', 'enable', 'second']);
    expect(again.stdout).toContain('nothing changed');
  });

  it('remove takes the entry and its line; the comments around stay', async () => {
    const w = await workspace(HANDWRITTEN);
    const first = await w.cli(['config', 'remove', 'first']);
    expect(first.code).toBe(0);
    expect(await readFile(w.globalFile, 'utf8')).toBe(
      HANDWRITTEN.replace(`    "first": { "command": ${node}, "args": [${server}] }, // first's note\n`, ''),
    );
    // The last one: the comma before it goes too, so the file stays strict JSON where it was.
    const w2 = await workspace(HANDWRITTEN);
    expect((await w2.cli(['config', 'remove', 'second'])).code).toBe(0);
    expect(await readFile(w2.globalFile, 'utf8')).toBe(
      HANDWRITTEN.replace(
        `}, // first's note\n    "second": { "command": ${node}, "args": [${server}] } // second's note\n`,
        `} // first's note\n`,
      ),
    );
    const list = await w2.cli(['--json', 'list']);
    expect((JSON.parse(list.stdout) as ListRow[]).map((r) => r.name)).toEqual(['demo', 'first']);
  });

  it('a name not in that file: lists the names there and the other layer that has it', async () => {
    const w = await workspace(HANDWRITTEN);
    const missing = await w.cli(['config', 'disable', 'first', '--scope', 'project']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no server named 'first': ${w.projectFile} does not exist`);
    expect(missing.stderr).toContain(
      `'first' is in ${SHOWN_GLOBAL} (global): mcpx config disable first --scope global`,
    );
    const typo = await w.cli(['--json', 'config', 'remove', 'frist']);
    expect(typo.code).toBe(1);
    const error = JSON.parse(typo.stderr) as { error: { code: string; fixes: string[] } };
    expect(error.error.code).toBe('UNKNOWN_SERVER');
    expect(error.error.fixes).toContain('servers in this file: first, second');
    expect(await readFile(w.globalFile, 'utf8')).toBe(HANDWRITTEN);
  });

  it('disable demo switches the built-in server off with the top-level switch (creating the file), enable takes it away', async () => {
    const w = await workspace();
    const off = await w.cli(['config', 'disable', 'demo']);
    expect(off.code).toBe(0);
    expect(JSON.parse(await readFile(w.globalFile, 'utf8'))).toEqual({
      mcpServers: {},
      demo: { enabled: false },
    });
    const list = await w.cli(['--json', 'list']);
    expect(JSON.parse(list.stdout) as ListRow[]).toEqual([
      expect.objectContaining({ name: 'demo', state: 'disabled', file: w.globalFile }),
    ]);
    expect((await w.cli(['config', 'enable', 'demo'])).code).toBe(0);
    expect(JSON.parse(await readFile(w.globalFile, 'utf8'))).toEqual({ mcpServers: {} });
    const remove = await w.cli(['config', 'remove', 'demo']);
    expect(remove.code).toBe(1);
    expect(remove.stderr).toContain('mcpx config disable demo');
  });
});
