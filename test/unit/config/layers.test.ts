// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the config syntax under test
import { chmod, mkdir } from 'node:fs/promises';
import { join, parse } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  builtinServers,
  configCandidates,
  configPaths,
  loadConfig,
  resolveMcpxHome,
  testServerPath,
} from '../../../src/config/index.js';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';
import { tempDir, writeFiles } from './helpers.js';

const server = (command: string) => JSON.stringify({ command });
const file = (servers: Record<string, string>) =>
  `{"mcpServers": {${Object.entries(servers)
    .map(([name, entry]) => `${JSON.stringify(name)}: ${entry}`)
    .join(', ')}}}`;

describe('config layers', () => {
  it('merges global < ancestors (outermost first) < project, keeping first-definition order', async () => {
    const root = await tempDir();
    const home = join(root, 'home');
    await writeFiles(root, {
      'home/mcp.json': file({ shared: server('global'), g: server('g') }),
      'a/.mcp.json': file({ shared: server('a'), a: server('a') }),
      'a/b/.mcpx/mcp.json': file({ shared: server('b-mcpx'), b: server('b') }),
      'a/b/.mcp.json': file({ shared: server('b-dot') }),
      'a/b/c/.mcpx/mcp.json': file({ shared: server('project-mcpx'), p: server('p') }),
      'a/b/c/.mcp.json': file({ shared: server('project') }),
    });
    const cwd = join(root, 'a', 'b', 'c');
    const config = await loadConfig({ includeUnapproved: true, cwd, env: {}, home, includeBuiltin: false });
    expect(config.servers.map((s) => [s.name, s.command])).toEqual([
      ['shared', 'project'],
      ['g', 'g'],
      ['a', 'a'],
      ['b', 'b'],
      ['p', 'p'],
    ]);
    expect(config.files.map((f) => [f.path, f.layer, f.serverCount])).toEqual([
      [join(home, 'mcp.json'), 'global', 2],
      [join(root, 'a', '.mcp.json'), 'ancestor', 2],
      [join(root, 'a', 'b', '.mcpx', 'mcp.json'), 'ancestor', 2],
      [join(root, 'a', 'b', '.mcp.json'), 'ancestor', 1],
      [join(cwd, '.mcpx', 'mcp.json'), 'project', 2],
      [join(cwd, '.mcp.json'), 'project', 1],
    ]);
    const shared = config.servers[0];
    expect(shared?.origin).toEqual({ layer: 'project', file: join(cwd, '.mcp.json'), line: 1 });
    expect(shared?.requiresTrust).toBe(true);
    expect(config.servers.find((s) => s.name === 'g')?.requiresTrust).toBe(false);
    expect(config.servers.find((s) => s.name === 'a')?.origin.layer).toBe('ancestor');
    expect(config.shadowed.map((s) => [s.by.file, s.was.file])).toEqual([
      [join(root, 'a', '.mcp.json'), join(home, 'mcp.json')],
      [join(root, 'a', 'b', '.mcpx', 'mcp.json'), join(root, 'a', '.mcp.json')],
      [join(root, 'a', 'b', '.mcp.json'), join(root, 'a', 'b', '.mcpx', 'mcp.json')],
      [join(cwd, '.mcpx', 'mcp.json'), join(root, 'a', 'b', '.mcp.json')],
      [join(cwd, '.mcp.json'), join(cwd, '.mcpx', 'mcp.json')],
    ]);
  });

  it('lets a later layer disable a server and keeps it in servers as disabled', async () => {
    const root = await tempDir();
    await writeFiles(root, {
      'home/mcp.json': file({ fs: server('fs') }),
      'proj/.mcp.json': file({ fs: '{"command": "fs", "disabled": true}' }),
    });
    const config = await loadConfig({
      includeUnapproved: true,
      cwd: join(root, 'proj'),
      env: {},
      home: join(root, 'home'),
      includeBuiltin: false,
    });
    expect(config.servers.map((s) => [s.name, s.enabled, s.origin.layer])).toEqual([
      ['fs', false, 'project'],
    ]);
  });

  it('replaces an unusable earlier definition with a usable later one, and vice versa', async () => {
    const root = await tempDir();
    await writeFiles(root, {
      'home/mcp.json': file({ a: '{"command": "${NOT_SET_A}"}', b: server('b') }),
      'proj/.mcp.json': file({ a: server('a'), b: '{"command": "${NOT_SET_B}"}' }),
    });
    const config = await loadConfig({
      includeUnapproved: true,
      cwd: join(root, 'proj'),
      env: {},
      home: join(root, 'home'),
      includeBuiltin: false,
    });
    expect(config.servers.map((s) => s.name)).toEqual(['a']);
    expect([...config.unusable.keys()]).toEqual(['b']);
    expect(config.unusable.get('b')?.context.origin?.layer).toBe('project');
  });

  it('does not read the global file twice when home is an ancestor', async () => {
    const root = await tempDir();
    const userHome = join(root, 'user');
    const home = resolveMcpxHome({}, userHome);
    expect(home).toBe(join(userHome, '.mcpx'));
    await writeFiles(root, { 'user/.mcpx/mcp.json': file({ g: server('g') }) });
    const cwd = join(userHome, 'project');
    await mkdir(cwd, { recursive: true });
    const config = await loadConfig({ includeUnapproved: true, cwd, env: {}, home, includeBuiltin: false });
    expect(config.files.map((f) => f.layer)).toEqual(['global']);
    expect(config.servers[0]?.requiresTrust).toBe(false);
    expect(
      configCandidates({ cwd, env: {}, home }).filter((c) => c.path === join(home, 'mcp.json')),
    ).toHaveLength(1);
  });

  it('honours MCPX_HOME', async () => {
    expect(resolveMcpxHome({ MCPX_HOME: '/custom/mcpx' }, '/home/me')).toBe('/custom/mcpx');
    expect(resolveMcpxHome({ MCPX_HOME: '' }, '/home/me')).toBe('/home/me/.mcpx');
    const root = await tempDir();
    await writeFiles(root, { 'custom/mcp.json': file({ c: server('c') }) });
    const home = resolveMcpxHome({ MCPX_HOME: join(root, 'custom') }, join(root, 'nobody'));
    const config = await loadConfig({
      includeUnapproved: true,
      cwd: root,
      env: {},
      home,
      includeBuiltin: false,
    });
    expect(config.servers.map((s) => [s.name, s.origin.layer, s.origin.file])).toEqual([
      ['c', 'global', join(root, 'custom', 'mcp.json')],
    ]);
  });

  it('replaces discovery with --config, relative to cwd, keeping the builtin', async () => {
    const root = await tempDir();
    await writeFiles(root, {
      'home/mcp.json': file({ g: server('g') }),
      'proj/.mcp.json': file({ p: server('p') }),
      'proj/conf/mine.json': file({ mine: server('m') }),
    });
    const options = {
      cwd: join(root, 'proj'),
      env: {},
      home: join(root, 'home'),
      configFile: 'conf/mine.json',
    };
    const config = await loadConfig(options);
    expect(config.servers.map((s) => [s.name, s.origin.layer, s.requiresTrust])).toEqual([
      ['demo', 'builtin', false],
      ['mine', 'explicit', false],
    ]);
    expect(await configPaths(options)).toEqual([
      { path: join(root, 'proj', 'conf', 'mine.json'), layer: 'explicit', exists: true },
    ]);
  });

  it('reports a missing --config file as ConfigNotFound with the path', async () => {
    const root = await tempDir();
    const error = await loadConfig({
      includeUnapproved: true,
      cwd: root,
      env: {},
      home: root,
      configFile: 'nope.json',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpxError);
    expect((error as McpxError).code).toBe(ErrorCode.ConfigNotFound);
    expect((error as McpxError).message).toBe(`config file not found: ${join(root, 'nope.json')}`);
  });

  it('reports an unreadable file as ConfigUnreadable', async () => {
    if (process.getuid?.() === 0) return; // root reads anything
    const root = await tempDir();
    await writeFiles(root, { 'home/mcp.json': '{}' });
    await chmod(join(root, 'home', 'mcp.json'), 0o000);
    const error = await loadConfig({
      includeUnapproved: true,
      cwd: root,
      env: {},
      home: join(root, 'home'),
    }).catch((e: unknown) => e);
    expect((error as McpxError).code).toBe(ErrorCode.ConfigUnreadable);
    expect((error as McpxError).message).toBe(
      `cannot read config file ${join(root, 'home', 'mcp.json')}: permission denied`,
    );
  });

  it('reports a directory in place of a config file', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'proj', '.mcp.json'), { recursive: true });
    const error = await loadConfig({
      includeUnapproved: true,
      cwd: join(root, 'proj'),
      env: {},
      home: join(root, 'home'),
    }).catch((e: unknown) => e);
    expect((error as McpxError).code).toBe(ErrorCode.ConfigUnreadable);
    expect((error as McpxError).message).toContain('it is a directory');
  });

  it('lists candidate paths in order with exists flags', async () => {
    const root = await tempDir();
    await writeFiles(root, { 'home/mcp.json': '{}', 'a/.mcp.json': '{}' });
    const paths = await configPaths({ cwd: join(root, 'a'), env: {}, home: join(root, 'home') });
    expect(paths[0]).toEqual({ path: join(root, 'home', 'mcp.json'), layer: 'global', exists: true });
    expect(paths.at(-2)).toEqual({
      path: join(root, 'a', '.mcpx', 'mcp.json'),
      layer: 'project',
      exists: false,
    });
    expect(paths.at(-1)).toEqual({ path: join(root, 'a', '.mcp.json'), layer: 'project', exists: true });
    expect(paths[1]).toEqual({
      path: join(parse(root).root, '.mcpx', 'mcp.json'),
      layer: 'ancestor',
      exists: false,
    });
  });

  it('provides the builtin demo server, which a configured demo replaces', async () => {
    const [demo] = builtinServers();
    expect(demo).toMatchObject({
      name: 'demo',
      transport: 'stdio',
      command: process.execPath,
      args: [testServerPath()],
      origin: { layer: 'builtin' },
      requiresTrust: false,
    });
    expect(testServerPath()).toMatch(/[/\\]dist[/\\]testing[/\\]test-server\.js$/);
    expect(testServerPath('file:///app/dist/config/load/builtin.js')).toBe(
      '/app/dist/testing/test-server.js',
    );
    expect(testServerPath('file:///repo/src/config/load/builtin.ts')).toBe(
      '/repo/dist/testing/test-server.js',
    );

    const root = await tempDir();
    const plain = await loadConfig({ includeUnapproved: true, cwd: root, env: {}, home: join(root, 'home') });
    expect(plain.servers.map((s) => s.name)).toEqual(['demo']);
    await writeFiles(root, { 'home/mcp.json': file({ demo: server('mine') }) });
    const replaced = await loadConfig({
      includeUnapproved: true,
      cwd: root,
      env: {},
      home: join(root, 'home'),
    });
    expect(replaced.servers.map((s) => [s.name, s.command])).toEqual([['demo', 'mine']]);
    expect(replaced.shadowed[0]).toMatchObject({
      name: 'demo',
      was: { layer: 'builtin' },
      by: { layer: 'global' },
    });
  });
});
