/**
 * A library agent's skills (`host.agentTools()`): the consent a person gives before the model
 * sees a server's tools covers its skills, each bound to its manifest's fingerprint.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/index.js';
import {
  type ConnectQuestion,
  createPermissionGuard,
  scriptedApprover,
} from '../../src/permissions/index.js';
import { type ListedSkill, skillAction } from '../../src/skills/index.js';
import { repoRoot, tempDir } from '../helpers/cli.js';

const skillsServer = join(repoRoot, 'dist/testing/skills-server.js');
let dir: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  dir = await tempDir('mcpx-agent-skills-');
  await writeFile(
    join(dir.path, 'mcp.json'),
    JSON.stringify({ mcpServers: { docs: { command: process.execPath, args: [skillsServer] } } }),
  );
});
afterAll(() => dir.remove());

describe('host.agentTools() and skills', () => {
  it("puts the server's skills, with their manifests' fingerprints, in the consent question; an approval lets them load unasked", async () => {
    const approver = scriptedApprover({ connect: ['allow-all'] });
    const host = createHost({
      cwd: dir.path,
      homedir: dir.path,
      env: { PATH: process.env.PATH ?? '', MCPX_HOME: join(dir.path, '.mcpx') },
      configFile: join(dir.path, 'mcp.json'),
      permission: 'trusted',
      omitBuiltinWhenConfigured: true,
      ask: { who: 'a test', approver },
    });
    try {
      const listed = await host.skills().list();
      const pdf = listed.skills.find((s) => s.id === 'docs.pdf-processing') as ListedSkill;
      const tools = await host.agentTools();
      expect(approver.asked.map((a) => a.kind)).toEqual(['connect']);
      const offered = (approver.asked[0]?.question as ConnectQuestion | undefined)?.tools ?? [];
      expect(offered.map((t) => t.name)).toEqual(['skill:pdf-processing', 'skill:release-notes']);
      expect(offered[0]?.description).toContain(pdf.fingerprint);
      expect(tools.tools.map((t) => t.name)).toEqual(['load_skill', 'read_skill_file']);
      const loaded = await tools.call('load_skill', { skill: 'docs.pdf-processing' });
      expect(loaded.isError).toBe(false);
      expect(loaded.text).toContain("SKILL.md of skill 'docs.pdf-processing', served by MCP server 'docs'");
      const file = await tools.call('read_skill_file', {
        skill: 'docs.pdf-processing',
        path: 'references/FORMS.md',
      });
      expect(file.text).toContain('Fill each field in order.');
      // Nothing more was asked: the connect approval covered these manifests.
      expect(approver.asked).toHaveLength(1);
      tools.close();
    } finally {
      await host.close();
    }
  });

  it('a skill whose manifest changed since it was approved is asked about again', async () => {
    const approver = scriptedApprover({ connect: ['allow-all'], changed: ['deny'] });
    const guard = createPermissionGuard({ level: 'trusted', approver });
    const skill = (digest: string) =>
      ({
        server: 'docs',
        name: 'notes',
        id: 'docs.notes',
        description: 'Notes',
        uri: 'skill://notes/SKILL.md',
        files: [],
        fingerprint: digest.repeat(64),
        entry: {} as ListedSkill['entry'],
      }) satisfies ListedSkill;
    await guard.consent({ server: 'docs', tools: [skillAction(skill('a'))] });
    await guard.check({ server: 'docs', tool: skillAction(skill('a')), args: {} });
    await expect(guard.check({ server: 'docs', tool: skillAction(skill('b')), args: {} })).rejects.toThrow(
      /definition changed since it was approved/,
    );
    expect(approver.asked.map((a) => a.kind)).toEqual(['connect', 'changed']);
  });
});
