/**
 * Issue 40, item 4, with the real Claude Code CLI: Claude Code has no MCP skills of its own, and
 * through the entry `mcpx config export --via-gateway` writes (`mcpx serve`), or the skills entry
 * plain `mcpx exec -- claude` adds (`mcpx serve --skills-only`), its model is offered
 * `mcpx__load_skill`, whose description is the servers' skill catalogue, loads a skill, and gets
 * its `SKILL.md` verified and tagged with its origin. The model is the scripted fake of the
 * Anthropic Messages API (test/helpers/fake-anthropic.ts), which records what Claude Code sends.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, tempDir } from '../helpers/cli.js';
import { type AnthropicReply, type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.js';
import { trackProcessTree } from '../helpers/processes.js';

const claude = process.env.CLAUDE_BIN ?? join(repoRoot, 'claude-code/node_modules/.bin/claude');
const skillsServer = join(repoRoot, 'dist/testing/skills-server.js');
const testServer = join(repoRoot, 'dist/testing/test-server.js');

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('mcpx-claude-skills-');
});
afterAll(async () => {
  await dir.remove();
});

async function runClaude(
  home: string,
  cwd: string,
  args: readonly string[],
  script: readonly AnthropicReply[],
): Promise<{ model: FakeAnthropic; stdout: string; stderr: string; code: number }> {
  const model = await startFakeAnthropic(script);
  try {
    const run = await new Promise<{ stdout: string; stderr: string; code: number }>((resolve) => {
      execFile(
        claude,
        args,
        {
          cwd,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: home,
            ANTHROPIC_BASE_URL: model.baseUrl,
            ANTHROPIC_API_KEY: 'test-key',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
            MCP_CONNECTION_NONBLOCKING: '0',
          },
          timeout: 120_000,
        },
        (error, stdout, stderr) => resolve({ stdout, stderr, code: error ? Number(error.code ?? 1) : 0 }),
      );
    });
    return { model, ...run };
  } finally {
    await model.close();
  }
}

describe('Claude Code and MCP skills through mcpx', () => {
  it('offers the model mcpx__load_skill with the catalogue; a loaded skill comes back tagged', {
    timeout: 300_000,
  }, async () => {
    const started = trackProcessTree(process.pid);
    try {
      const home = join(dir.path, 'home');
      const cwd = join(dir.path, 'repo');
      for (const folder of [home, cwd]) await mkdir(folder, { recursive: true });
      const readLog = join(dir.path, 'reads.log');
      const cli = (args: string[]) => runCli(args, { cwd, home, timeoutMs: 60_000 });
      for (const args of [
        [
          'config',
          'add',
          'docs',
          '--env',
          `MCPX_TEST_SKILL_READ_LOG=${readLog}`,
          '--',
          process.execPath,
          skillsServer,
        ],
        ['config', 'export', '--to', 'claude-code', '--via-gateway', '--write'],
      ]) {
        const run = await cli(args);
        expect(run.stderr, args.join(' ')).toBe('');
        expect(run.code).toBe(0);
      }
      // The person lets agents use their servers without asking (Claude Code asks no form of mcpx).
      const where = join(home, '.mcpx', 'mcp.json');
      const config = JSON.parse(await readFile(where, 'utf8')) as Record<string, unknown>;
      await writeFile(where, JSON.stringify({ ...config, permission: 'yolo' }));

      const run = await runClaude(
        home,
        cwd,
        ['-p', 'fill in this PDF form', '--allowedTools', 'mcp__mcpx'],
        [
          // Claude Code defers MCP tools: the model loads one by name, then calls it.
          { tool: 'ToolSearch', input: { query: 'select:mcp__mcpx__mcpx__load_skill', max_results: 5 } },
          { tool: 'mcp__mcpx__mcpx__load_skill', input: { skill: 'docs.pdf-processing' } },
          { text: 'done' },
        ],
      );
      expect(run.code, run.stderr).toBe(0);
      const requests = run.model.requests;
      expect(requests).toHaveLength(3);
      // The tool's description, as Claude Code gave it to the model: the catalogue, origin tagged.
      expect(JSON.stringify(requests[1])).toContain(
        "- docs.pdf-processing [from MCP server 'docs']: Extract, fill, and assemble PDF documents",
      );
      const answer = JSON.stringify(requests[2]?.messages.at(-1)?.content);
      expect(answer).toMatch(/SKILL\.md of skill 'docs\.pdf-processing', served by MCP server 'docs'/);
      expect(answer).toContain('Read references/FORMS.md before filling a form.');
      // Nothing but the SKILL.md the model asked for was read.
      expect((await readFile(readLog, 'utf8')).split('\n').filter(Boolean)).toEqual([
        'skill://pdf-processing/SKILL.md',
      ]);
      const until = Date.now() + 60_000;
      while (started.alive().length > 0 && Date.now() < until) await delay(250);
      expect(started.alive().map((p) => `${p.pid} ${p.command}`)).toEqual([]);
    } finally {
      started.stop();
    }
  });

  it('plain mcpx exec -- claude: the servers as they are, and their skills through one skills-only entry', {
    timeout: 300_000,
  }, async () => {
    const started = trackProcessTree(process.pid);
    try {
      const home = join(dir.path, 'exec-home');
      const cwd = join(dir.path, 'exec-repo');
      for (const folder of [home, cwd]) await mkdir(folder, { recursive: true });
      const readLog = join(dir.path, 'exec-reads.log');
      const cli = (args: string[]) => runCli(args, { cwd, home, timeoutMs: 60_000 });
      const added = await cli([
        'config',
        'add',
        'docs',
        '--env',
        `MCPX_TEST_SKILL_READ_LOG=${readLog}`,
        '--',
        process.execPath,
        skillsServer,
      ]);
      expect(added.stderr).toBe('');
      const plain = await cli(['config', 'add', 'tools', '--', process.execPath, testServer]);
      expect(plain.stderr).toBe('');
      // No `permission` set: the default level, where Claude Code's own prompt for the call is the consent.
      const model = await startFakeAnthropic([
        { tool: 'ToolSearch', input: { query: 'select:mcp__mcpx__mcpx__load_skill', max_results: 5 } },
        { tool: 'mcp__mcpx__mcpx__load_skill', input: { skill: 'docs.pdf-processing' } },
        { text: 'done' },
      ]);
      let run: Awaited<ReturnType<typeof runCli>>;
      try {
        run = await runCli(
          ['exec', '--', claude, '-p', 'fill in this PDF form', '--allowedTools', 'mcp__mcpx,mcp__docs'],
          {
            cwd,
            home,
            timeoutMs: 180_000,
            env: {
              ANTHROPIC_BASE_URL: model.baseUrl,
              ANTHROPIC_API_KEY: 'test-key',
              CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
              DISABLE_AUTOUPDATER: '1',
              MCP_CONNECTION_NONBLOCKING: '0',
            },
          },
        );
      } finally {
        await model.close();
      }
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('mcpx exec: handing 2 servers to claude: docs, tools');
      expect(run.stderr).toContain('as one more server, mcpx (mcpx serve --skills-only');
      const requests = model.requests;
      expect(requests).toHaveLength(3);
      const first = JSON.stringify(requests[0]);
      // The servers are handed over as they are (their own tools, under their own names)…
      expect(first).toContain('mcp__tools__echo');
      // …and the skills entry offers the pair and nothing of theirs: no tool seen twice.
      expect(first).toContain('mcp__mcpx__mcpx__load_skill');
      expect(first).not.toMatch(/mcp__mcpx__tools__|mcp__mcpx__docs__/);
      expect(JSON.stringify(requests[1])).toContain(
        "- docs.pdf-processing [from MCP server 'docs']: Extract, fill, and assemble PDF documents",
      );
      const answer = JSON.stringify(requests[2]?.messages.at(-1)?.content);
      expect(answer).toMatch(/SKILL\.md of skill 'docs\.pdf-processing', served by MCP server 'docs'/);
      expect(answer).toContain('Read references/FORMS.md before filling a form.');
      // Listing read no file (exec's check before the start included); the load read its SKILL.md alone.
      expect((await readFile(readLog, 'utf8')).split('\n').filter(Boolean)).toEqual([
        'skill://pdf-processing/SKILL.md',
      ]);
      // The hand-over file is gone.
      expect(await readdir(join(home, '.mcpx', 'run')).catch(() => [])).toEqual([]);
      const until = Date.now() + 60_000;
      while (started.alive().length > 0 && Date.now() < until) await delay(250);
      expect(started.alive().map((p) => `${p.pid} ${p.command}`)).toEqual([]);
    } finally {
      started.stop();
    }
  });
});
