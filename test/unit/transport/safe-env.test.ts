import { describe, expect, it } from 'vitest';
import { buildServerEnv, getEnv, SAFE_ENV_KEYS } from '../../../src/transport/stdio/index.js';

const host = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/ada',
  LANG: 'en_US.UTF-8',
  TZ: 'Europe/Paris',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI',
  GITHUB_TOKEN: 'ghp_secret',
  OPENAI_API_KEY: 'sk-secret',
  UNSET: undefined,
};

describe('SAFE_ENV_KEYS', () => {
  it('covers the POSIX basics and the Windows variables servers need', () => {
    for (const key of [
      'PATH',
      'HOME',
      'USER',
      'LOGNAME',
      'SHELL',
      'TERM',
      'LANG',
      'LC_ALL',
      'LC_CTYPE',
      'TMPDIR',
      'TZ',
    ]) {
      expect(SAFE_ENV_KEYS).toContain(key);
    }
    for (const key of [
      'PATHEXT',
      'SYSTEMROOT',
      'COMSPEC',
      'APPDATA',
      'LOCALAPPDATA',
      'USERPROFILE',
      'TEMP',
      'TMP',
    ]) {
      expect(SAFE_ENV_KEYS).toContain(key);
    }
    for (const key of ['HOMEDRIVE', 'HOMEPATH', 'PROGRAMFILES', 'PROGRAMDATA', 'WINDIR']) {
      expect(SAFE_ENV_KEYS).toContain(key);
    }
  });
});

describe('buildServerEnv', () => {
  it('passes only the safe keys of the host by default', () => {
    const env = buildServerEnv({ hostEnv: host, platform: 'linux' });
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/ada',
      LANG: 'en_US.UTF-8',
      TZ: 'Europe/Paris',
    });
    expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
  });

  it('passes a secret only when it is named in envPassthrough', () => {
    const env = buildServerEnv({
      hostEnv: host,
      envPassthrough: ['GITHUB_TOKEN', 'NOT_SET'],
      platform: 'linux',
    });
    expect(env.GITHUB_TOKEN).toBe('ghp_secret');
    expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
    expect(env).not.toHaveProperty('OPENAI_API_KEY');
    expect(env).not.toHaveProperty('NOT_SET');
  });

  it('lets explicit env win over safe keys and passthrough', () => {
    const env = buildServerEnv({
      hostEnv: host,
      env: { PATH: '/opt/bin', GITHUB_TOKEN: 'explicit', DEBUG: '1' },
      envPassthrough: ['GITHUB_TOKEN'],
      platform: 'linux',
    });
    expect(env.PATH).toBe('/opt/bin');
    expect(env.GITHUB_TOKEN).toBe('explicit');
    expect(env.DEBUG).toBe('1');
  });

  it('compares names case-sensitively on POSIX', () => {
    const env = buildServerEnv({
      hostEnv: { Path: '/x', path: '/y', github_token: 't' },
      envPassthrough: ['GITHUB_TOKEN'],
      platform: 'linux',
    });
    expect(env).toEqual({});
  });

  it('never passes an exported bash function implicitly', () => {
    const env = buildServerEnv({ hostEnv: { TERM: '() { :; }; echo pwned', HOME: '/h' }, platform: 'linux' });
    expect(env).toEqual({ HOME: '/h' });
  });

  describe('on win32', () => {
    const windowsHost = {
      Path: 'C:\\Windows;C:\\Program Files\\nodejs',
      SystemRoot: 'C:\\Windows',
      PATHEXT: '.COM;.EXE;.BAT;.CMD',
      ComSpec: 'C:\\Windows\\system32\\cmd.exe',
      APPDATA: 'C:\\Users\\ada\\AppData\\Roaming',
      ProgramFiles: 'C:\\Program Files',
      Github_Token: 'ghp_secret',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI',
    };

    it('matches safe keys whatever their case and keeps the host spelling', () => {
      const env = buildServerEnv({ hostEnv: windowsHost, platform: 'win32' });
      expect(env).toEqual({
        Path: windowsHost.Path,
        SystemRoot: windowsHost.SystemRoot,
        PATHEXT: windowsHost.PATHEXT,
        ComSpec: windowsHost.ComSpec,
        APPDATA: windowsHost.APPDATA,
        ProgramFiles: windowsHost.ProgramFiles,
      });
    });

    it('matches passthrough names case-insensitively', () => {
      const env = buildServerEnv({
        hostEnv: windowsHost,
        envPassthrough: ['GITHUB_TOKEN'],
        platform: 'win32',
      });
      expect(env.Github_Token).toBe('ghp_secret');
      expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
    });

    it('lets an explicit variable replace the host one spelled differently, leaving one entry', () => {
      const env = buildServerEnv({ hostEnv: windowsHost, env: { PATH: 'D:\\tools' }, platform: 'win32' });
      expect(env.PATH).toBe('D:\\tools');
      expect(env).not.toHaveProperty('Path');
      expect(Object.keys(env).filter((k) => k.toUpperCase() === 'PATH')).toEqual(['PATH']);
    });
  });
});

describe('getEnv', () => {
  it('reads case-insensitively on win32 only', () => {
    expect(getEnv({ Path: 'a' }, 'PATH', 'win32')).toBe('a');
    expect(getEnv({ Path: 'a' }, 'PATH', 'linux')).toBeUndefined();
  });
});
