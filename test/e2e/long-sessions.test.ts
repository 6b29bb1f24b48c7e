import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestServer } from '../../src/testing/http-test-server.js';
import { type CliRun, type CliRunOptions, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { everythingPath, filesystemPath } from '../helpers/servers.js';

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let work: string;
let config: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-long-');
  home = join(dir.path, 'home');
  work = join(dir.path, 'work');
  await mkdir(home, { recursive: true });
  await mkdir(work, { recursive: true });
  config = join(dir.path, 'servers.json');
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everythingPath] } } }),
  );
});
afterAll(() => dir.remove());

const mcpx = (args: string[], extra: Partial<CliRunOptions> = {}): Promise<CliRun> =>
  runCli([...args, '--config', config], { cwd: work, home, timeoutMs: 60_000, ...extra });

describe('a tool that must run as a task (server-everything simulate-research-query)', () => {
  it('creates the task, shows its status under --verbose, and prints the fetched result', async () => {
    const run = await mcpx(['call', 'everything.simulate-research-query', 'topic=otters', '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('# Research Report: otters');
    expect(run.stderr).toMatch(/task \S+ working: Gathering sources/);
    expect(run.stderr).toMatch(/task \S+ completed/);
  }, 90_000);

  it('prints only the final result on stdout under --json', async () => {
    const run = await mcpx(['call', 'everything.simulate-research-query', 'topic=otters', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.content[0].text).toContain('# Research Report: otters');
    expect(result.task).toBeUndefined();
  }, 90_000);

  it('cancels the task on Ctrl-C (tasks/cancel, confirmed by the server) and exits 130', async () => {
    let sent = false;
    const run = await mcpx(['call', 'everything.simulate-research-query', 'topic=otters', '--verbose'], {
      onOutput: ({ stderr }, pid) => {
        if (!sent && /task \S+ working/.test(stderr)) {
          sent = true;
          process.kill(pid, 'SIGINT');
        }
      },
    });
    expect(sent).toBe(true);
    expect(run.code, run.stderr).toBe(130);
    // The status line after the interrupt is the server's answer to tasks/cancel.
    expect(run.stderr).toMatch(/task \S+ cancelled/);
    expect(run.stdout).toBe('');
  }, 90_000);

  it('still calls a tool that forbids tasks directly', async () => {
    const run = await mcpx(['call', 'everything.echo', 'message=plain']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('plain');
  }, 60_000);
});

describe('mcpx read --watch', () => {
  const counterConfig = async (protocol: 'legacy' | 'modern') => {
    const file = join(dir.path, `counter-${protocol}.json`);
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          counter: {
            command: process.execPath,
            args: [testServerPath],
            env: { MCPX_TEST_TICK_MS: '300' },
            protocol,
          },
        },
      }),
    );
    return file;
  };

  for (const protocol of ['legacy', 'modern'] as const) {
    it(`${protocol === 'legacy' ? '2025-11-25' : '2026-07-28'}: prints the resource, then each update, one JSON line per read, until Ctrl-C (130)`, async () => {
      const file = await counterConfig(protocol);
      let sent = false;
      const run = await runCli(['--config', file, 'read', 'counter', 'test://counter', '--watch', '--json'], {
        cwd: work,
        home,
        timeoutMs: 60_000,
        onOutput: ({ stdout }, pid) => {
          if (!sent && stdout.split('\n').filter(Boolean).length >= 4) {
            sent = true;
            process.kill(pid, 'SIGINT');
          }
        },
      });
      expect(sent, run.stderr).toBe(true);
      expect(run.code, run.stderr).toBe(130);
      const counts = run.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const result = JSON.parse(line) as { contents: { uri: string; text: string }[] };
          expect(result.contents[0]?.uri).toBe('test://counter');
          return Number(/^count (\d+)/.exec(result.contents[0]?.text ?? '')?.[1]);
        });
      expect(counts.length).toBeGreaterThanOrEqual(4);
      // Each read after the first was caused by an update, so the count never goes back. It may
      // repeat: an update that lands while a read is on its way is already in that read's answer,
      // and the read it causes sees the same count (seen on a loaded machine).
      for (let i = 1; i < counts.length; i++)
        expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1] as number);
      expect(counts.at(-1)).toBeGreaterThan(counts[0] as number);
    }, 60_000);
  }

  it('prints plain text reads without --json', async () => {
    const file = await counterConfig('modern');
    let sent = false;
    const run = await runCli(['--config', file, 'read', 'counter', 'test://counter', '--watch'], {
      cwd: work,
      home,
      timeoutMs: 60_000,
      onOutput: ({ stdout }, pid) => {
        if (!sent && stdout.split('\n').filter(Boolean).length >= 2) {
          sent = true;
          process.kill(pid, 'SIGINT');
        }
      },
    });
    expect(run.code, run.stderr).toBe(130);
    expect(run.stdout).toMatch(/^count \d+\ncount \d+\n/);
  }, 60_000);

  it('reports a server that dies mid-watch (exit 4, with why), after what it printed', async () => {
    const file = join(dir.path, 'dying.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          counter: {
            command: process.execPath,
            args: [testServerPath],
            env: { MCPX_TEST_FAULT: 'exit-after', MCPX_TEST_EXIT_AFTER_MS: '1500' },
          },
        },
      }),
    );
    const run = await runCli(
      ['--config', file, 'read', 'counter', 'test://counter', '--watch', '--verbose'],
      {
        cwd: work,
        home,
        timeoutMs: 60_000,
      },
    );
    expect(run.code, run.stderr).toBe(4);
    expect(run.stdout).toBe('count 0\n');
    expect(run.stderr).toContain("lost the connection to 'counter' while watching test://counter");
    expect(run.stderr).toContain('fatal: upstream connection lost');
  }, 60_000);

  it('refuses to watch on a server without subscriptions, saying what to do', async () => {
    const file = join(dir.path, 'files.json');
    await writeFile(
      file,
      JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [filesystemPath, work] } } }),
    );
    const run = await runCli(['--config', file, 'read', 'files', `file://${work}/x.txt`, '--watch'], {
      cwd: work,
      home,
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(5);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("'files' does not offer resource subscriptions");
  }, 60_000);
});

