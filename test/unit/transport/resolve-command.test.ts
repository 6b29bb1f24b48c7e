import { describe, expect, it } from 'vitest';
import {
  escapeCmdArgument,
  findOnPath,
  isWindowsBatchFile,
  resolveCommand,
  spawnInvocation,
} from '../../../src/transport/stdio/index.js';

/** A fake file system: exactly these files exist (compared case-insensitively, as on Windows). */
function windowsFiles(...files: string[]) {
  const set = new Set(files.map((f) => f.toLowerCase()));
  const probed: string[] = [];
  const fileExists = (file: string) => {
    probed.push(file);
    return set.has(file.toLowerCase());
  };
  return { fileExists, probed };
}

const winEnv = {
  Path: 'C:\\Windows\\system32;C:\\Program Files\\nodejs;"C:\\Quoted Dir"',
  PATHEXT: '.COM;.EXE;.BAT;.CMD',
  ComSpec: 'C:\\Windows\\system32\\cmd.exe',
};

describe('resolveCommand on win32 (mocked)', () => {
  it('resolves npx to npx.cmd through PATH and PATHEXT', () => {
    const fs = windowsFiles('C:\\Program Files\\nodejs\\npx.cmd', 'C:\\Program Files\\nodejs\\node.exe');
    const resolved = resolveCommand('npx', {
      env: winEnv,
      platform: 'win32',
      cwd: 'C:\\work',
      fileExists: fs.fileExists,
    });
    expect(resolved).toEqual({ file: 'C:\\Program Files\\nodejs\\npx.cmd', args: [] });
    // The current directory is searched first, as CreateProcess does.
    expect(fs.probed[0]).toBe('C:\\work\\npx.com');
  });

  it('prefers the earlier PATHEXT extension in the same directory', () => {
    const fs = windowsFiles('C:\\Program Files\\nodejs\\tool.cmd', 'C:\\Program Files\\nodejs\\tool.exe');
    expect(
      findOnPath('tool', { env: winEnv, platform: 'win32', cwd: 'C:\\w', fileExists: fs.fileExists }),
    ).toBe('C:\\Program Files\\nodejs\\tool.exe');
  });

  it('uses the default PATHEXT when the variable is missing, and strips quotes from PATH entries', () => {
    const fs = windowsFiles('C:\\Quoted Dir\\uvx.exe');
    expect(
      findOnPath('uvx', {
        env: { PATH: winEnv.Path },
        platform: 'win32',
        cwd: 'C:\\w',
        fileExists: fs.fileExists,
      }),
    ).toBe('C:\\Quoted Dir\\uvx.exe');
  });

  it('keeps a name that already has its extension', () => {
    const fs = windowsFiles('C:\\Program Files\\nodejs\\npx.cmd');
    expect(
      findOnPath('npx.cmd', { env: winEnv, platform: 'win32', cwd: 'C:\\w', fileExists: fs.fileExists }),
    ).toBe('C:\\Program Files\\nodejs\\npx.cmd');
  });

  it('resolves a relative path against cwd, adding the extension', () => {
    const fs = windowsFiles('C:\\proj\\bin\\server.bat');
    expect(
      findOnPath('.\\bin\\server', {
        env: winEnv,
        platform: 'win32',
        cwd: 'C:\\proj',
        fileExists: fs.fileExists,
      }),
    ).toBe('C:\\proj\\bin\\server.bat');
  });

  it('returns null when nothing is found, and resolveCommand leaves the command as written', () => {
    const fs = windowsFiles();
    expect(
      findOnPath('nope', { env: winEnv, platform: 'win32', cwd: 'C:\\w', fileExists: fs.fileExists }),
    ).toBeNull();
    expect(
      resolveCommand('nope', { env: winEnv, platform: 'win32', cwd: 'C:\\w', fileExists: fs.fileExists }),
    ).toEqual({
      file: 'nope',
      args: [],
    });
  });
});

describe('Windows command aliases (python3 → python, pip3 → pip)', () => {
  const options = (fs: ReturnType<typeof windowsFiles>) => ({
    env: winEnv,
    platform: 'win32' as const,
    cwd: 'C:\\w',
    fileExists: fs.fileExists,
  });

  it('runs python for python3 and pip for pip3 when only those are installed', () => {
    const fs = windowsFiles('C:\\Program Files\\nodejs\\python.exe', 'C:\\Program Files\\nodejs\\pip.exe');
    expect(resolveCommand('python3', options(fs)).file).toBe('C:\\Program Files\\nodejs\\python.exe');
    expect(resolveCommand('pip3', options(fs)).file).toBe('C:\\Program Files\\nodejs\\pip.exe');
    expect(resolveCommand('Python3', options(fs)).file).toBe('C:\\Program Files\\nodejs\\python.exe');
  });

  it('keeps python3 where it exists, even when python is there too', () => {
    const fs = windowsFiles('C:\\Windows\\system32\\python.exe', 'C:\\Program Files\\nodejs\\python3.exe');
    expect(resolveCommand('python3', options(fs)).file).toBe('C:\\Program Files\\nodejs\\python3.exe');
  });

  it('leaves python3 as written when neither is found, so the error names what the config says', () => {
    expect(resolveCommand('python3', options(windowsFiles())).file).toBe('python3');
  });

  it('aliases nothing on POSIX and nothing but the two names on Windows', () => {
    const fs = windowsFiles('C:\\Program Files\\nodejs\\node.exe', 'C:\\Program Files\\nodejs\\python.exe');
    expect(resolveCommand('node3', options(fs)).file).toBe('node3');
    expect(resolveCommand('python3', { env: { PATH: '/usr/bin' }, platform: 'linux' }).file).toBe('python3');
  });
});

