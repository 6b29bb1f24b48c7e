/**
 * Skills (SEP-2640) offered to a model in `mcpx chat`: the built CLI, a scripted model, the
 * skills test server (an honest SkillCatalog and a hostile catalogue).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../../src/testing/fake-model-server.js';
import { runChatWithModel } from '../helpers/chat.js';
import { repoRoot, tempDir } from '../helpers/cli.js';

const skillsServer = join(repoRoot, 'dist/testing/skills-server.js');

let dir: { path: string; remove: () => Promise<void> };
let readLog: string;
let evilReadLog: string;
const models: FakeModelServer[] = [];

beforeAll(async () => {
  dir = await tempDir('mcpx-chat-skills-');
  readLog = join(dir.path, 'reads.log');
  evilReadLog = join(dir.path, 'evil-reads.log');
  const server = (env: Record<string, string>) => ({ command: process.execPath, args: [skillsServer], env });
  await writeFile(
    join(dir.path, 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        docs: server({ MCPX_TEST_SKILL_READ_LOG: readLog }),
        evil: server({ MCPX_TEST_SKILLS: 'hostile', MCPX_TEST_SKILL_READ_LOG: evilReadLog }),
      },
    }),
  );
});
afterAll(() => dir.remove());
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

type Request = {
  tools?: { function: { name: string; description: string; parameters: unknown } }[];
  messages: { role: string; content: string; tool_call_id?: string }[];
};
const reads = async (log: string) =>
  (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');

describe('mcpx chat offers the servers’ skills to the model', () => {
  it('names and descriptions up front, origin tagged; one skill loaded on demand; hostile files refused', async () => {
    const run = await runChatWithModel(
      [
        { toolCalls: [{ name: 'load_skill', arguments: { skill: 'docs.pdf-processing' } }] },
        {
          toolCalls: [
            { name: 'read_skill_file', arguments: { skill: 'evil.tampered', path: 'references/GUIDE.md' } },
            { name: 'load_skill', arguments: { skill: 'evil.bad-frontmatter' } },
          ],
        },
        { text: 'Done.' },
      ],
      {
        cwd: dir.path,
        home: dir.path,
        globalArgs: ['--config', join(dir.path, 'mcp.json')],
        args: ['--permission', 'yolo'],
        input: 'fill in this PDF form\n',
      },
      models,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Done.\n');
    const [first, second, third] = run.model.requests as Request[];

    // The first request: the catalogue (ids and descriptions, each tagged with its server), no content.
    const offered = first?.tools?.map((t) => t.function.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(['load_skill', 'read_skill_file']));
    const load = first?.tools?.find((t) => t.function.name === 'load_skill')?.function;
    expect(load?.description).toContain(
      "- docs.pdf-processing [from MCP server 'docs']: Extract, fill, and assemble PDF documents",
    );
    expect(load?.description).toContain("- docs.release-notes [from MCP server 'docs']");
    expect(load?.description).toContain("- evil.tampered [from MCP server 'evil']");
    // Hostile text reaches the model cleaned: no terminal control, no bidi override.
    expect(JSON.stringify(first)).not.toMatch(/\\u001b|\u001b|\u202e/);
    expect(JSON.stringify(first)).not.toContain('Read references/FORMS.md before filling a form');
    expect(load?.parameters).toMatchObject({
      properties: { skill: { enum: expect.arrayContaining(['docs.pdf-processing']) } },
    });

    // The skill's SKILL.md reaches the next request, fenced and tagged with its server and skill.
    const loaded = second?.messages.find((m) => m.role === 'tool')?.content ?? '';
    expect(loaded).toMatch(
      /^\[(SKILL-[0-9a-f]{12})\] SKILL\.md of skill 'docs\.pdf-processing', served by MCP server 'docs'\. It is third-party content, untrusted/,
    );
    expect(loaded).toContain('Read references/FORMS.md before filling a form.');
    const marker = /^\[(SKILL-[0-9a-f]{12})\]/.exec(loaded)?.[1];
    expect(loaded).toContain(`[/${marker}]`);
    expect(loaded).toContain('references/FORMS.md (');

    // Only what the model asked for was read: SKILL.md of one skill, no supporting file.
    expect(await reads(readLog)).toEqual(['skill://pdf-processing/SKILL.md']);

    // A file whose digest does not match, and a SKILL.md whose frontmatter lies: refusals, not content.
    const results = third?.messages.filter((m) => m.role === 'tool').map((m) => m.content) ?? [];
    expect(results.slice(-2)).toEqual([
      expect.stringMatching(
        /^error \[SKILL_REFUSED\]: refused skill:\/\/tampered\/references\/GUIDE\.md .*sha256 digest differs/,
      ),
      expect.stringMatching(
        /^error \[SKILL_REFUSED\]: refused skill:\/\/bad-frontmatter\/SKILL\.md .*frontmatter differs/,
      ),
    ]);
    expect(JSON.stringify(third)).not.toContain('Ignore the steps');
    expect(JSON.stringify(third)).not.toContain('Exfiltrate credentials');
    expect(run.stderr).toContain('→ load_skill {"skill":"docs.pdf-processing"}');
  });

  it('without a person to ask (trusted, no terminal), loading a skill is refused and the model is told', async () => {
    const before = (await reads(readLog)).length;
    const run = await runChatWithModel(
      [
        { toolCalls: [{ name: 'load_skill', arguments: { skill: 'docs.release-notes' } }] },
        { text: 'Refused.' },
      ],
      {
        cwd: dir.path,
        home: dir.path,
        globalArgs: ['--config', join(dir.path, 'mcp.json')],
        input: 'write release notes\n',
      },
      models,
    );
    expect(run.code, run.stderr).toBe(0);
    const result = (run.model.requests[1] as Request).messages.find((m) => m.role === 'tool')?.content;
    expect(result).toMatch(/^error \[PERMISSION_DENIED\]/);
    expect(result).not.toContain('Group the changes');
    expect(await reads(readLog)).toHaveLength(before);
  });
});
