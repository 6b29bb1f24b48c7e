/**
 * `mcpx exec` (issue 14, item 5; seed 002 Part 5) through the built CLI, with a stub
 * agent (test/fixtures/exec-stub.mjs) that records its argv, the handed-over file and
 * its modes: the file holds the servers, 0600 in a 0700 folder, and is gone however
 * the command ends — exit, SIGINT to mcpx, a crash — and a killed mcpx's file is
 * removed by the next `mcpx exec`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { readProcess } from '../helpers/processes.js';
import { runInPty } from '../helpers/pty.js';

const stub = join(repoRoot, 'test/fixtures/exec-stub.mjs');

let dir: { path: string; remove: () => Promise<void> };
let count = 0;
beforeAll(async () => {
  dir = await tempDir('mcpx-exec-');
});
afterAll(() => dir.remove());

interface StubRecord {
  argv: string[];
  pid: number;
  file: string;
  contents: { mcpServers: Record<string, unknown> };
  fileMode: number;
  folderMode: number;
  stdin?: string;
  signal?: string;
  waiting?: boolean;
  line?: string;
  interrupts?: number;
}

const GLOBAL = {
  mcpServers: {
    local: { command: process.execPath, args: [testServerPath], env: { TOKEN: `\${EXEC_TOKEN}` } },
    remote: { url: 'https://example.com/mcp', headers: { Authorization: `Bearer \${EXEC_TOKEN}` } },
    sse: { type: 'sse', url: 'https://example.com/sse' },
    off: { command: 'never-run', enabled: false },
  },
};

async function workspace() {
  count += 1;
  const cwd = join(dir.path, `w${count}`, 'repo');
  const home = join(dir.path, `w${count}`, 'home');
  const record = join(dir.path, `w${count}`, 'record.json');
  await mkdir(cwd, { recursive: true });
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await writeFile(join(home, '.mcpx', 'mcp.json'), JSON.stringify(GLOBAL, null, 2));
  const env = (extra: Record<string, string> = {}) => ({
    EXEC_TOKEN: 'sekrit',
    STUB_RECORD: record,
    ...extra,
  });
  const runFolder = join(home, '.mcpx', 'run');
  const readRecord = async () => JSON.parse(await readFile(record, 'utf8')) as StubRecord;
  return { cwd, home, record, env, runFolder, readRecord };
}

describe('mcpx exec', () => {
  it('hands every enabled server over in Claude Code dialect, 0600 in 0700, and passes the exit code', async () => {
    const w = await workspace();
    const run = await runCli(['exec', '--', process.execPath, stub, 'chat', '--model', 'x'], {
      cwd: w.cwd,
      home: w.home,
      env: w.env({ STUB_EXIT: '7' }),
    });
    // Said before the agent starts: what it gets, and what it does not and why.
    expect(run.stderr).toBe(
      'mcpx exec: handing 3 servers to node: local, remote, sse\n' +
        'mcpx exec: left out: demo (built in: name it in --servers to hand it over), off (disabled)\n',
    );
    expect(run.stdout).toBe('stub ran\n');
    expect(run.code).toBe(7);
    const record = await w.readRecord();
    expect(record.argv).toEqual(['chat', '--model', 'x', '--mcp-config', record.file, '--strict-mcp-config']);
    expect(record.file.startsWith(join(w.runFolder, 'exec-'))).toBe(true);
    expect(record.fileMode).toBe(0o600);
    expect(record.folderMode).toBe(0o700);
    // Resolved values: the agent has no ${VAR} interpolation of its own.
    expect(record.contents).toEqual({
      mcpServers: {
        local: { type: 'stdio', command: process.execPath, args: [testServerPath], env: { TOKEN: 'sekrit' } },
        remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer sekrit' } },
        sse: { type: 'sse', url: 'https://example.com/sse' },
      },
    });
    expect(existsSync(record.file)).toBe(false);
    expect(await readdir(w.runFolder)).toEqual([]);
    // --quiet (and --json) leave stderr to the agent.
    for (const flag of ['--quiet', '--json']) {
      const quiet = await runCli(
        flag === '--json'
          ? [flag, 'exec', '--', process.execPath, stub]
          : ['exec', flag, '--', process.execPath, stub],
        { cwd: w.cwd, home: w.home, env: w.env() },
      );
      expect(quiet.code, flag).toBe(0);
      expect(quiet.stderr, flag).toBe('');
    }
  });

  it('--servers picks servers (the built-in demo only when named), --no-strict and --config-flag for other agents', async () => {
    const w = await workspace();
    const run = await runCli(
      [
        'exec',
        '--servers',
        'remote,demo',
        '--no-strict',
        '--config-flag',
        '--mcp',
        '--',
        process.execPath,
        stub,
      ],
      { cwd: w.cwd, home: w.home, env: w.env({ STUB_FLAG: '--mcp' }) },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'mcpx exec: handing 2 servers to node: remote, demo\n' +
        'mcpx exec: left out: local (not named in --servers), sse (not named in --servers), off (disabled)\n',
    );
    const record = await w.readRecord();
    expect(record.argv).toEqual(['--mcp', record.file]);
    expect(Object.keys(record.contents.mcpServers)).toEqual(['remote', 'demo']);
    expect(existsSync(record.file)).toBe(false);
  });

  it('a server that lists skills: one more entry, a skills-only mcpx serve over it; --no-skills leaves it out', async () => {
    const w = await workspace();
    const readLog = join(w.home, 'reads.log');
    const skillsServer = join(repoRoot, 'dist/testing/skills-server.js');
    await writeFile(
      join(w.home, '.mcpx', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          docs: {
            command: process.execPath,
            args: [skillsServer],
            env: { MCPX_TEST_SKILL_READ_LOG: readLog },
          },
          local: { command: process.execPath, args: [testServerPath] },
        },
      }),
    );
    const run = await runCli(['exec', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'mcpx exec: and their skills as one more server, mcpx (mcpx serve --skills-only: mcpx__load_skill, verified on every read), from docs\n',
    );
    const record = await w.readRecord();
    expect(Object.keys(record.contents.mcpServers)).toEqual(['docs', 'local', 'mcpx']);
    const entry = record.contents.mcpServers.mcpx as { command: string; args: string[] };
    expect(entry.command).toBe(process.execPath);
    expect(entry.args.slice(1)).toEqual(['serve', '--skills-only', '--servers', 'docs', '--allow', 'docs']);
    // Asking which servers have skills read no skill file.
    expect(await readFile(readLog, 'utf8').catch(() => '')).toBe('');

    const without = await runCli(['exec', '--no-skills', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env(),
    });
    expect(without.code, without.stderr).toBe(0);
    expect(without.stderr).not.toContain('skills');
    expect(Object.keys((await w.readRecord()).contents.mcpServers)).toEqual(['docs', 'local']);
  });

  it('refuses an unknown or disabled server before running anything', async () => {
    const w = await workspace();
    const unknown = await runCli(['exec', '--servers', 'locl', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env(),
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no server named 'locl' — did you mean 'local'?");
    const disabled = await runCli(['exec', '--servers', 'off', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env(),
    });
    expect(disabled.code).toBe(1);
    expect(disabled.stderr).toContain("server 'off' is disabled");
    expect(existsSync(w.record)).toBe(false);
  });

  it("a repository's server that is not approved is not handed over (without a terminal: skipped, with a notice)", async () => {
    const w = await workspace();
    await writeFile(
      join(w.cwd, '.mcp.json'),
      JSON.stringify({ mcpServers: { repo: { command: process.execPath, args: [testServerPath] } } }),
    );
    const run = await runCli(['exec', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env(),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("skipped server 'repo'");
    expect(run.stderr).toContain('mcpx config trust');
    expect(run.stderr).toContain(
      'mcpx exec: left out: demo (built in: name it in --servers to hand it over), off (disabled), ' +
        'repo (not trusted yet: review it, then `mcpx config trust`)\n',
    );
    expect(Object.keys((await w.readRecord()).contents.mcpServers)).toEqual(['local', 'remote', 'sse']);
    const named = await runCli(['exec', '--servers', 'repo', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env({ STUB_RECORD: join(w.cwd, 'never.json') }),
    });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain("server 'repo' comes from a project config that is not trusted yet");
    expect(existsSync(join(w.cwd, 'never.json'))).toBe(false);
  });

  it('passes stdin through', async () => {
    const w = await workspace();
    const run = await runCli(['exec', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env({ STUB_STDIN: '1' }),
      stdin: 'hello from the pipe\n',
    });
    expect(run.code).toBe(0);
    expect((await w.readRecord()).stdin).toBe('hello from the pipe\n');
  });

  it('SIGINT to mcpx reaches the command, the file goes, mcpx exits 130', async () => {
    const w = await workspace();
    let sent = false;
    const run = await runCli(['exec', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env({ STUB_MODE: 'wait' }),
      onOutput: ({ stdout }, pid) => {
        if (!sent && stdout.includes('stub ran')) {
          sent = true;
          process.kill(pid, 'SIGINT');
        }
      },
    });
    expect(sent).toBe(true);
    expect(run.code).toBe(130);
    const record = await w.readRecord();
    expect(record.signal).toBe('SIGINT');
    expect(existsSync(record.file)).toBe(false);
    expect(await readdir(w.runFolder)).toEqual([]);
  });

  it('SIGTERM to mcpx is passed on too; the exit is 128+15', async () => {
    const w = await workspace();
    let sent = false;
    const run = await runCli(['exec', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env({ STUB_MODE: 'wait' }),
      onOutput: ({ stdout }, pid) => {
        if (!sent && stdout.includes('stub ran')) {
          sent = true;
          process.kill(pid, 'SIGTERM');
        }
      },
    });
    expect(run.code).toBe(143);
    const record = await w.readRecord();
    expect(record.signal).toBe('SIGTERM');
    expect(existsSync(record.file)).toBe(false);
  });

  it('on a terminal: the command reads what is typed, sees one Ctrl-C as one, and the file goes', async () => {
    const w = await workspace();
    const term = runInPty(['exec', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env({ STUB_MODE: 'terminal' }),
    });
    await term.type('hello\r');
    await term.waitFor('press Ctrl-C');
    await term.type('\x03');
    const code = await term.exited;
    expect(term.text()).toContain('got: hello');
    expect(code).toBe(3);
    const record = await w.readRecord();
    expect(record.line).toBe('hello');
    expect(record.interrupts).toBe(1);
    expect(existsSync(record.file)).toBe(false);
  });

  it('a crash of the command (killed with -9) still removes the file; the exit is 128+9', async () => {
    const w = await workspace();
    let killed = false;
    const run = await runCli(['exec', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env({ STUB_MODE: 'wait' }),
      onOutput: async ({ stdout }) => {
        if (!killed && stdout.includes('stub ran')) {
          killed = true;
          process.kill((await w.readRecord()).pid, 'SIGKILL');
        }
      },
    });
    expect(killed).toBe(true);
    expect(run.code).toBe(137);
    expect(existsSync((await w.readRecord()).file)).toBe(false);
    expect(await readdir(w.runFolder)).toEqual([]);
  });

  it('the folder of an mcpx killed with -9 is removed by the next mcpx exec; a live one is kept', async () => {
    const w = await workspace();
    // An mcpx exec that will be killed -9 while its command waits.
    const mcpx = spawn(process.execPath, [cliPath, 'exec', '--', process.execPath, stub], {
      cwd: w.cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: w.home,
        MCPX_HOME: join(w.home, '.mcpx'),
        ...w.env({ STUB_MODE: 'wait' }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve) =>
      mcpx.stdout.on('data', (d: Buffer) => d.includes('stub ran') && resolve()),
    );
    const { pid: stubPid, file } = await w.readRecord();
    const exited = new Promise((resolve) => mcpx.once('exit', resolve));
    mcpx.kill('SIGKILL');
    await exited;
    // The orphaned command would linger: end it as a person would.
    process.kill(stubPid, 'SIGKILL');
    while (readProcess(stubPid) !== undefined && readProcess(stubPid)?.state !== 'Z')
      await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(file)).toBe(true);
    // A folder whose pid is alive but started at another time: a reused pid, so stale as well.
    const reused = join(w.runFolder, `exec-${process.pid}-1`);
    // A folder of a live process with its real start time: another mcpx exec still running.
    const live = join(w.runFolder, `exec-${process.pid}-${readProcess(process.pid)?.startTime}`);
    await mkdir(reused, { mode: 0o700 });
    await mkdir(live, { mode: 0o700 });

    const next = await runCli(['exec', '--', process.execPath, stub], {
      cwd: w.cwd,
      home: w.home,
      env: w.env(),
    });
    expect(next.code).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(reused)).toBe(false);
    expect(await readdir(w.runFolder)).toEqual([live.split('/').at(-1)]);
  });

  describe('where the flags go (issue 24, item 4)', () => {
    /** A `claude` on PATH that is the recording stub: mcpx knows Claude Code by its name. */
    async function claudeOnPath(w: Awaited<ReturnType<typeof workspace>>) {
      const bin = join(w.cwd, '..', 'bin');
      await mkdir(bin, { recursive: true });
      await writeFile(join(bin, 'claude'), `#!/bin/sh\nexec '${process.execPath}' '${stub}' "$@"\n`, {
        mode: 0o755,
      });
      return (args: string[], extra: Record<string, string> = {}) =>
        runCli(['exec', ...args], {
          cwd: w.cwd,
          home: w.home,
          env: w.env({ PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, ...extra }),
        });
    }

    it('claude -p …: the hand-over goes before the prompt, in one word, so the prompt stays a prompt', async () => {
      const w = await workspace();
      const exec = await claudeOnPath(w);
      const run = await exec(['--', 'claude', 'summarize the open issues', '-p', '--model', 'x']);
      expect(run.stderr).toContain('mcpx exec: handing 3 servers to claude: local, remote, sse\n');
      expect(run.code).toBe(0);
      const record = await w.readRecord();
      expect(record.argv).toEqual([
        `--mcp-config=${record.file}`,
        '--strict-mcp-config',
        'summarize the open issues',
        '-p',
        '--model',
        'x',
      ]);
      expect(Object.keys(record.contents.mcpServers)).toEqual(['local', 'remote', 'sse']);
      expect(existsSync(record.file)).toBe(false);
    });

    it('claude mcp list: nothing after its subcommand, a notice that no servers are handed over, its exit code', async () => {
      const w = await workspace();
      const exec = await claudeOnPath(w);
      const run = await exec(['--', 'claude', 'mcp', 'list'], { STUB_EXIT: '3' });
      expect(run.code).toBe(3);
      expect(run.stdout).toBe('stub ran\n');
      expect(run.stderr).toContain("'claude mcp' takes no --mcp-config");
      expect(run.stderr).toContain('no servers are handed over');
      const record = await w.readRecord();
      expect(record.argv).toEqual(['mcp', 'list']);
      expect(record.file).toBeUndefined();
      // No file of resolved secrets was written for a command that would not read it.
      expect(existsSync(w.runFolder) ? await readdir(w.runFolder) : []).toEqual([]);
    });

    it('claude agents takes the hand-over after its name (it dispatches sessions with it)', async () => {
      const w = await workspace();
      const exec = await claudeOnPath(w);
      const run = await exec(['--no-strict', '--', 'claude', 'agents', '--json']);
      expect(run.code).toBe(0);
      const record = await w.readRecord();
      expect(record.argv).toEqual(['agents', `--mcp-config=${record.file}`, '--json']);
    });

    it("another agent's own `--` ends its flags: the hand-over goes before it", async () => {
      const w = await workspace();
      const run = await runCli(
        ['exec', '--config-flag', '--mcp', '--', process.execPath, stub, 'run', '--', '--not-a-flag'],
        { cwd: w.cwd, home: w.home, env: w.env({ STUB_FLAG: '--mcp' }) },
      );
      expect(run.code).toBe(0);
      const record = await w.readRecord();
      expect(record.argv).toEqual(['run', '--mcp', record.file, '--strict-mcp-config', '--', '--not-a-flag']);
    });
  });

  it('a command that does not exist: an error naming it, and no file left', async () => {
    const w = await workspace();
    const run = await runCli(['exec', '--', 'no-such-agent-cli'], { cwd: w.cwd, home: w.home, env: w.env() });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('command not found: no-such-agent-cli');
    expect(await readdir(w.runFolder)).toEqual([]);
  });
});
