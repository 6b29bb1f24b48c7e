// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the config syntax under test
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assertApproved,
  FIELD_TRUST,
  fingerprintEntry,
  isTrusted,
  loadConfig,
  loadTrustStore,
  trustServers,
  trustStorePath,
  untrustedServers,
} from '../../../../src/config/index.js';
import { tempDir, writeFiles } from '../helpers.js';

async function projectServers(root: string, entry: object, env: Record<string, string> = {}) {
  await writeFiles(root, { 'proj/.mcp.json': JSON.stringify({ mcpServers: { tool: entry } }) });
  const config = await loadConfig({
    includeUnapproved: true,
    cwd: join(root, 'proj'),
    env,
    home: join(root, 'home'),
    includeBuiltin: false,
  });
  return config.servers;
}

describe('fingerprint', () => {
  it('is stable across key order and changes when args change', () => {
    const a = fingerprintEntry({ command: 'npx', args: ['-y', 'pkg'], env: { A: '1', B: '2' } });
    const b = fingerprintEntry({ env: { B: '2', A: '1' }, args: ['-y', 'pkg'], command: 'npx' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprintEntry({ command: 'npx', args: ['-y', 'other'], env: { A: '1', B: '2' } })).not.toBe(a);
  });

  it('is taken before interpolation, so a new token value does not ask again', async () => {
    const root = await tempDir();
    const entry = { command: 'srv', env: { TOKEN: '${TOKEN}' } };
    const [first] = await projectServers(root, entry, { TOKEN: 'one' });
    const [second] = await projectServers(root, entry, { TOKEN: 'two' });
    expect(first?.env).toEqual({ TOKEN: 'one' });
    expect(first?.fingerprint).toBe(second?.fingerprint);
  });

  it('changes when command, args, env, env_passthrough, url, headers or cwd change', async () => {
    const root = await tempDir();
    const base = { command: 'srv', args: ['a'], env: { K: 'v' }, cwd: 'x' };
    const [reference] = await projectServers(root, base);
    for (const changed of [
      { ...base, command: 'other' },
      { ...base, args: ['b'] },
      { ...base, env: { K: 'w' } },
      { ...base, env_passthrough: ['AWS_SECRET_ACCESS_KEY'] },
      { ...base, cwd: 'y' },
    ]) {
      const [server] = await projectServers(root, changed);
      expect(server?.fingerprint).not.toBe(reference?.fingerprint);
    }
    const [remote] = await projectServers(root, { url: 'https://a.example/mcp' });
    const [otherHeaders] = await projectServers(root, { url: 'https://a.example/mcp', headers: { X: '1' } });
    expect(remote?.fingerprint).not.toBe(otherHeaders?.fingerprint);
  });
});

describe('what the fingerprint covers', () => {
  it('classifies every server field as fingerprinted or harmless', async () => {
    const { SERVER_FIELDS } = await import('../../../../src/config/entry/server-fields.js');
    for (const [key, field] of Object.entries(SERVER_FIELDS)) {
      expect(['fingerprinted', 'harmless'], `server field '${key}' (${field})`).toContain(FIELD_TRUST[field]);
    }
  });

  it('changes with oauth, type, protocol, headers and allowed_hosts too', async () => {
    const root = await tempDir();
    const base = { url: 'https://a.example/mcp' };
    const [reference] = await projectServers(root, base);
    for (const changed of [
      { ...base, oauth: { client_id: 'x', client_secret: '${AWS_SECRET_ACCESS_KEY}' } },
      { ...base, type: 'sse' },
      { ...base, protocol: 'legacy' },
      { ...base, headers: { Authorization: 'Bearer ${TOKEN}' } },
      { ...base, allowed_hosts: ['intranet.example'] },
    ]) {
      const [server] = await projectServers(root, changed);
      expect(server?.fingerprint, JSON.stringify(changed)).not.toBe(reference?.fingerprint);
    }
  });

  it('does not change with harmless fields (timeouts, tool filters, enabled)', async () => {
    const root = await tempDir();
    const base = { command: 'srv' };
    const [reference] = await projectServers(root, base);
    for (const changed of [
      { ...base, connect_timeout: 60 },
      { ...base, allowed_tools: ['a'] },
      { ...base, enabled: true },
      { ...base, autoApprove: ['x'] },
    ]) {
      const [server] = await projectServers(root, changed);
      expect(server?.fingerprint, JSON.stringify(changed)).toBe(reference?.fingerprint);
    }
  });

  it('approves ${VAR} in command, args, cwd and url by value as well as by template', async () => {
    const root = await tempDir();
    for (const entry of [
      { command: '${BIN}' },
      { command: 'node', args: ['${BIN}'] },
      { command: 'node', cwd: '${BIN}' },
      { url: 'https://${BIN}/mcp' },
    ]) {
      const [a] = await projectServers(root, entry, { BIN: 'one.example' });
      const [b] = await projectServers(root, entry, { BIN: 'two.example' });
      expect(a?.fingerprint, JSON.stringify(entry)).not.toBe(b?.fingerprint);
      expect(a?.variables).toEqual({ BIN: expect.stringMatching(/^[0-9a-f]{12}$/) });
    }
  });
});

describe('trust store', () => {
  it('requires approval for project entries and records it', async () => {
    const root = await tempDir();
    const home = join(root, 'home');
    const servers = await projectServers(root, { command: 'srv', args: ['a'] });
    const empty = await loadTrustStore(home);
    expect(untrustedServers(empty, servers).map((s) => s.name)).toEqual(['tool']);

    const updated = await trustServers(home, servers);
    expect(isTrusted(updated, servers[0]!)).toBe(true);
    const reloaded = await loadTrustStore(home);
    expect(untrustedServers(reloaded, servers)).toEqual([]);

    const onDisk = JSON.parse(await readFile(trustStorePath(home), 'utf8'));
    expect(onDisk).toEqual({
      version: 2,
      entries: {
        [join(root, 'proj', '.mcp.json')]: {
          tool: { fingerprint: servers[0]?.fingerprint, asWritten: { command: 'srv', args: ['a'] } },
        },
      },
      settings: {},
    });
  });

  it('leaves an entry nobody approved out of servers, marked in unapproved, until it is approved', async () => {
    const root = await tempDir();
    const home = join(root, 'home');
    const options = { cwd: join(root, 'proj'), env: {}, home, includeBuiltin: false };
    await projectServers(root, { command: 'srv' });
    const before = await loadConfig(options);
    expect(before.servers).toEqual([]);
    expect(before.unapproved.map((s) => [s.name, s.unapproved])).toEqual([['tool', true]]);
    expect(() => assertApproved(before.unapproved[0]!)).toThrow(
      expect.objectContaining({
        code: 'CONFIG_UNTRUSTED',
        message: expect.stringContaining("server 'tool'"),
      }),
    );

    await trustServers(home, before.unapproved);
    const after = await loadConfig(options);
    expect(after.unapproved).toEqual([]);
    expect(after.servers.map((s) => [s.name, s.unapproved])).toEqual([['tool', undefined]]);
  });

  it('asks again when the entry changes', async () => {
    const root = await tempDir();
    const home = join(root, 'home');
    await trustServers(home, await projectServers(root, { command: 'srv', args: ['a'] }));
    const changed = await projectServers(root, { command: 'srv', args: ['a', '--evil'] });
    expect(untrustedServers(await loadTrustStore(home), changed).map((s) => s.name)).toEqual(['tool']);
  });

  it('writes the store with mode 0600 in a 0700 directory', async () => {
    if (process.platform === 'win32') return;
    const root = await tempDir();
    const home = join(root, 'home');
    await trustServers(home, await projectServers(root, { command: 'srv' }));
    expect((await stat(trustStorePath(home))).mode & 0o777).toBe(0o600);
    expect((await stat(home)).mode & 0o777).toBe(0o700);
  });

  it('keeps earlier approvals when adding new ones', async () => {
    const root = await tempDir();
    const home = join(root, 'home');
    const first = await projectServers(root, { command: 'one' });
    await trustServers(home, first);
    await writeFiles(root, { 'other/.mcp.json': '{"mcpServers": {"two": {"command": "two"}}}' });
    const second = (
      await loadConfig({
        includeUnapproved: true,
        cwd: join(root, 'other'),
        env: {},
        home,
        includeBuiltin: false,
      })
    ).servers;
    await trustServers(home, second);
    const store = await loadTrustStore(home);
    expect(untrustedServers(store, [...first, ...second])).toEqual([]);
  });

  it('never requires trust for global, explicit, builtin or ad-hoc servers', async () => {
    const root = await tempDir();
    const home = join(root, 'home');
    await writeFiles(root, {
      'home/mcp.json': '{"mcpServers": {"g": {"command": "g"}}}',
      'x.json': '{"servers": {"x": {"command": "x"}}}',
    });
    const global = await loadConfig({ includeUnapproved: true, cwd: root, env: {}, home });
    const explicit = await loadConfig({
      includeUnapproved: true,
      cwd: root,
      env: {},
      home,
      configFile: 'x.json',
    });
    const store = await loadTrustStore(home);
    expect(untrustedServers(store, [...global.servers, ...explicit.servers])).toEqual([]);
    expect(global.servers.every((s) => !s.requiresTrust)).toBe(true);
  });

  it('treats a corrupt store as empty (asks again rather than trusting)', async () => {
    const root = await tempDir();
    const home = join(root, 'home');
    const servers = await projectServers(root, { command: 'srv' });
    await writeFiles(root, { 'home/trust.json': '{not json' });
    expect(untrustedServers(await loadTrustStore(home), servers)).toHaveLength(1);
    await writeFile(trustStorePath(home), JSON.stringify({ version: 2, entries: {} }));
    expect(untrustedServers(await loadTrustStore(home), servers)).toHaveLength(1);
  });
});
