/**
 * Issue 38, deliverable 2: one locked writer for mcpx's files. Many `mcpx config …` commands
 * at once on one file all land (before, each read, edited and renamed on its own, and 2–6 of 8
 * disables were lost while all 8 printed "disabled"), every comment and untouched entry stays
 * byte for byte, approvals recorded at once all stay in the trust store, and a lock a killed
 * mcpx left is taken over at once.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editConfigText } from '../../src/config/index.js';
import { lockFileOf, processStart } from '../../src/home/index.js';
import { type CliRun, homeEntries, runCli, tempDir } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';

let dir: { path: string; remove: () => Promise<void> };
let count = 0;
beforeAll(async () => {
  dir = await tempDir('mcpx-concurrent-');
});
afterAll(() => dir.remove());

const NAMES = ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8'];

/** A hand-written file: comments of both kinds, one-line entries with notes, an entry nobody edits. */
const HANDWRITTEN = `{
  // eight servers and one to leave alone, by hand
  "mcpServers": {
    /* the first four, one line each */
    "s1": { "command": "server-one" }, // one's note
    "s2": { "command": "server-two", "args": ["--a"] }, // two's note
    "s3": { "command": "server-three" },
    "s4": { "command": "server-four" }, // four's note
    // the next four, spread out
    "s5": {
      "command": "server-five"
    },
    "s6": {
      "command": "server-six", // six's command
      "args": ["x"]
    },
    "s7": { "command": "server-seven" },
    "keep": { "command": "untouched", "env": { "A": "1" } }, /* keep's note */
    "s8": { "command": "server-eight" } // eight's note
  }
}
`;

async function workspace() {
  count += 1;
  const cwd = join(dir.path, `w${count}`, 'repo');
  const home = join(dir.path, `w${count}`, 'home');
  await mkdir(cwd, { recursive: true });
  await mkdir(join(home, '.mcpx'), { recursive: true });
  const cli = (args: string[], at = cwd) => runCli(args, { cwd: at, home, timeoutMs: 60_000 });
  return { cwd, home, cli, globalFile: join(home, '.mcpx', 'mcp.json') };
}

/** The file after `kind` of every name, one after another: what all the concurrent edits must add up to. */
function sequentially(text: string, file: string, kind: 'enable' | 'disable'): string {
  return NAMES.reduce((t, name) => editConfigText(t, file, 'global', { kind, name }).text, text);
}

function expectAllOk(runs: readonly CliRun[]): void {
  expect(runs.map((r) => r.stderr)).toEqual(NAMES.map(() => ''));
  expect(runs.map((r) => r.code)).toEqual(NAMES.map(() => 0));
}

