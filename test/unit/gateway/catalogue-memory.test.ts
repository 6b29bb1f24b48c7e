import { mkdir, readdir, readFile, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintEntry } from '../../../src/config/index.js';
import type { McpxError } from '../../../src/errors/index.js';
import { ErrorCode } from '../../../src/errors/index.js';
import {
  CATALOGUE_FOLDER,
  CATALOGUE_MAX_AGE_MS,
  openCatalogueMemory,
} from '../../../src/gateway/catalogue-memory.js';
import { tempDir } from '../../helpers/cli.js';
import { testServer } from '../../helpers/servers.js';

const posix = process.platform !== 'win32';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function scratchHome(): Promise<{ root: string; home: string }> {
  const dir = await tempDir('mcpx-catalogues-');
  cleanups.push(dir.remove);
  return { root: dir.path, home: join(dir.path, '.mcpx') };
}

/** A server entry as the config loader makes it: its fingerprint a sha256 of what it runs. */
const entry = (name: string, args: string[] = []) =>
  testServer(name, {}, { fingerprint: fingerprintEntry({ command: 'node', args: [name, ...args] }) });

const tools: Tool[] = [
  {
    name: 'echo',
    description: 'Echo a message.',
    inputSchema: { type: 'object', properties: { m: { type: 'string' } } },
  },
  { name: 'add', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
];

const fileOf = (home: string, fingerprint: string) => join(home, CATALOGUE_FOLDER, `${fingerprint}.json`);

describe('the catalogue memory', () => {
  it('recalls what a server with the same entry listed, from a file of its own written 0600', async () => {
    const { home } = await scratchHome();
    const server = entry('fs');
    await openCatalogueMemory(home).remember(server, tools);
    // Another run of mcpx.
    expect(await openCatalogueMemory(home).recall(server)).toEqual(tools);
    const file = fileOf(home, server.fingerprint);
    if (posix) expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      version: 1,
      fingerprint: server.fingerprint,
    });
  });

  it('recalls nothing for an entry whose fingerprint changed, or one never listed', async () => {
    const { home } = await scratchHome();
    const memory = openCatalogueMemory(home);
    await memory.remember(entry('fs'), tools);
    expect(await memory.recall(entry('fs', ['--root', '/elsewhere']))).toBeUndefined();
    expect(await memory.recall(entry('git'))).toBeUndefined();
  });

  it('neither remembers nor recalls an entry nobody approved', async () => {
    const { home } = await scratchHome();
    const server = entry('fs');
    const unapproved = { ...server, unapproved: true as const };
    await openCatalogueMemory(home).remember(unapproved, tools);
    expect(await readdir(home).catch(() => [])).toEqual([]);
    await openCatalogueMemory(home).remember(server, tools);
    expect(await openCatalogueMemory(home).recall(unapproved)).toBeUndefined();
  });

  it('writes nothing when a server lists what it listed last time', async () => {
    const { home } = await scratchHome();
    const server = entry('fs');
    await openCatalogueMemory(home).remember(server, tools);
    const file = fileOf(home, server.fingerprint);
    const before = JSON.parse(await readFile(file, 'utf8')).listedAt;
    const memory = openCatalogueMemory(home, { now: () => before + 60_000 });
    expect(await memory.recall(server)).toEqual(tools);
    await memory.remember(server, structuredClone(tools));
    expect(JSON.parse(await readFile(file, 'utf8')).listedAt).toBe(before);
    // A changed list is written.
    await memory.remember(server, tools.slice(1));
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      listedAt: before + 60_000,
      tools: tools.slice(1),
    });
    expect(await openCatalogueMemory(home).recall(server)).toEqual(tools.slice(1));
  });

  it('keeps the last of lists remembered at once', async () => {
    const { home } = await scratchHome();
    const server = entry('fs');
    const memory = openCatalogueMemory(home);
    await Promise.all([memory.remember(server, tools), memory.remember(server, tools.slice(0, 1))]);
    expect(await openCatalogueMemory(home).recall(server)).toEqual(tools.slice(0, 1));
    expect((await readdir(join(home, CATALOGUE_FOLDER))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('recalls nothing from a file that is not a sound list for this entry, and tells nobody', async () => {
    const { home } = await scratchHome();
    const server = entry('fs');
    const file = fileOf(home, server.fingerprint);
    await mkdir(join(home, CATALOGUE_FOLDER), { recursive: true });
    const errors: McpxError[] = [];
    const recall = () => openCatalogueMemory(home, { onError: (e) => errors.push(e) }).recall(server);
    const stored = (fields: Record<string, unknown>) =>
      JSON.stringify({ version: 1, fingerprint: server.fingerprint, listedAt: 1, tools, ...fields });
    for (const text of [
      '{"version":1,"fingerprint"', // cut short
      'null',
      stored({ version: 2 }),
      // Copied from another entry's file: that entry's list.
      stored({ fingerprint: entry('git').fingerprint }),
      stored({ tools: 'echo' }),
      stored({ tools: [{ name: 'echo' }] }), // no inputSchema
      stored({ tools: [...tools, { name: 7, inputSchema: { type: 'object' } }] }),
      stored({ tools: [{ ...tools[0], description: { text: 'not a string' } }] }),
    ]) {
      await writeFile(file, text, { mode: 0o600 });
      expect(await recall(), text).toBeUndefined();
    }
    // Larger than any list mcpx would have kept: not read at all.
    await writeFile(file, stored({ padding: 'x'.repeat(16 * 1024 * 1024) }), { mode: 0o600 });
    expect(await recall()).toBeUndefined();
    expect(errors).toEqual([]);
    // The next listing replaces it.
    await openCatalogueMemory(home).remember(server, tools);
    expect(await recall()).toEqual(tools);
  });

  it.runIf(posix)(
    'refuses a link planted in place of a list, says so once, and leaves its target alone',
    async () => {
      const { root, home } = await scratchHome();
      const server = entry('fs');
      const victim = join(root, 'victim.json');
      const planted = JSON.stringify({ version: 1, fingerprint: server.fingerprint, listedAt: 1, tools });
      await writeFile(victim, planted);
      await mkdir(join(home, CATALOGUE_FOLDER), { recursive: true, mode: 0o700 });
      await symlink(victim, fileOf(home, server.fingerprint));
      const errors: McpxError[] = [];
      const memory = openCatalogueMemory(home, { onError: (e) => errors.push(e) });
      expect(await memory.recall(server)).toBeUndefined();
      await memory.remember(server, tools.slice(1));
      await memory.remember(server, tools);
      expect(await readFile(victim, 'utf8')).toBe(planted);
      expect(errors.map((e) => e.code)).toEqual([ErrorCode.HomeUnsafe]);
      expect(errors[0]?.message).toContain('is a symbolic link');
    },
  );

  it('removes the lists of entries not listed for a month, and keeps one listed again unchanged', async () => {
    const { home } = await scratchHome();
    const [gone, kept, other] = [entry('gone'), entry('kept'), entry('other')];
    await openCatalogueMemory(home).remember(gone, tools);
    await openCatalogueMemory(home).remember(kept, tools);
    const old = new Date(Date.now() - CATALOGUE_MAX_AGE_MS - 60_000);
    for (const server of [gone, kept]) await utimes(fileOf(home, server.fingerprint), old, old);
    // Another run: `kept` is listed again, unchanged, so its file is not rewritten but renewed.
    const memory = openCatalogueMemory(home);
    expect(await memory.recall(kept)).toEqual(tools);
    await memory.remember(kept, tools);
    await memory.remember(other, tools);
    expect((await readdir(join(home, CATALOGUE_FOLDER))).sort()).toEqual(
      [`${kept.fingerprint}.json`, `${other.fingerprint}.json`].sort(),
    );
    expect(await openCatalogueMemory(home).recall(kept)).toEqual(tools);
  });
});
