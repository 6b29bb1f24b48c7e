import type { Skill, SkillFile } from '@modelcontextprotocol/client/ext/skills';
import { describe, expect, it } from 'vitest';
import type { ServerConnection } from '../../../src/client/index.js';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';
import { createHostSkills, skillFingerprint } from '../../../src/skills/index.js';

const digest = (c: string) => `sha256:${c.repeat(64)}`;

function entry(uri: string, name: string, files: [string, string][] = []): Skill {
  return {
    uri,
    frontmatter: { name, description: `the ${name} skill` },
    resources: [
      { uri, size: 10, digest: digest('a') },
      ...files.map(([u, d]) => ({ uri: u, size: 5, digest: d })),
    ],
  };
}

/** A connection whose skills answer from `skills`, recording every read; `failRead` refuses that URI's read. */
function fakeConnection(
  server: string,
  skills: Skill[],
  options: { supported?: boolean; failRead?: string } = {},
): { connection: ServerConnection; calls: string[] } {
  const calls: string[] = [];
  const connection = {
    server: { name: server },
    skills: {
      supported: options.supported ?? true,
      list: async () => {
        calls.push('list');
        return { skills, invalid: [{ index: 9, uri: 'skill://bad/SKILL.md', reason: 'no description' }] };
      },
      read: async (skill: Skill, ref?: string): Promise<SkillFile> => {
        const uri = ref === undefined ? skill.uri : new URL(ref, skill.uri).href;
        calls.push(`read ${uri}`);
        if (uri === options.failRead)
          throw new McpxError(ErrorCode.SkillRefused, `refused ${uri}`, { server, skillFile: uri });
        return {
          uri,
          bytes: new TextEncoder().encode('text'),
          text: 'text',
          verified: true,
          ...(ref === undefined ? { frontmatter: skill.frontmatter, body: 'body' } : {}),
        };
      },
    },
  } as unknown as ServerConnection;
  return { connection, calls };
}

function hostSkills(connections: Record<string, ServerConnection>) {
  return createHostSkills({
    connectAll: async ({ servers }) =>
      Object.entries(connections)
        .filter(([name]) => !servers || servers.includes(name))
        .map(([server, connection]) => ({ server, connection })),
    connect: async (server) => {
      const connection = connections[server];
      if (!connection) throw new McpxError(ErrorCode.UnknownServer, `no server '${server}'`);
      return connection;
    },
  });
}

describe('host skills', () => {
  it('lists manifests only: no file is read, refused entries are told apart', async () => {
    const a = fakeConnection('a', [
      entry('skill://pdf/SKILL.md', 'pdf', [['skill://pdf/FORMS.md', digest('b')]]),
    ]);
    const listing = await hostSkills({ a: a.connection }).list();
    expect(a.calls).toEqual(['list']);
    expect(listing.skills.map((s) => s.id)).toEqual(['a.pdf']);
    expect(listing.skills[0]?.files).toMatchObject([{ path: 'SKILL.md' }, { path: 'FORMS.md', size: 5 }]);
    expect(listing.refused).toEqual([{ server: 'a', uri: 'skill://bad/SKILL.md', reason: 'no description' }]);
  });

  it('asks nothing of a server that does not declare the extension', async () => {
    const plain = fakeConnection('plain', [entry('skill://pdf/SKILL.md', 'pdf')], { supported: false });
    const listing = await hostSkills({ plain: plain.connection }).list();
    expect(plain.calls).toEqual([]);
    expect(listing.skills).toEqual([]);
  });

  it('keeps names per server: the same name on two servers is two skills, neither shadowing the other', async () => {
    const a = fakeConnection('a', [entry('skill://pdf/SKILL.md', 'pdf')]);
    const b = fakeConnection('b', [entry('skill://pdf/SKILL.md', 'pdf')]);
    const { skills } = await hostSkills({ a: a.connection, b: b.connection }).list();
    expect(skills.map((s) => [s.id, s.server])).toEqual([
      ['a.pdf', 'a'],
      ['b.pdf', 'b'],
    ]);
    const loaded = await hostSkills({ a: a.connection, b: b.connection }).get('b', 'pdf');
    expect(loaded.skill.server).toBe('b');
    expect(a.calls).toEqual(['list']);
  });

  it('names two skills of one server that share a name by their paths', async () => {
    const a = fakeConnection('a', [
      entry('skill://acme/pdf/SKILL.md', 'pdf'),
      entry('skill://other/pdf/SKILL.md', 'pdf'),
    ]);
    const { skills } = await hostSkills({ a: a.connection }).list();
    expect(skills.map((s) => s.name)).toEqual(['acme/pdf', 'other/pdf']);
  });

  it('reads a supporting file only after its SKILL.md verifies', async () => {
    const skill = entry('skill://pdf/SKILL.md', 'pdf', [['skill://pdf/FORMS.md', digest('b')]]);
    const good = fakeConnection('a', [skill]);
    const file = await hostSkills({ a: good.connection }).readFile('a', 'pdf', 'FORMS.md');
    expect(file).toMatchObject({ path: 'FORMS.md', text: 'text', verified: true });
    expect(good.calls).toEqual(['list', 'read skill://pdf/SKILL.md', 'read skill://pdf/FORMS.md']);

    const tampered = fakeConnection('a', [skill], { failRead: 'skill://pdf/SKILL.md' });
    await expect(
      hostSkills({ a: tampered.connection }).readFile('a', 'pdf', 'FORMS.md'),
    ).rejects.toMatchObject({
      code: ErrorCode.SkillRefused,
    });
    expect(tampered.calls).not.toContain('read skill://pdf/FORMS.md');
  });

  it('refuses a skill the server does not list, naming the ones it has', async () => {
    const a = fakeConnection('a', [entry('skill://pdf/SKILL.md', 'pdf')]);
    const error = await hostSkills({ a: a.connection })
      .get('a', 'nope')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.UnknownSkill, context: { server: 'a', skill: 'nope' } });
    expect((error as McpxError).causes).toEqual(['its skills: pdf']);
    expect(a.calls).toEqual(['list']);
  });
});

describe('skill fingerprint', () => {
  const base = entry('skill://pdf/SKILL.md', 'pdf', [
    ['skill://pdf/A.md', digest('b')],
    ['skill://pdf/B.md', digest('c')],
  ]);

  it('is the same for the same manifest, whatever the order of its files', () => {
    const files = base.resources as Exclude<Skill['resources'], 'dynamic'>;
    expect(skillFingerprint({ ...base, resources: [...files].reverse() })).toBe(skillFingerprint(base));
  });

  it('changes when a file changes (its digest), a file is added, or the frontmatter is reworded', () => {
    const files = base.resources as Exclude<Skill['resources'], 'dynamic'>;
    const changed = [
      { ...base, resources: files.map((f, i) => (i === 1 ? { ...f, digest: digest('d') } : f)) },
      { ...base, resources: [...files, { uri: 'skill://pdf/C.md', size: 1, digest: digest('e') }] },
      { ...base, frontmatter: { ...base.frontmatter, description: 'something else' } },
    ];
    for (const skill of changed) expect(skillFingerprint(skill)).not.toBe(skillFingerprint(base));
  });
});