describe('concurrent edits of one config file', () => {
  it('8 concurrent `mcpx config disable` of distinct servers all land, every other byte as written', async () => {
    const w = await workspace();
    await writeFile(w.globalFile, HANDWRITTEN);
    const runs = await Promise.all(NAMES.map((name) => w.cli(['config', 'disable', name])));
    expectAllOk(runs);
    expect(runs.map((r) => r.stdout)).toEqual(NAMES.map((n) => `disabled '${n}' in ~/.mcpx/mcp.json\n`));
    expect(await readFile(w.globalFile, 'utf8')).toBe(sequentially(HANDWRITTEN, w.globalFile, 'disable'));
    // No lock and no temporary file left beside it.
    expect(await homeEntries(join(w.home, '.mcpx'))).toEqual(['mcp.json']);
  });

  it('does so in the project file too (--scope project), leaving nothing to commit beside it', async () => {
    const w = await workspace();
    const projectFile = join(w.cwd, '.mcpx', 'mcp.json');
    await mkdir(join(w.cwd, '.mcpx'));
    await writeFile(projectFile, HANDWRITTEN);
    const runs = await Promise.all(
      NAMES.map((name) => w.cli(['config', 'disable', name, '--scope', 'project'])),
    );
    expectAllOk(runs);
    expect(await readFile(projectFile, 'utf8')).toBe(sequentially(HANDWRITTEN, projectFile, 'disable'));
    expect(await readdir(join(w.cwd, '.mcpx'))).toEqual(['mcp.json']);
  });

  it('20 rounds of 8 concurrent edits (disable all, then enable all, …): every round, all 8 land', async () => {
    const w = await workspace();
    await writeFile(w.globalFile, HANDWRITTEN);
    const off = sequentially(HANDWRITTEN, w.globalFile, 'disable');
    const on = sequentially(off, w.globalFile, 'enable');
    const lost: string[] = [];
    for (let round = 0; round < 20; round++) {
      const kind = round % 2 === 0 ? 'disable' : 'enable';
      const runs = await Promise.all(NAMES.map((name) => w.cli(['config', kind, name])));
      expectAllOk(runs);
      const text = await readFile(w.globalFile, 'utf8');
      if (text !== (kind === 'disable' ? off : on)) lost.push(`round ${round + 1} (${kind})`);
    }
    expect(lost).toEqual([]);
    expect(await homeEntries(join(w.home, '.mcpx'))).toEqual(['mcp.json']);
  }, 300_000);

  it('8 concurrent `mcpx config add` of distinct servers all land after the hand-written entries', async () => {
    const w = await workspace();
    await writeFile(w.globalFile, HANDWRITTEN);
    const added = NAMES.map((n) => `new-${n}`);
    const runs = await Promise.all(added.map((name) => w.cli(['config', 'add', name, '--', 'cmd', name])));
    expectAllOk(runs);
    const text = await readFile(w.globalFile, 'utf8');
    // Everything up to the last hand-written entry is the same bytes (plus the comma it now needs).
    const last = `    "s8": { "command": "server-eight" }`;
    expect(text.startsWith(`${HANDWRITTEN.slice(0, HANDWRITTEN.indexOf(last) + last.length)},`)).toBe(true);
    expect(text).toContain(`${last}, // eight's note\n`);
    const { mcpServers } = parseJsonc(text, [], { allowTrailingComma: true }) as {
      mcpServers: Record<string, { command: string; args?: string[] }>;
    };
    for (const name of added) expect(mcpServers[name]).toEqual({ command: 'cmd', args: [name] });
    expect(Object.keys(mcpServers)).toHaveLength(NAMES.length + 1 + added.length);
  });

  it('8 concurrent `mcpx config trust` of different projects all stay approved in the one trust store', async () => {
    const w = await workspace();
    const projects = NAMES.map((name) => join(w.cwd, name));
    for (const [i, project] of projects.entries()) {
      await mkdir(join(project, '.mcpx'), { recursive: true });
      await writeFile(
        join(project, '.mcpx', 'mcp.json'),
        JSON.stringify({ mcpServers: { [`tool-${i}`]: { command: 'some-server', args: [String(i)] } } }),
      );
    }
    const runs = await Promise.all(projects.map((project) => w.cli(['config', 'trust', '--yes'], project)));
    expect(runs.map((r) => r.code)).toEqual(NAMES.map(() => 0));
    expect(runs.map((r) => r.stdout)).toEqual(
      NAMES.map(() => 'approved 1 of 1 (1 server, 0 settings files)\n'),
    );
    const store = JSON.parse(await readFile(join(w.home, '.mcpx', 'trust.json'), 'utf8')) as {
      entries: Record<string, Record<string, unknown>>;
    };
    for (const [i, project] of projects.entries())
      expect(Object.keys(store.entries[join(project, '.mcpx', 'mcp.json')] ?? {})).toEqual([`tool-${i}`]);
    // And each project's server is trusted now: nothing left to approve in any of them.
    const again = await Promise.all(projects.map((project) => w.cli(['config', 'trust', '--yes'], project)));
    expect(again.map((r) => r.stdout)).toEqual(
      NAMES.map(() => 'nothing to approve: every project server and setting is trusted\n'),
    );
  });

  it('8 concurrent `mcpx config export --write` of different servers into one host file all land', async () => {
    const w = await workspace();
    await writeFile(w.globalFile, HANDWRITTEN);
    const cursorFile = join(w.home, '.cursor', 'mcp.json');
    const runs = await Promise.all(
      NAMES.map((name) => w.cli(['config', 'export', '--to', 'cursor', '--servers', name, '--write'])),
    );
    expect(runs.map((r) => r.code)).toEqual(NAMES.map(() => 0));
    const { mcpServers } = JSON.parse(await readFile(cursorFile, 'utf8')) as {
      mcpServers: Record<string, unknown>;
    };
    expect(Object.keys(mcpServers).sort()).toEqual(NAMES);
    expect(await readdir(join(w.home, '.cursor'))).toEqual(['mcp.json']);
  });
});

