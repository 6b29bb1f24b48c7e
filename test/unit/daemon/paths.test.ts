import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonKey, daemonPaths, daemonSocketPath } from '../../../src/daemon/paths.js';
import { checkSocketSafe, socketState } from '../../../src/daemon/socket-safety.js';
import { createHomeFiles } from '../../../src/home/index.js';
import { tempDir } from '../../helpers/cli.js';

const home = createHomeFiles(join('/home', 'ada', '.mcpx'));

describe("the daemon's key", () => {
  it('is 16 hex digits, the same for the same files in the same order, else another', () => {
    const files = ['/home/ada/.mcpx/mcp.json', '/work/app/.mcp.json'];
    expect(daemonKey(files)).toMatch(/^[0-9a-f]{16}$/);
    expect(daemonKey([...files])).toBe(daemonKey(files));
    const others = [
      [...files].reverse(),
      files.slice(0, 1),
      [],
      ['/home/ada/.mcpx/mcp.json/work/app/.mcp.json'],
      ['/work/äpp/.mcp.json'],
      ['/work/app/.mcp.jsom'],
    ];
    const keys = new Set([daemonKey(files), ...others.map((list) => daemonKey(list))]);
    expect(keys.size).toBe(others.length + 1);
  });

  it('is FNV-1a over the UTF-8 bytes (a published test vector)', () => {
    // FNV-1a 64 of "a" is af63dc4c8601ec8c, of the empty string cbf29ce484222325.
    expect(daemonKey(['a'])).toBe('af63dc4c8601ec8c');
    expect(daemonKey([])).toBe('cbf29ce484222325');
  });
});

describe("the daemon's socket path", () => {
  it('is a Unix socket in the run folder on Linux and macOS', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      const paths = daemonPaths(home, '0123abcd', { platform });
      expect(paths.absolute.socket).toBe(join('/home', 'ada', '.mcpx', 'run', '0123abcd.sock'));
      expect(paths.namedPipe).toBeUndefined();
    }
    // Without a host (as the library's callers had it): a Unix socket.
    expect(daemonPaths(home, 'k').absolute.socket).toBe(join('/home', 'ada', '.mcpx', 'run', 'k.sock'));
  });

  it('is a named pipe named for the user and the config on Windows; pid and lock stay in the run folder', () => {
    const paths = daemonPaths(home, '0123abcd', { platform: 'win32', user: 'ada' });
    expect(paths.absolute.socket).toBe('\\\\.\\pipe\\mcpx-ada-0123abcd');
    expect(paths.namedPipe).toBe(true);
    expect(paths.pidFile).toBe('run/0123abcd.pid');
    expect(paths.lockFile).toBe('run/0123abcd.lock');
  });

  it("keeps a user name's backslashes and other odd characters out of the pipe's name", () => {
    expect(daemonSocketPath('/x', 'k', { platform: 'win32', user: 'CORP\\ada lovelace' })).toBe(
      '\\\\.\\pipe\\mcpx-CORP_ada_lovelace-k',
    );
    expect(daemonSocketPath('/x', 'k', { platform: 'win32' })).toBe('\\\\.\\pipe\\mcpx-user-k');
  });
});

describe('the socket safety check for a named pipe', () => {
  it('checks the run folder, then leaves the pipe to its security descriptor (no file to lstat)', async () => {
    const dir = await tempDir('mcpx-pipe-');
    try {
      const pipe = { absolute: { dir: dir.path, socket: '\\\\.\\pipe\\mcpx-ada-k' }, namedPipe: true };
      expect(await checkSocketSafe(pipe, undefined)).toBe(true);
      // The same path as a Unix socket does not exist: no daemon.
      const socket = { absolute: pipe.absolute };
      expect(await checkSocketSafe(socket, undefined)).toBe(false);
      expect(socketState(pipe, undefined)).toBe('safe');
      expect(socketState(socket, undefined)).toBe('absent');
    } finally {
      await dir.remove();
    }
  });
});