describe('--verbose shows what servers log, in both eras', () => {
  const hostile = 'disk \u001b[31mfull\u001b[0m \u009b2J now';
  const logLine = (stderr: string) => stderr.split('\n').find((line) => line.includes('[warning]'));

  it('a 2026-07-28 HTTP server: the log level rides on the request, the line is sanitized', async () => {
    const remote = await startHttpTestServer({ era: 'modern' });
    try {
      const args = ['--url', remote.url, 'call', 'log', `message=${hostile}`, 'level=warning'];
      const quiet = await runCli(args, { cwd: work, home });
      expect(quiet.code, quiet.stderr).toBe(0);
      expect(logLine(quiet.stderr)).toBeUndefined();

      const verbose = await runCli(['--verbose', ...args], { cwd: work, home });
      expect(verbose.code, verbose.stderr).toBe(0);
      expect(verbose.stdout).toBe('logged at warning\n');
      expect(logLine(verbose.stderr)).toBe('127-0-0-1 [warning] mcpx-test-server: disk full  now');
      expect(verbose.stderr).not.toMatch(/[\u001b\u009b]/);
    } finally {
      await remote.close();
    }
  }, 60_000);

  for (const protocol of ['modern', 'legacy'] as const) {
    it(`the stdio test server speaking ${protocol === 'modern' ? '2026-07-28' : '2025-11-25'}`, async () => {
      const file = join(dir.path, `log-${protocol}.json`);
      await writeFile(
        file,
        JSON.stringify({
          mcpServers: { t: { command: process.execPath, args: [testServerPath], protocol } },
        }),
      );
      const args = ['--config', file, 'call', 't.log', `message=${hostile}`, 'level=warning'];
      const quiet = await runCli(args, { cwd: work, home });
      expect(quiet.code, quiet.stderr).toBe(0);
      expect(logLine(quiet.stderr)).toBeUndefined();
      const verbose = await runCli(['--verbose', ...args], { cwd: work, home });
      expect(verbose.code, verbose.stderr).toBe(0);
      expect(logLine(verbose.stderr)).toBe('t [warning] mcpx-test-server: disk full  now');
    }, 60_000);
  }
});
