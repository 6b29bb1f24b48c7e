import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runsMcpx } from '../../../src/config/runs-mcpx.js';

const line = (command: string, ...args: string[]) => ({ command, args });

describe('runsMcpx', () => {
  it.each([
    [line('mcpx', 'serve'), 'mcpx'],
    [line('/usr/local/bin/mcpx', 'serve'), 'mcpx'],
    [line('C:\\Users\\a\\AppData\\Roaming\\npm\\mcpx.cmd', 'serve'), 'mcpx'],
    [line('node', '/opt/mcpx/dist/bin/mcpx.cjs', 'serve'), 'node /opt/mcpx/dist/bin/mcpx.cjs'],
    [
      line('/usr/bin/node', '--no-warnings', '-r', 'x.js', 'node_modules/.bin/mcpx', 'serve'),
      'node node_modules/.bin/mcpx',
    ],
    [line('npx', 'mcpx', 'serve'), 'npx mcpx'],
    [line('npx', '-y', 'mcpx@latest', 'serve'), 'npx mcpx'],
    [line('npx', '--yes', '--package=mcpx@0.1.0', 'mcpx', 'serve'), 'npx mcpx'],
    [line('npm', 'exec', '--', 'mcpx', 'serve'), 'npm exec mcpx'],
    [line('pnpm', 'dlx', 'mcpx', 'serve'), 'pnpm dlx mcpx'],
    [line('bunx', 'mcpx@1', 'serve'), 'bunx mcpx'],
    [line('sh', '-c', 'mcpx serve --servers a,b'), 'mcpx'],
    [line('env', 'DEBUG=1', 'npx', '-y', 'mcpx', 'serve'), 'npx mcpx'],
  ])('%j runs mcpx (%s)', (entry, how) => {
    expect(runsMcpx(entry)).toBe(how);
  });

  it.each([
    line('npx', '-y', '@modelcontextprotocol/server-memory'),
    line('npx', '-y', '@someone/mcpx'),
    line('npx', '-y', 'mcpx-server-thing'),
    line('node', 'server.js', 'mcpx'),
    line('npm', 'run', 'mcpx'),
    line('uvx', 'mcp-server-time'),
    line('sh', '-c', 'echo "unterminated'),
    { args: [] },
  ])('%j does not', (entry) => {
    expect(runsMcpx(entry)).toBeUndefined();
  });

  it('knows the running mcpx by its path, whatever the file is called', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-self-'));
    try {
      const self = join(dir, 'cli-entry.js');
      writeFileSync(self, '');
      symlinkSync(self, join(dir, 'tool'));
      expect(runsMcpx(line('node', './tool', 'serve'), { selfScript: self, cwd: dir })).toBe('node ./tool');
      expect(runsMcpx(line(join(dir, 'tool')), { selfScript: self })).toBe(join(dir, 'tool'));
      expect(runsMcpx(line('node', './other.js'), { selfScript: self, cwd: dir })).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
