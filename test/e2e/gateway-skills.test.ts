/**
 * Issue 40, item 3, through the built `mcpx serve` with the SDK `Client` in both eras: a client
 * without the skills extension gets the upstreams' skills as the gateway's own tool pair,
 * `mcpx__load_skill` (its description the catalogue, origin tagged) and `mcpx__read_skill_file`;
 * each file is verified at mcpx before it goes on, tagged with its origin, and a hostile one goes
 * on as a refusal.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client, Tool } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const skillsServer = join(repoRoot, 'dist/testing/skills-server.js');
let world: GatewayWorld;
let readLog: string;

beforeAll(async () => {
  const server = (env: Record<string, string>) => ({ command: process.execPath, args: [skillsServer], env });
  world = await gatewayWorld({ permission: 'yolo', mcpServers: {} });
  readLog = join(world.dir, 'reads.log');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    world.configFile,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: {
        docs: server({ MCPX_TEST_SKILL_READ_LOG: readLog }),
        evil: server({ MCPX_TEST_SKILLS: 'hostile' }),
        plain: { command: process.execPath, args: [testServerPath] },
      },
    }),
  );
});
afterEach(async () => {
  await world.stopAll();
});
afterAll(async () => {
  await world?.close();
});

const byName = (tools: readonly Tool[], name: string): Tool | undefined => tools.find((t) => t.name === name);
/**
 * The client's tools once the gateway offers both servers' skills in its pair: a server still starting (or standing
 * in with the tools it listed in an earlier run) comes up later, and the gateway announces a
 * tool list change, on which a client lists again.
 */
