import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, repoRoot, runCli, tempDir } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';

// Skills (SEP-2640) through the built CLI, against the SDK's server side (skills-server.ts):
// an honest SkillCatalog ('docs', and 'mirror', which serves the same skill names) and a
// hostile catalogue ('evil') that lies in every way a host must refuse.
const skillsServer = join(repoRoot, 'dist/testing/skills-server.js');
const ESC = '\u001b';

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let work: string;
let readLog: string;
let evilReadLog: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-skills-');
  home = join(dir.path, 'home');
  work = join(dir.path, 'work');
  readLog = join(dir.path, 'reads.log');
  evilReadLog = join(dir.path, 'evil-reads.log');
  await mkdir(home, { recursive: true });
  await mkdir(work, { recursive: true });
  const server = (env: Record<string, string>) => ({ command: process.execPath, args: [skillsServer], env });
  await writeFile(
    join(dir.path, 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        docs: server({ MCPX_TEST_SKILL_READ_LOG: readLog }),
        mirror: server({}),
        evil: server({ MCPX_TEST_SKILLS: 'hostile', MCPX_TEST_SKILL_READ_LOG: evilReadLog }),
        // The same hostile catalogue on the 2025-11-25 wire (the others negotiate 2026-07-28).
        old: { ...server({ MCPX_TEST_SKILLS: 'hostile' }), protocol: 'legacy' },
      },
    }),
  );
});
afterAll(() => dir.remove());

const mcpx = (args: string[], cwd = work): Promise<CliRun> =>
  runCli(['--config', join(dir.path, 'mcp.json'), ...args], { cwd, home });
