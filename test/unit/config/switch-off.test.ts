// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the config syntax under test
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { tempDir, writeFiles } from './helpers.js';

async function load(files: Record<string, object>) {
  const root = await tempDir();
  await writeFiles(
    root,
    Object.fromEntries(Object.entries(files).map(([path, value]) => [path, JSON.stringify(value)])),
  );
  return loadConfig({ cwd: join(root, 'repo'), env: {}, home: join(root, 'home') });
}

describe('switching a server off', () => {
  it('"demo": {"enabled": false} disables the built-in, pointing at the file that did it', async () => {
    const config = await load({ 'home/mcp.json': { demo: { enabled: false } } });
    const demo = config.servers.find((s) => s.name === 'demo');
    expect(demo).toMatchObject({ enabled: false, origin: { layer: 'global', line: 1 } });
    expect(demo?.origin.file).toMatch(/home[/\\]mcp\.json$/);
  });

  it('the top-level switch leaves a configured server named demo alone; a later file can switch it back on', async () => {
    const own = await load({
      'home/mcp.json': { demo: { enabled: false }, mcpServers: { demo: { command: 'mine' } } },
    });
    expect(own.servers.find((s) => s.name === 'demo')).toMatchObject({ enabled: true, command: 'mine' });
    const back = await load({
      'home/mcp.json': { demo: { enabled: false } },
      'repo/.mcp.json': { demo: { enabled: true } },
    });
    expect(back.servers.find((s) => s.name === 'demo')).toMatchObject({ enabled: true });
  });

  it('an entry holding only "enabled": false switches off an earlier server, even one with a missing ${VAR}', async () => {
    const config = await load({
      'home/mcp.json': { mcpServers: { fs: { command: 'fs' }, gh: { command: '${NO_SUCH_VAR}' } } },
      'repo/.mcp.json': { mcpServers: { fs: { enabled: false }, gh: { disabled: true } } },
    });
    expect(config.servers.find((s) => s.name === 'fs')).toMatchObject({
      enabled: false,
      command: 'fs',
      origin: { layer: 'project' },
    });
    // Switched off, it is inert: shown as disabled, as written, never an error.
    expect(config.servers.find((s) => s.name === 'gh')).toMatchObject({
      enabled: false,
      command: '${NO_SUCH_VAR}',
      origin: { layer: 'project' },
    });
    expect(config.unusable.has('gh')).toBe(false);
  });

  it('an entry disabled where it is defined is not interpolated: an unset ${VAR} in it is no error', async () => {
    const config = await load({
      'home/mcp.json': {
        mcpServers: { gh: { command: 'gh-mcp', env: { TOKEN: '${NO_SUCH_VAR}' }, enabled: false } },
      },
    });
    expect(config.unusable.size).toBe(0);
    expect(config.servers.find((s) => s.name === 'gh')).toMatchObject({
      enabled: false,
      env: { TOKEN: '${NO_SUCH_VAR}' },
    });
  });

  it('an entry with "enabled": true and no command is still an error', async () => {
    await expect(load({ 'home/mcp.json': { mcpServers: { fs: { enabled: true } } } })).rejects.toThrow(
      /neither command nor url/,
    );
  });
});