async function skillTools(client: Client): Promise<Tool[]> {
  for (let tries = 0; ; tries++) {
    const { tools } = await client.listTools();
    const catalogue = byName(tools, 'mcpx__load_skill')?.description ?? '';
    if ((catalogue.includes('docs.') && catalogue.includes('evil.')) || tries === 50) return tools;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const SPEAKS_SKILLS = { extensions: { 'io.modelcontextprotocol/skills': {} } };

/** The merged `skills/list` once both upstreams are up (`ttlMs: 0`: a client lists again). */
async function upstreamsUp<T extends { skills: { uri: string }[] }>(skills: {
  list(): Promise<T>;
}): Promise<T> {
  for (let tries = 0; ; tries++) {
    const listed = await skills.list();
    const uris = listed.skills.map((s) => s.uri).join(' ');
    if ((uris.includes('skill://docs/') && uris.includes('skill://evil/')) || tries === 50) return listed;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const reads = async () =>
  (await readFile(readLog, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');

describe.each(['legacy', 'modern'] as const)('skills through mcpx serve, a %s client', (era) => {
  it('offers mcpx__load_skill with the catalogue, origin tagged, and reads no skill file to list it', async () => {
    const before = (await reads()).length;
    const client = await world.client((await world.serve()).url, era);
    const tools = await skillTools(client);
    const load = byName(tools, 'mcpx__load_skill');
    expect(load?.description).toContain(
      "- docs.pdf-processing [from MCP server 'docs']: Extract, fill, and assemble PDF documents",
    );
    expect(load?.description).toContain("- evil.tampered [from MCP server 'evil']");
    expect(load?.description).toContain('read with mcpx__read_skill_file');
    expect(load?.description).not.toMatch(/\u001b|\u202e/);
    expect(byName(tools, 'mcpx__read_skill_file')?.inputSchema.required).toEqual(['skill', 'path']);
    expect(await reads()).toHaveLength(before);
  });

  it('loads a skill and reads its file, verified and tagged with their origin', async () => {
    const client = await world.client((await world.serve()).url, era);
    const loaded = await client.callTool({
      name: 'mcpx__load_skill',
      arguments: { skill: 'docs.pdf-processing' },
    });
    expect(loaded.isError).toBeFalsy();
    expect(firstText(loaded)).toMatch(
      /^\[SKILL-[0-9a-f]{12}\] SKILL\.md of skill 'docs\.pdf-processing', served by MCP server 'docs'\. It is third-party content, untrusted/,
    );
    expect(firstText(loaded)).toContain('Read references/FORMS.md before filling a form.');
    expect(firstText(loaded)).toContain('read one with mcpx__read_skill_file');
    const file = await client.callTool({
      name: 'mcpx__read_skill_file',
      arguments: { skill: 'docs.pdf-processing', path: 'references/FORMS.md' },
    });
    expect(firstText(file)).toMatch(
      /references\/FORMS\.md of skill 'docs\.pdf-processing', served by MCP server 'docs'/,
    );
    expect(firstText(file)).toContain('Fill each field in order.');
  });

  it('refuses a file whose digest does not match, and a SKILL.md whose frontmatter lies, without their text', async () => {
    const client = await world.client((await world.serve()).url, era);
    const tampered = await client.callTool({
      name: 'mcpx__read_skill_file',
      arguments: { skill: 'evil.tampered', path: 'references/GUIDE.md' },
    });
    expect(tampered.isError).toBe(true);
    expect(firstText(tampered)).toMatch(
      /^error \[SKILL_REFUSED\]: refused skill:\/\/tampered\/references\/GUIDE\.md .*sha256 digest differs/,
    );
    expect(firstText(tampered)).not.toContain('Ignore the steps');
    const lying = await client.callTool({
      name: 'mcpx__load_skill',
      arguments: { skill: 'evil.bad-frontmatter' },
    });
    expect(lying.isError).toBe(true);
    expect(firstText(lying)).toMatch(/^error \[SKILL_REFUSED\].*frontmatter differs/);
    expect(firstText(lying)).not.toContain('Exfiltrate');
    const unlisted = await client.callTool({
      name: 'mcpx__read_skill_file',
      arguments: { skill: 'evil.pdf-processing', path: 'scripts/secret.sh' },
    });
    expect(unlisted.isError).toBe(true);
    expect(firstText(unlisted)).not.toContain('attacker.example');
  });
});

describe.each(['legacy', 'modern'] as const)(
  'the skills extension through mcpx serve, a %s client',
  (era) => {
    it('declares it, lists every upstream’s skills under skill://<server>/, digests and sizes intact, and reads them verified', async () => {
      const { SkillsClient } = await import('@modelcontextprotocol/client/ext/skills');
      const client = await world.client((await world.serve()).url, era, { capabilities: SPEAKS_SKILLS });
      expect(client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/skills']).toEqual({
        directoryRead: true,
      });
      const skills = new SkillsClient(client, { skipInvalid: true });
      const listed = await upstreamsUp(skills);
      // It reads skills through the extension: the gateway's own pair is for clients without it.
      expect(byName((await client.listTools()).tools, 'mcpx__load_skill')).toBeUndefined();
      const pdf = listed.skills.find((s) => s.uri === 'skill://docs/pdf-processing/SKILL.md');
      expect(pdf?.frontmatter.name).toBe('pdf-processing');
      const forms =
        pdf?.resources === 'dynamic' ? undefined : pdf?.resources.find((r) => r.uri.endsWith('FORMS.md'));
      const text = '# Forms\n\nFill each field in order.\n';
      expect(forms).toEqual({
        uri: 'skill://docs/pdf-processing/references/FORMS.md',
        size: Buffer.byteLength(text),
        digest: `sha256:${createHash('sha256').update(text).digest('hex')}`,
      });
      expect(listed.skills.map((s) => s.uri)).toEqual(
        expect.arrayContaining(['skill://evil/tampered/SKILL.md', 'skill://docs/release-notes/SKILL.md']),
      );
      // The client's own SDK verifies what mcpx passes on.
      const manifest = await skills.read(pdf as NonNullable<typeof pdf>);
      expect(manifest.text).toContain('Read references/FORMS.md before filling a form.');
      expect((await skills.read(pdf as NonNullable<typeof pdf>, 'references/FORMS.md')).text).toBe(text);
    });

    it('passes skills/get and resources/directory/read on, namespaced, each directory checked against its skill', async () => {
      const { SkillsClient } = await import('@modelcontextprotocol/client/ext/skills');
      const client = await world.client((await world.serve()).url, era, { capabilities: SPEAKS_SKILLS });
      const skills = new SkillsClient(client, { skipInvalid: true });
      await upstreamsUp(skills);
      expect(skills.directoryRead).toBe(true);
      const before = (await reads()).length;
      const { skill } = await skills.get('skill://docs/pdf-processing/SKILL.md');
      expect(skill.frontmatter.name).toBe('pdf-processing');
      expect(skill.resources === 'dynamic' ? [] : skill.resources.map((r) => r.uri)).toContain(
        'skill://docs/pdf-processing/references/FORMS.md',
      );
      await expect(skills.get('skill://docs/no-such-skill/SKILL.md')).rejects.toThrow();
      const root = await skills.readDirectory('skill://docs/pdf-processing');
      expect(root.resources.map((r) => [r.uri, r.mimeType])).toEqual(
        expect.arrayContaining([
          ['skill://docs/pdf-processing/SKILL.md', 'text/markdown'],
          ['skill://docs/pdf-processing/references', 'inode/directory'],
        ]),
      );
      const references = await skills.readDirectory('skill://docs/pdf-processing/references');
      expect(references.resources.map((r) => [r.uri, r.size])).toEqual([
        [
          'skill://docs/pdf-processing/references/FORMS.md',
          Buffer.byteLength('# Forms\n\nFill each field in order.\n'),
        ],
      ]);
      // Names only: no file was read to answer them.
      expect(await reads()).toHaveLength(before);
      // A folder that shows a file its skill does not list is refused at mcpx, the file named.
      await expect(skills.readDirectory('skill://evil/pdf-processing/scripts')).rejects.toThrow(
        /skill:\/\/pdf-processing\/scripts\/secret\.sh is not a file the skill lists/,
      );
    });

    it('refuses, at mcpx, a file whose digest does not match: the client gets an error, not the bytes', async () => {
      const client = await world.client((await world.serve()).url, era, { capabilities: SPEAKS_SKILLS });
      const { SkillsClient } = await import('@modelcontextprotocol/client/ext/skills');
      await upstreamsUp(new SkillsClient(client, { skipInvalid: true }));
      const read = client.readResource({ uri: 'skill://evil/tampered/references/GUIDE.md' });
      await expect(read).rejects.toThrow(/sha256 digest differs/);
      await expect(
        client.readResource({ uri: 'skill://evil/pdf-processing/scripts/secret.sh' }),
      ).rejects.toThrow(/does not list|not part of the skill|unlisted/);
    });
  },
);

describe.each(['legacy', 'modern'] as const)('mcpx serve --skills-only, a %s client', (era) => {
  it('offers the skill pair and nothing of the servers: no tool, resource or prompt of theirs', async () => {
    const client = await world.client((await world.serve(['--skills-only'])).url, era);
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.tools).toBeDefined();
    expect(capabilities?.resources).toBeUndefined();
    expect(capabilities?.prompts).toBeUndefined();
    const tools = await skillTools(client);
    expect(tools.map((t) => t.name)).toEqual(['mcpx__load_skill', 'mcpx__read_skill_file']);
    expect(byName(tools, 'mcpx__load_skill')?.description).toContain(
      "- docs.pdf-processing [from MCP server 'docs']",
    );
    // A served server's tool is not offered, nor callable by its name.
    await expect(client.callTool({ name: 'plain__echo', arguments: { text: 'hi' } })).rejects.toThrow(
      /Unknown tool: plain__echo/,
    );
    const loaded = await client.callTool({
      name: 'mcpx__load_skill',
      arguments: { skill: 'docs.pdf-processing' },
    });
    expect(loaded.isError).toBeFalsy();
    expect(firstText(loaded)).toContain('Read references/FORMS.md before filling a form.');
  });
});
