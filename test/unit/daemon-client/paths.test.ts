import { lstatSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configKey, daemonKey, daemonPaths, daemonSocket } from '../../../src/daemon-client/paths.js';
import {
  checkSocketSafe,
  ensureSocketFolder,
  socketState,
} from '../../../src/daemon-client/socket-safety.js';
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

describe("a config's content key (its daemon's alias)", () => {
  it('is the same for files with the same text at other paths, and another for other text or order', async () => {
    const dir = await tempDir('mcpx-key-');
    try {
      const text = (name: string) =>
        JSON.stringify({ mcpServers: { [name]: { command: 'x', keep_alive: true } } });
      const write = async (path: string, body: string) => {
        await mkdir(join(dir.path, path, '..'), { recursive: true });
        await writeFile(join(dir.path, path), body);
        return join(dir.path, path);
      };
      const global = await write('home/.mcpx/mcp.json', text('g'));
      const one = await write('clone-1/.mcp.json', text('p'));
      const two = await write('clone-2/.mcp.json', text('p'));
      const other = await write('other/.mcp.json', text('q'));
      expect(configKey([global, one])).toBe(configKey([global, two]));
      expect(configKey([global, one])).not.toBe(configKey([global, other]));
      expect(configKey([global, one])).not.toBe(configKey([one, global]));
      expect(configKey([global, one])).not.toBe(configKey([global]));
      // A file gone since it was found counts as empty, rather than failing the caller.
      expect(configKey([global, join(dir.path, 'gone.json')])).toBe(daemonKey([text('g'), '']));
    } finally {
      await dir.remove();
    }
  });
});

describe("the daemon's socket path", () => {
  it('is a short Unix socket in a private temporary folder on Linux and macOS, whatever the home', () => {
    const long = createHomeFiles(join('/home', 'a'.repeat(100), '.mcpx'));
    for (const platform of ['linux', 'darwin'] as const) {
      const paths = daemonPaths(long, '0123abcd', { platform, uid: 1000, env: {} });
      expect(paths.absolute.dir).toBe('/tmp/mcpx-1000');
      expect(paths.absolute.socket).toMatch(/^\/tmp\/mcpx-1000\/[0-9a-f]{16}\.sock$/);
      expect(paths.namedPipe).toBeUndefined();
      // The pid file and the lock stay in the home's run folder.
      expect(paths.pidFile).toBe('run/0123abcd.pid');
    }
    // Two homes never share a socket for the same key; one home always gets the same.
    const machine = { platform: 'linux' as const, uid: 1000, env: {} };
    expect(daemonPaths(home, 'k', machine).absolute.socket).not.toBe(
      daemonPaths(long, 'k', machine).absolute.socket,
    );
    expect(daemonPaths(home, 'k', machine).absolute.socket).toBe(
      daemonPaths(home, 'k', machine).absolute.socket,
    );
  });

  it('is under $XDG_RUNTIME_DIR when it is a private folder of the user, else in $TMPDIR (or /tmp when that is long)', async () => {
    const dir = await tempDir('mcpx-xdg-');
    try {
      const uid = lstatSync(dir.path).uid;
      const runtime = join(dir.path, 'rt');
      await mkdir(runtime, { mode: 0o700 });
      await chmod(runtime, 0o700);
      const at = (env: Record<string, string>) =>
        daemonSocket('/h/.mcpx', 'k', { platform: 'linux', uid, env });
      expect(at({ XDG_RUNTIME_DIR: runtime }).dir).toBe(join(runtime, 'mcpx'));
      await chmod(runtime, 0o755);
      expect(at({ XDG_RUNTIME_DIR: runtime }).dir).toBe(`/tmp/mcpx-${uid}`);
      expect(
        daemonSocket('/h/.mcpx', 'k', { platform: 'linux', uid: uid + 1, env: { XDG_RUNTIME_DIR: dir.path } })
          .dir,
      ).toBe(`/tmp/mcpx-${uid + 1}`);
      expect(at({ TMPDIR: dir.path }).dir).toBe(join(dir.path, `mcpx-${uid}`));
      expect(at({ TMPDIR: join(dir.path, 'absent') }).dir).toBe(`/tmp/mcpx-${uid}`);
      expect(at({ TMPDIR: `/${'t'.repeat(80)}` }).dir).toBe(`/tmp/mcpx-${uid}`);
      for (const env of [{}, { XDG_RUNTIME_DIR: `/${'r'.repeat(120)}` }] as Record<string, string>[])
        expect(Buffer.byteLength(at(env).socket)).toBeLessThanOrEqual(91);
    } finally {
      await dir.remove();
    }
  });

  it("the daemon makes the folder 0700 and refuses one that is not the user's own and private", async () => {
    const dir = await tempDir('mcpx-sockdir-');
    try {
      const socketDir = join(dir.path, 'mcpx-x');
      const paths = { absolute: { dir: socketDir, socket: join(socketDir, 'k.sock') } };
      const uid = process.getuid?.();
      await ensureSocketFolder(paths, uid);
      expect(lstatSync(socketDir).mode & 0o777).toBe(0o700);
      await ensureSocketFolder(paths, uid);
      await chmod(socketDir, 0o755);
      await expect(ensureSocketFolder(paths, uid)).rejects.toMatchObject({ code: 'DAEMON_UNSAFE' });
      await chmod(socketDir, 0o700);
      await expect(ensureSocketFolder(paths, (uid ?? 0) + 1)).rejects.toThrow(/owned by another user/);
    } finally {
      await dir.remove();
    }
  });

  it('is a named pipe named for the user and the config on Windows; pid and lock stay in the run folder', () => {
    const paths = daemonPaths(home, '0123abcd', { platform: 'win32', user: 'ada' });
    expect(paths.absolute.socket).toBe('\\\\.\\pipe\\mcpx-ada-0123abcd');
    expect(paths.namedPipe).toBe(true);
    expect(paths.pidFile).toBe('run/0123abcd.pid');
    expect(paths.lockFile).toBe('run/0123abcd.lock');
  });

  it("keeps a user name's backslashes and other odd characters out of the pipe's name", () => {
    expect(daemonSocket('/x', 'k', { platform: 'win32', user: 'CORP\\ada lovelace' }).socket).toBe(
      '\\\\.\\pipe\\mcpx-CORP_ada_lovelace-k',
    );
    expect(daemonSocket('/x', 'k', { platform: 'win32' }).socket).toBe('\\\\.\\pipe\\mcpx-user-k');
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
