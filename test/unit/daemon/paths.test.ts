import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonPaths, daemonSocketPath } from '../../../src/daemon/paths.js';
import { checkSocketSafe } from '../../../src/daemon/socket-safety.js';
import { createHomeFiles } from '../../../src/home/index.js';
import { tempDir } from '../../helpers/cli.js';

const home = createHomeFiles(join('/home', 'ada', '.mcpx'));

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
      expect(await checkSocketSafe(pipe as Parameters<typeof checkSocketSafe>[0], undefined)).toBe(true);
      // The same path as a Unix socket does not exist: no daemon.
      const socket = { absolute: pipe.absolute };
      expect(await checkSocketSafe(socket as Parameters<typeof checkSocketSafe>[0], undefined)).toBe(false);
    } finally {
      await dir.remove();
    }
  });
});
