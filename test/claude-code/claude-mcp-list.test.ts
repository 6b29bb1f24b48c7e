/**
 * Claude Code's own CLI connects to the servers mcpx hands it (issue 14). Run by
 * `.ci/run` only (vitest.claude-code.config.ts), after
 * `npm install --prefix claude-code`: the package is ~370 MB, too heavy for `npm test`.
 *
 * `claude mcp list` health-checks the servers of `~/.claude.json` and `.mcp.json` but
 * ignores `--mcp-config`, so `mcpx exec` runs hand-to-claude.mjs, which gives each server
 * of the file mcpx wrote to `claude mcp add-json` and then runs `claude mcp list`. The
 * servers are added with `mcpx config add`: stdio, Streamable HTTP and HTTP+SSE test servers.
 *
 * `mcpx serve` itself, as a user adds it (`claude mcp add -s user mcpx -- mcpx serve`), over
 * nine real `npx -y` servers with an empty npm cache: Claude Code gives its tools/list a few
 * seconds, far less than nine cold installs take (issue 24, item 3).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpTestServer, startHttpTestServer } from '../../src/testing/http-test-server.js';
import { cliPath, repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { trackProcessTree } from '../helpers/processes.js';

const claude = process.env.CLAUDE_BIN ?? join(repoRoot, 'claude-code/node_modules/.bin/claude');
const handOver = join(repoRoot, 'test/claude-code/hand-to-claude.mjs');

let dir: { path: string; remove: () => Promise<void> };
const servers: HttpTestServer[] = [];
beforeAll(async () => {
  dir = await tempDir('mcpx-claude-code-');
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await dir.remove();
});

describe('Claude Code (claude mcp list)', () => {
  it('is installed in claude-code/ (npm install --prefix claude-code)', () => {
    expect(existsSync(claude), `${claude} is missing: run npm install --prefix claude-code`).toBe(true);
  });

  it('shows ✔ Connected for the stdio, HTTP and SSE servers mcpx exec hands it', async () => {
    const home = join(dir.path, 'home');
    const cwd = join(dir.path, 'repo');
    await mkdir(cwd, { recursive: true });
    const http = await startHttpTestServer({ era: 'both' });
    const sse = await startHttpTestServer({ era: 'sse' });
    servers.push(http, sse);
    const env = { CLAUDE_BIN: claude, TEST_TOKEN: 'sekrit' };
    const cli = (args: string[]) => runCli(args, { cwd, home, env, timeoutMs: 60_000 });
    for (const args of [
      ['config', 'add', 'local', '--env', `TOKEN=\${TEST_TOKEN}`, '--', process.execPath, testServerPath],
      ['config', 'add', 'remote', '--url', http.url, '--header', `X-Token: \${TEST_TOKEN}`],
      ['config', 'add', 'legacy', '--url', sse.url, '--type', 'sse'],
    ]) {
      const added = await cli(args);
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
    }

    const run = await cli(['exec', '--', process.execPath, handOver]);
    expect(run.stderr).toBe(
      'mcpx exec: handing 3 servers to node: local, remote, legacy\n' +
        'mcpx exec: left out: demo (built in: name it in --servers to hand it over)\n',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('strict: true');
    expect(run.stdout).toMatch(/^local: .* - ✔ Connected$/m);
    expect(run.stdout).toMatch(/^remote: .* - ✔ Connected$/m);
    expect(run.stdout).toMatch(/^legacy: .* - ✔ Connected$/m);
    expect(await readdir(join(home, '.mcpx', 'run'))).toEqual([]);
  });

  it('takes the hand-over where mcpx exec puts it: claude agents runs with it, claude mcp list without it', async () => {
    const home = join(dir.path, 'home-sub');
    const cwd = join(dir.path, 'repo-sub');
    await mkdir(cwd, { recursive: true });
    const cli = (args: string[]) => runCli(args, { cwd, home, timeoutMs: 60_000 });
    expect((await cli(['config', 'add', 'local', '--', process.execPath, testServerPath])).code).toBe(0);

    const agents = await cli(['exec', '--quiet', '--', claude, 'agents', '--json']);
    expect(agents.stderr).toBe('');
    expect(agents.code).toBe(0);
    expect(JSON.parse(agents.stdout)).toEqual([]);

    const list = await cli(['exec', '--', claude, 'mcp', 'list']);
    expect(list.stderr).not.toContain('unknown option');
    expect(list.stderr).toContain("'claude mcp' takes no --mcp-config");
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('No MCP servers configured');
  });

  it('shows ✔ Connected for the single entry config export --via-gateway writes (issue 25)', async () => {
    const root = join(dir.path, 'via-gateway');
    const home = join(root, 'home');
    const cwd = join(root, 'repo');
    for (const folder of [home, cwd]) await mkdir(folder, { recursive: true });
    const cli = (args: string[]) => runCli(args, { cwd, home, timeoutMs: 60_000 });
    expect((await cli(['config', 'add', 'local', '--', process.execPath, testServerPath])).code).toBe(0);
    expect((await cli(['config', 'export', '--to', 'claude-code', '--write'])).code).toBe(0);
    const exported = await cli([
      'config',
      'export',
      '--to',
      'claude-code',
      '--via-gateway',
      '--remove-copies',
      '--write',
    ]);
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toContain('removed 1 copy mcpx exported before: local');
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
    const list = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
      execFile(claude, ['mcp', 'list'], { cwd, env, timeout: 120_000 }, (_error, stdout, stderr) =>
        resolve({ stdout, stderr }),
      );
    });
    expect(list.stdout, list.stderr).toMatch(/^mcpx: .* - ✔ Connected$/m);
    expect(list.stdout).not.toMatch(/^local: /m);
  });

  it('shows ✔ Connected for mcpx serve over nine npx servers, with an empty npm cache', {
    timeout: 300_000,
  }, async () => {
    const root = join(dir.path, 'serve');
    const home = join(root, 'home');
    const cwd = join(root, 'repo');
    const files = join(root, 'files');
    const npmCache = join(root, 'npm-cache');
    for (const folder of [home, cwd, files, npmCache]) await mkdir(folder, { recursive: true });
    // Nine servers that start offline and without keys (checked by hand: each lists its tools).
    const packages: Record<string, string[]> = {
      memory: ['@modelcontextprotocol/server-memory'],
      everything: ['@modelcontextprotocol/server-everything'],
      filesystem: ['@modelcontextprotocol/server-filesystem', files],
      thinking: ['@modelcontextprotocol/server-sequential-thinking'],
      github: ['@modelcontextprotocol/server-github'],
      context7: ['@upstash/context7-mcp'],
      notion: ['@notionhq/notion-mcp-server'],
      playwright: ['@playwright/mcp'],
      chart: ['@antv/mcp-server-chart'],
    };
    const npmEnv = { npm_config_cache: npmCache, npm_config_update_notifier: 'false' };
    const config = join(root, 'mcp.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: Object.fromEntries(
          Object.entries(packages).map(([name, args]) => [
            name,
            { command: 'npx', args: ['-y', ...args], env: npmEnv },
          ]),
        ),
      }),
    );
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      MCPX_HOME: join(home, '.mcpx'),
      ...npmEnv,
    };
    const claudeRun = (args: string[]) =>
      new Promise<{ stdout: string; stderr: string; code: number }>((resolve) => {
        execFile(claude, args, { cwd, env, timeout: 120_000 }, (error, stdout, stderr) =>
          resolve({ stdout, stderr, code: error ? Number(error.code ?? 1) : 0 }),
        );
      });
    const servers = trackProcessTree(process.pid);
    try {
      const added = await claudeRun([
        'mcp',
        'add',
        '-s',
        'user',
        'mcpx',
        '--',
        process.execPath,
        cliPath,
        'serve',
        '--config',
        config,
      ]);
      expect(added.code, added.stderr).toBe(0);
      const started = Date.now();
      const list = await claudeRun(['mcp', 'list']);
      const took = Date.now() - started;
      expect(list.stdout, `claude mcp list took ${took} ms:\n${list.stdout}${list.stderr}`).toMatch(
        /^mcpx: .* - ✔ Connected$/m,
      );
      // The installs Claude Code left running when it ended the gateway finish and exit; none
      // may stay (npx installs cold in ~45 s here).
      const deadline = Date.now() + 180_000;
      while (servers.alive().length > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 500));
      expect(servers.alive().map((p) => `${p.pid} ${p.command}`)).toEqual([]);
    } finally {
      servers.stop();
    }
  });
});