describe('config import, while the person reads its preview', () => {
  /** Cursor's file with one server, and a pseudo-terminal at the import's question. */
  async function importAsked() {
    const w = await workspace();
    await writeFile(w.globalFile, HANDWRITTEN);
    await mkdir(join(w.home, '.cursor'));
    await writeFile(
      join(w.home, '.cursor', 'mcp.json'),
      JSON.stringify({ mcpServers: { 'from-cursor': { command: 'cursor-server' } } }),
    );
    const term = runInPty(['config', 'import', 'cursor'], { cwd: w.cwd, home: w.home });
    await term.waitFor('Write 1 server into ~/.mcpx/mcp.json? [y/N]');
    return { w, term };
  }

  it('keeps an edit another command made meanwhile', async () => {
    const { w, term } = await importAsked();
    const edit = await w.cli(['config', 'disable', 's1']);
    expect(edit.code).toBe(0);
    await term.type('y', '\r');
    expect(await term.exited).toBe(0);
    const text = await readFile(w.globalFile, 'utf8');
    expect(text).toContain('"from-cursor"');
    // The disable is still there: the import was applied to the file as it was once locked.
    const s1 = (t: string) => t.split('\n').find((line) => line.includes('"s1"'));
    const disabled = editConfigText(HANDWRITTEN, w.globalFile, 'global', {
      kind: 'disable',
      name: 's1',
    }).text;
    expect(s1(disabled)).toContain('"enabled": false');
    expect(s1(text)).toBe(s1(disabled));
  });

  it('stops, writing nothing, when an edit meanwhile changed what the preview showed', async () => {
    const { w, term } = await importAsked();
    const edit = await w.cli(['config', 'add', 'from-cursor', '--', 'mine']);
    expect(edit.code).toBe(0);
    const before = await readFile(w.globalFile, 'utf8');
    await term.type('y', '\r');
    expect(await term.exited).toBe(2);
    expect(term.text()).toContain(
      '~/.mcpx/mcp.json changed while the import was being previewed; nothing was written',
    );
    expect(await readFile(w.globalFile, 'utf8')).toBe(before);
  });
});

describe('the lock of a config file', () => {
  it('left by an mcpx killed with kill -9 is taken over at once, and removed', async () => {
    const w = await workspace();
    await writeFile(w.globalFile, HANDWRITTEN);
    // An mcpx that died holding the lock: a process that ran and was killed.
    const killed = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await once(killed, 'spawn');
    const start = await processStart(killed.pid ?? 0);
    killed.kill('SIGKILL');
    await once(killed, 'exit');
    await writeFile(
      lockFileOf(w.globalFile),
      JSON.stringify({ pid: killed.pid, start, host: hostname(), nonce: 'killed' }),
    );
    const run = await w.cli(['config', 'disable', 's1']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await homeEntries(join(w.home, '.mcpx'))).toEqual(['mcp.json']);
  });

  it('held by a live process: the command waits, then says which process holds it and what to do', async () => {
    const w = await workspace();
    await writeFile(w.globalFile, HANDWRITTEN);
    const live = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await once(live, 'spawn');
    try {
      const start = await processStart(live.pid ?? 0);
      await writeFile(
        lockFileOf(w.globalFile),
        JSON.stringify({ pid: live.pid, start, host: hostname(), nonce: 'live' }),
      );
      const run = await w.cli(['config', 'disable', 's1']);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`~/.mcpx/mcp.json is being changed by another mcpx (process ${live.pid})`);
      expect(run.stderr).toContain(`end it (kill ${live.pid})`);
      expect(run.stderr).not.toContain('    at ');
      expect(await readFile(w.globalFile, 'utf8')).toBe(HANDWRITTEN);
    } finally {
      live.kill('SIGKILL');
      await once(live, 'exit');
    }
  }, 60_000);
});