const reads = async (log = readLog) =>
  (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
/** The run's output has no terminal control of the server's. */
const clean = (run: CliRun) => {
  expect(run.stdout).not.toContain(ESC);
  expect(run.stderr).not.toContain(ESC);
  expect(run.stdout + run.stderr).not.toContain('\u202e');
};

describe('mcpx skills', () => {
  it("lists every server's skills with descriptions and reads no skill file", async () => {
    const before = (await reads()).length;
    const run = await mcpx(['skills']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('docs (2 skills)');
    expect(run.stdout).toMatch(/pdf-processing\s+Extract, fill, and assemble PDF documents/);
    expect(run.stdout).toMatch(/release-notes\s+Write release notes/);
    // The same name on two servers: each kept under its own server, neither shadows the other.
    expect(run.stdout).toContain('mirror (2 skills)');
    expect(await reads()).toHaveLength(before);
    clean(run);
  });

  it('gives the manifest as JSON: ids per server, files with sizes and digests, fingerprints', async () => {
    const run = await mcpx(['skills', 'docs', '--json']);
    expect(run.code).toBe(0);
    const { skills, refused } = JSON.parse(run.stdout);
    expect(refused).toEqual([]);
    const pdf = skills.find((s: { name: string }) => s.name === 'pdf-processing');
    expect(pdf).toMatchObject({
      server: 'docs',
      id: 'docs.pdf-processing',
      uri: 'skill://pdf-processing/SKILL.md',
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(pdf.files.map((f: { path: string }) => f.path)).toEqual([
      'SKILL.md',
      'references/FORMS.md',
      'scripts/count-pages.sh',
    ]);
    expect(pdf.files[1]).toMatchObject({ size: 35, digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
  });

  it("refuses a hostile server's invalid entries, saying why, and never prints their controls", async () => {
    const run = await mcpx(['skills', 'evil']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/evil \(5 skills\)/);
    expect(run.stdout).toContain('sneaky  Harmless');
    expect(run.stdout).toContain('<U+202E>');
    expect(run.stderr).toContain("'evil' listed a skill mcpx refused (skill://no-description/SKILL.md)");
    expect(run.stderr).toContain(
      'frontmatter name "other-name" must match the last path segment "wrong-name"',
    );
    expect(run.stderr).toContain('is outside the skill directory skill://escape');
    expect(run.stderr).toContain('skill://evil%1B%5B2J/SKILL.md');
    clean(run);
    const json = JSON.parse((await mcpx(['skills', 'evil', '--json'])).stdout);
    expect(json.refused.map((r: { uri: string }) => r.uri)).toEqual([
      'skill://no-description/SKILL.md',
      'skill://wrong-name/SKILL.md',
      'skill://escape/SKILL.md',
      'skill://evil%1B%5B2J/SKILL.md',
      'skill://bidi/SKILL.md',
    ]);
  });
});

describe('mcpx skill', () => {
  it('loads one skill: its SKILL.md, verified, and its file list; no other file is read', async () => {
    const before = (await reads()).length;
    const run = await mcpx(['skill', 'docs.pdf-processing']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("# docs.pdf-processing (from 'docs', verified)");
    expect(run.stdout).toContain('Read references/FORMS.md before filling a form.');
    expect(run.stdout).toMatch(/references\/FORMS\.md\s+35 bytes/);
    expect((await reads()).slice(before)).toEqual(['skill://pdf-processing/SKILL.md']);
  });

  it('reads a supporting file after its SKILL.md verifies, and --json says it was verified', async () => {
    const run = await mcpx(['skill', 'docs.pdf-processing', 'references/FORMS.md']);
    expect(run).toMatchObject({ code: 0, stdout: '# Forms\n\nFill each field in order.\n' });
    const json = JSON.parse(
      (await mcpx(['skill', 'docs.pdf-processing', 'references/FORMS.md', '--json'])).stdout,
    );
    expect(json).toMatchObject({
      skill: 'docs.pdf-processing',
      path: 'references/FORMS.md',
      uri: 'skill://pdf-processing/references/FORMS.md',
      verified: true,
      text: '# Forms\n\nFill each field in order.\n',
    });
  });

  it('shows a skill as JSON: frontmatter, body, files and fingerprint', async () => {
    const run = await mcpx(['skill', 'mirror.release-notes', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      server: 'mirror',
      id: 'mirror.release-notes',
      frontmatter: {
        name: 'release-notes',
        description: 'Write release notes from a list of merged changes',
      },
      body: '\nGroup the changes by kind, newest first.\n',
    });
  });

  // Each hostile variant: refused with SKILL_REFUSED (exit 5), naming the server, the skill, the file and why.
  it.each([
    [
      'a digest that does not match',
      ['evil.tampered', 'references/GUIDE.md'],
      'skill://tampered/references/GUIDE.md',
      /sha256 digest differs.*the skill entry lists sha256:/,
    ],
    [
      'a size that does not match',
      ['evil.oversize', 'references/GUIDE.md'],
      'skill://oversize/references/GUIDE.md',
      /size differs.*is 69 bytes; the skill entry lists 18/,
    ],
    [
      'frontmatter that differs from the entry',
      ['evil.bad-frontmatter'],
      'skill://bad-frontmatter/SKILL.md',
      /frontmatter differs.*SKILL.md has "Exfiltrate credentials"/,
    ],
    [
      'a file the skill does not list',
      ['evil.pdf-processing', 'scripts/secret.sh'],
      'skill://pdf-processing/scripts/secret.sh',
      /does not list this file/,
    ],
    [
      'a path out of the skill',
      ['evil.pdf-processing', '../tampered/SKILL.md'],
      'skill://pdf-processing/tampered/SKILL.md',
      /does not list this file/,
    ],
  ])('refuses %s', async (_what, args, file, why) => {
    const run = await mcpx(['skill', ...args]);
    expect(run.code).toBe(5);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`refused ${file} of skill '${(args[0] as string).split('.')[1]}' on 'evil'`);
    expect(run.stderr).toMatch(why);
    const json = JSON.parse((await mcpx(['skill', ...args, '--json'])).stderr);
    expect(json.error).toMatchObject({ code: 'SKILL_REFUSED', server: 'evil', skillFile: file });
  });

  it('verifies the same on the 2025-11-25 wire', async () => {
    const listed = JSON.parse((await mcpx(['skills', 'old', '--json'])).stdout);
    expect(listed.skills.map((s: { id: string }) => s.id)).toContain('old.tampered');
    expect(listed.refused).toHaveLength(5);
    expect((await mcpx(['skill', 'old.pdf-processing', 'references/FORMS.md'])).code).toBe(0);
    const tampered = await mcpx(['skill', 'old.tampered', 'references/GUIDE.md']);
    expect(tampered.code).toBe(5);
    expect(tampered.stderr).toContain(
      "refused skill://tampered/references/GUIDE.md of skill 'tampered' on 'old'",
    );
    const servers = JSON.parse((await mcpx(['list', '--json'])).stdout);
    // Only 'old' is pinned to the 2025-11-25 wire; the other servers' era is the probe's to choose.
    expect(servers.find((s: { name: string }) => s.name === 'old')).toMatchObject({ protocol: '2025-11-25' });
  });

  it('never reads a supporting file of a skill whose SKILL.md fails verification, however honest the file', async () => {
    const before = (await reads(evilReadLog)).length;
    const run = await mcpx(['skill', 'evil.bad-frontmatter', 'references/NOTES.md']);
    expect(run.code).toBe(5);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      "refused skill://bad-frontmatter/SKILL.md of skill 'bad-frontmatter' on 'evil'",
    );
    expect((await reads(evilReadLog)).slice(before)).toEqual(['skill://bad-frontmatter/SKILL.md']);
  });

  it('refuses a skill whose entry was refused, saying why, and one the server does not list', async () => {
    const refused = await mcpx(['skill', 'evil.wrong-name']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("'evil' lists skill 'wrong-name', but mcpx refused its entry");
    const unknown = await mcpx(['skill', 'docs.nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("'docs' has no skill 'nope'");
  });

  it('shows a description with terminal controls cleaned', async () => {
    const run = await mcpx(['skill', 'evil.sneaky', '--json']);
    expect(run.code).toBe(0);
    // JSON keeps the server's text, every control escaped.
    expect(JSON.parse(run.stdout).description).toContain(`${ESC}]0;pwned`);
    clean(run);
  });
});

describe('skills and trust', () => {
  it("lists no skill of an untrusted project's server until it is trusted", async () => {
    const project = join(dir.path, 'project');
    await mkdir(project, { recursive: true });
    await writeFile(
      join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { local: { command: process.execPath, args: [skillsServer] } } }),
    );
    const run = (args: string[]) => runCli(args, { cwd: project, home });
    const before = await run(['skills', '--json']);
    expect(JSON.parse(before.stdout).skills.filter((s: { server: string }) => s.server === 'local')).toEqual(
      [],
    );
    expect((await run(['skill', 'local.pdf-processing'])).code).not.toBe(0);
    expect((await run(['config', 'trust', '--yes'])).code).toBe(0);
    const after = await run(['skills', '--json']);
    expect(JSON.parse(after.stdout).skills.map((s: { id: string }) => s.id)).toContain(
      'local.pdf-processing',
    );
  });
});

describe('mcpx shell /skills', () => {
  it('lists skills, shows one and reads one of its files, at a terminal, with controls cleaned', async () => {
    const term = runInPty(['--config', join(dir.path, 'mcp.json'), 'shell'], { cwd: work, home });
    try {
      await term.waitFor('mcpx> ');
      await term.type('/skills evil\r');
      await term.waitFor('sneaky  Harmless');
      await term.type('/skills docs.pdf-processing references/FORMS.md\r');
      await term.waitFor('Fill each field in order.');
      await term.type('/skills evil.tampered references/GUIDE.md\r');
      await term.waitFor("refused skill://tampered/references/GUIDE.md of skill 'tampered' on 'evil'");
      await term.type('\x04');
      expect(await term.exited).toBe(0);
      expect(term.raw()).not.toContain(`${ESC}]0;pwned`);
      expect(term.raw()).not.toContain('\u202e');
    } finally {
      term.kill();
      await term.exited;
    }
  });
});

describe('skills and the keep-alive daemon', () => {
  it('lists and reads, verified, the skills of a server the daemon holds', async () => {
    const config = join(dir.path, 'keep-alive.json');
    const warmLog = join(dir.path, 'warm-reads.log');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          warm: {
            command: process.execPath,
            args: [skillsServer],
            env: { MCPX_TEST_SKILL_READ_LOG: warmLog },
            keep_alive: true,
          },
          hot: {
            command: process.execPath,
            args: [skillsServer],
            env: { MCPX_TEST_SKILLS: 'hostile' },
            keep_alive: true,
          },
        },
      }),
    );
    const cli = (args: string[]) => runCli(['--config', config, ...args], { cwd: work, home });
    try {
      const held = await cli(['skills', 'warm']);
      expect(held.stderr).toBe('');
      expect(held.code).toBe(0);
      expect(held.stdout).toContain('warm (2 skills)');
      expect(await reads(warmLog)).toEqual([]);
      const file = await cli(['skill', 'warm.pdf-processing', 'references/FORMS.md']);
      expect(file.code, file.stderr).toBe(0);
      expect(file.stdout).toContain('Fill each field in order.');
      // A lying file is refused (at the daemon, which verifies before it passes anything on).
      const tampered = await cli(['skill', 'hot.tampered', 'references/GUIDE.md']);
      expect(tampered.code).toBe(5);
      expect(tampered.stderr).toMatch(/sha256 digest differs/);
      expect(tampered.stdout).not.toContain('Ignore');
      // It was the daemon that held them.
      expect((await cli(['daemon', 'status'])).stdout).toContain('warm');
    } finally {
      await cli(['daemon', 'stop']);
    }
  });
});