describe('resolveCommand on POSIX', () => {
  it('returns the command unchanged (spawn searches PATH itself)', () => {
    const fileExists = () => {
      throw new Error('must not touch the file system');
    };
    expect(resolveCommand('npx', { env: { PATH: '/usr/bin' }, platform: 'linux', fileExists })).toEqual({
      file: 'npx',
      args: [],
    });
  });

  it('findOnPath searches PATH in order, without extensions or the current directory', () => {
    const probed: string[] = [];
    const fileExists = (file: string) => {
      probed.push(file);
      return file === '/usr/local/bin/uvx';
    };
    expect(
      findOnPath('uvx', {
        env: { PATH: '/opt/x:/usr/local/bin:/usr/bin' },
        platform: 'linux',
        cwd: '/w',
        fileExists,
      }),
    ).toBe('/usr/local/bin/uvx');
    expect(probed).toEqual(['/opt/x/uvx', '/usr/local/bin/uvx']);
    expect(findOnPath('uvx', { env: {}, platform: 'linux', cwd: '/w', fileExists })).toBeNull();
    expect(
      findOnPath('./srv', { env: {}, platform: 'linux', cwd: '/w', fileExists: (f) => f === '/w/srv' }),
    ).toBe('/w/srv');
  });

  it('findOnPath finds real executables with the default file check', () => {
    expect(findOnPath('node', { env: { PATH: process.env.PATH ?? '' }, platform: 'linux' })).toMatch(/node$/);
  });
});

describe('spawnInvocation', () => {
  it('runs a .cmd shim through cmd.exe /d /s /c with verbatim, escaped arguments', () => {
    const invocation = spawnInvocation(
      'C:\\Program Files\\nodejs\\npx.cmd',
      ['-y', '@modelcontextprotocol/server-filesystem', 'C:\\My Files'],
      { platform: 'win32', env: winEnv },
    );
    expect(invocation.file).toBe('C:\\Windows\\system32\\cmd.exe');
    expect(invocation.windowsVerbatimArguments).toBe(true);
    expect(invocation.args.slice(0, 3)).toEqual(['/d', '/s', '/c']);
    expect(invocation.args[3]).toBe(
      '"C:\\Program^ Files\\nodejs\\npx.cmd ^^^"-y^^^" ^^^"@modelcontextprotocol/server-filesystem^^^" ^^^"C:\\My^^^ Files^^^""',
    );
  });

  it('falls back to cmd.exe without COMSPEC and treats .bat the same', () => {
    const invocation = spawnInvocation('run.BAT', [], { platform: 'win32', env: {} });
    expect(invocation).toEqual({
      file: 'cmd.exe',
      args: ['/d', '/s', '/c', '"run.BAT"'],
      windowsVerbatimArguments: true,
    });
  });

  it('leaves .exe files and every POSIX command alone', () => {
    expect(spawnInvocation('C:\\n\\node.exe', ['a b'], { platform: 'win32', env: winEnv })).toEqual({
      file: 'C:\\n\\node.exe',
      args: ['a b'],
      windowsVerbatimArguments: false,
    });
    expect(spawnInvocation('/x/run.cmd', ['a'], { platform: 'linux', env: {} }).file).toBe('/x/run.cmd');
    expect(isWindowsBatchFile('x.Cmd')).toBe(true);
    expect(isWindowsBatchFile('x.exe')).toBe(false);
  });

  it('escapes quotes, trailing backslashes and cmd metacharacters so they cannot break out', () => {
    // C runtime quoting first: backslashes before a quote doubled, the quote escaped.
    expect(escapeCmdArgument('a"b')).toBe('^^^"a\\^^^"b^^^"');
    expect(escapeCmdArgument('a\\"b')).toBe('^^^"a\\\\\\^^^"b^^^"');
    expect(escapeCmdArgument('dir\\')).toBe('^^^"dir\\\\^^^"');
    // Every cmd metacharacter carries carets: no `&`, `|`, `%` or `>` is ever bare.
    const escaped = escapeCmdArgument('x & calc | y > z %PATH% !v!');
    expect(escaped).not.toMatch(/(^|[^^])[&|><%!]/);
    expect(escapeCmdArgument('')).toBe('^^^"^^^"');
  });
});
