import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMcpxProcess, runsMcpx } from '../../../../src/config/command-line/runs-mcpx.js';

const line = (command: string, ...args: string[]) => ({ command, args });
const CLI = '/opt/mcpx/dist/bin/mcpx.cjs';

describe('runsMcpx', () => {
  it.each([
    // By name, by path, as a runtime's script.
    [line('mcpx', 'serve'), 'mcpx'],
    [line('/usr/local/bin/mcpx', 'serve'), 'mcpx'],
    [line('C:\\Users\\a\\AppData\\Roaming\\npm\\mcpx.cmd', 'serve'), 'mcpx'],
    [line('node', CLI, 'serve'), `node ${CLI}`],
    [
      line('/usr/bin/node', '--no-warnings', '-r', 'x.js', 'node_modules/.bin/mcpx', 'serve'),
      'node node_modules/.bin/mcpx',
    ],
    [line('node', '--env-file', '.env', '--import', 'tsx', CLI), `node ${CLI}`],
    [line('node', '--inspect=9229', '--', CLI), `node ${CLI}`],
    [line('nodejs', CLI), `nodejs ${CLI}`],
    [line('deno', 'run', '-A', 'npm:mcpx@1', 'serve'), 'deno npm:mcpx@1'],
    [line('bun', 'run', CLI), `bun ${CLI}`],
    // Package runners.
    [line('npx', 'mcpx', 'serve'), 'npx mcpx'],
    [line('npx', '-y', 'mcpx@latest', 'serve'), 'npx mcpx'],
    [line('npx', '--yes', '--package=mcpx@0.1.0', 'mcpx', 'serve'), 'npx mcpx'],
    [line('npx', '--registry', 'https://r.example', 'mcpx', 'serve'), 'npx mcpx'],
    [line('npx', '-p', 'mcpx', '-c', 'mcpx serve'), 'mcpx'],
    [line('npx', '--call=exec mcpx serve'), 'mcpx'],
    [line('npm', 'exec', '--', 'mcpx', 'serve'), 'npm exec mcpx'],
    [line('npm', 'x', '-y', 'mcpx'), 'npm x mcpx'],
    [line('pnpm', 'dlx', 'mcpx', 'serve'), 'pnpm dlx mcpx'],
    [line('pnpm', 'dlx', '-c', 'mcpx serve'), 'mcpx'],
    [line('yarn', 'dlx', 'mcpx'), 'yarn dlx mcpx'],
    [line('bunx', 'mcpx@1', 'serve'), 'bunx mcpx'],
    [line('bun', 'x', 'mcpx', 'serve'), 'bun x mcpx'],
    // GNU env, read as env reads its arguments.
    [line('env', 'DEBUG=1', 'npx', '-y', 'mcpx', 'serve'), 'npx mcpx'],
    [line('env', '-i', 'PATH=/usr/bin', 'HOME=/h', 'mcpx', 'serve'), 'mcpx'],
    [line('env', '-u', 'MCPX_SERVER_CHAIN', 'node', CLI, 'serve'), `node ${CLI}`],
    [line('env', '-uMCPX_SERVER_CHAIN', 'mcpx'), 'mcpx'],
    [line('env', '--unset=MCPX_SERVER_CHAIN', 'mcpx'), 'mcpx'],
    [line('env', '--unset', 'MCPX_SERVER_CHAIN', 'mcpx'), 'mcpx'],
    [line('env', '--unse', 'MCPX_SERVER_CHAIN', 'mcpx'), 'mcpx'], // getopt_long takes a unique prefix
    [line('env', '-C', '/srv', 'mcpx'), 'mcpx'],
    [line('env', '--chdir=/srv', 'mcpx'), 'mcpx'],
    [line('env', '-iv0', '-C', '/srv', 'FOO=1', 'mcpx'), 'mcpx'],
    [line('env', '-iu', 'A', '-uB', 'mcpx'), 'mcpx'],
    [line('env', '-S', 'mcpx serve --config x.json'), 'mcpx'],
    [line('env', '-S', '-i FOO=1 node /opt/mcpx/dist/bin/mcpx.cjs'), `node ${CLI}`],
    [line('env', '-Smcpx serve'), 'mcpx'],
    [line('env', '--split-string=sh -c "exec mcpx serve"'), 'mcpx'],
    [line('env', '--default-signal', '--ignore-signal=PIPE', '--block-signal=INT', 'mcpx'), 'mcpx'],
    [line('env', '-', 'mcpx'), 'mcpx'],
    [line('env', '--', 'A=1', 'mcpx'), 'mcpx'],
    [line('env', 'env', '-i', 'env', '-u', 'X', 'mcpx'), 'mcpx'],
    // Shells: -c in any cluster, options before it, the line split as the shell splits it.
    [line('sh', '-c', 'mcpx serve --servers a,b'), 'mcpx'],
    [line('bash', '-lc', 'mcpx serve'), 'mcpx'],
    [line('bash', '-ec', 'mcpx serve'), 'mcpx'],
    [line('/bin/bash', '-i', '-c', 'mcpx serve'), 'mcpx'],
    [line('bash', '-o', 'pipefail', '-c', 'mcpx serve'), 'mcpx'],
    [line('bash', '-eo', 'pipefail', '-c', 'mcpx serve'), 'mcpx'],
    [line('bash', '--noprofile', '--norc', '-c', 'mcpx serve'), 'mcpx'],
    [line('bash', '-c', '--', 'mcpx serve'), 'mcpx'],
    [line('zsh', '-c', 'exec mcpx serve'), 'mcpx'],
    [line('dash', '-c', 'cd /srv && exec node ./dist/bin/mcpx.cjs serve'), 'node ./dist/bin/mcpx.cjs'],
    [line('sh', '-c', 'FOO=1 BAR="a b" exec mcpx serve'), 'mcpx'],
    [line('sh', '-c', 'set -e; echo starting >&2; mcpx serve 2>/dev/null'), 'mcpx'],
    [line('sh', '-c', 'true || mcpx serve'), 'mcpx'],
    [line('sh', '-c', 'test -f x && (mcpx serve)'), 'mcpx'],
    [line('sh', '-c', 'if true; then exec mcpx serve; fi'), 'mcpx'],
    [line('sh', '-c', 'echo $(mcpx --version)'), 'mcpx'],
    [line('sh', '-c', 'exec "$0" "$@"', 'mcpx', 'serve'), 'mcpx'],
    [line('sh', '-c', '"$@"', 'sh', 'node', CLI, 'serve'), `node ${CLI}`],
    [line('sh', '-c', 'exec $1 serve', 'sh', 'mcpx'), 'mcpx'],
    [line('sh', '-c', 'eval "exec mcpx serve"'), 'mcpx'],
    [line('sh', '-c', 'nohup setsid nice -n 5 timeout 1h mcpx serve'), 'mcpx'],
    [line('sh', '-c', 'exec -a gateway mcpx serve'), 'mcpx'],
    [line('sh', '-c', 'command mcpx serve'), 'mcpx'],
    [line('sh', '-c', "exec env -i sh -c 'exec mcpx serve'"), 'mcpx'],
    [line('busybox', 'sh', '-c', 'mcpx serve'), 'mcpx'],
    [line('sudo', '-u', 'svc', 'mcpx', 'serve'), 'mcpx'],
    [line('timeout', '--signal=KILL', '10', 'mcpx'), 'mcpx'],
    [line('cmd.exe', '/d', '/s', '/c', '"mcpx serve"'), 'mcpx'],
    [line('cmd', '/c', 'mcpx.cmd', 'serve'), 'mcpx'],
    [line('powershell', '-NoProfile', '-Command', 'mcpx serve'), 'mcpx'],
  ])('%j runs mcpx (%s)', (entry, how) => {
    expect(runsMcpx(entry)).toBe(how);
  });

  it.each([
    line('npx', '-y', '@modelcontextprotocol/server-memory'),
    line('npx', '-y', '@someone/mcpx'),
    line('npx', '-y', 'mcpx-server-thing'),
    line('npx', '-c', 'echo mcpx'),
    line('node', 'server.js', 'mcpx'),
    line('node', '-e', 'require("mcpx")', CLI),
    line('node', '-r', 'mcpx', 'server.js'),
    line('npm', 'run', 'mcpx'),
    line('uvx', 'mcp-server-time'),
    line('env', 'FOO=1', 'node', 'server.js'),
    line('env', 'MCPX=mcpx', 'node', 'server.js'),
    line('env', '-u', 'mcpx', 'node', 'server.js'),
    line('env', '-C', 'mcpx', 'node', 'server.js'),
    line('env', '-S', 'node server.js mcpx'),
    line('env', '--help', 'mcpx'),
    line('env', '--bogus', 'mcpx'),
    line('env', 'mcpx=1'),
    line('env', "-S'mcpx serve'"), // one word, \`mcpx serve\`: no such command
    line('sh', '-c', 'echo "unterminated'),
    line('sh', '-c', 'echo mcpx serve'),
    line('sh', '-c', "echo 'mcpx serve' > mcpx"),
    line('sh', '-c', '# mcpx serve'),
    line('sh', 'mcpx-wrapper.sh'),
    line('sh', '-c', 'exec node server.js', 'mcpx'),
    line('bash', '-o', 'mcpx', 'script.sh'),
    line('sh', '-c', 'command -v mcpx'),
    line('sudo', '-l', 'mcpx'),
    line('cmd', '/c', 'echo', 'mcpx'),
    line('docker', 'run', '-i', 'mcpx'),
    line('constructor'),
    line('sh', '-c', 'x=$(echo "unclosed'),
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
      expect(runsMcpx(line('node', 'tool', 'serve'), { selfScript: self, cwd: dir })).toBe('node tool');
      expect(runsMcpx(line(join(dir, 'tool')), { selfScript: self })).toBe(join(dir, 'tool'));
      expect(runsMcpx(line('node', './other.js'), { selfScript: self, cwd: dir })).toBeUndefined();
      // `env -C` and `cd` move where a relative script is found.
      expect(runsMcpx(line('env', '-C', dir, 'node', './tool'), { selfScript: self, cwd: '/' })).toBe(
        'node ./tool',
      );
      expect(
        runsMcpx(line('sh', '-c', `cd ${dir} && exec node ./tool`), { selfScript: self, cwd: '/' }),
      ).toBe('node ./tool');
      expect(runsMcpx(line('sh', '-c', 'exec node ./tool'), { selfScript: self, cwd: '/' })).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds a bare command on the PATH each wrapper gives it, and follows links to mcpx', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-link-'));
    try {
      symlinkSync('/opt/mcpx/dist/bin/mcpx.cjs', join(dir, 'gateway'));
      const asked: { command: string; path: string | undefined; cwd: string | undefined }[] = [];
      const files = {
        which: (command: string, at: { cwd?: string | undefined; path?: string | undefined }) => {
          asked.push({ command, path: at.path, cwd: at.cwd });
          return command === 'gateway' ? join(dir, 'gateway') : undefined;
        },
        realpath: (path: string) => (path === join(dir, 'gateway') ? CLI : undefined),
      };
      expect(runsMcpx(line('gateway', 'serve'), { files })).toBe('gateway');
      expect(runsMcpx(line('env', '-i', 'gateway'), { files })).toBe('gateway');
      expect(runsMcpx(line('env', 'PATH=/x', '-C', '/srv', 'gateway'), { files })).toBeUndefined(); // -C after NAME=VALUE is a command
      expect(runsMcpx(line('env', '-C', '/srv', 'PATH=/x', 'gateway'), { files })).toBe('gateway');
      expect(runsMcpx(line('sh', '-c', 'PATH=/y gateway'), { files })).toBe('gateway');
      expect(runsMcpx(line('other-server'), { files })).toBeUndefined();
      expect(asked).toContainEqual({ command: 'gateway', path: undefined, cwd: undefined });
      expect(asked).toContainEqual({
        command: 'gateway',
        path: '/usr/local/bin:/usr/bin:/bin',
        cwd: undefined,
      });
      expect(asked).toContainEqual({ command: 'gateway', path: '/x', cwd: '/srv' });
      expect(asked).toContainEqual({ command: 'gateway', path: '/y', cwd: undefined });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('isMcpxProcess', () => {
  it.each([
    [['node', CLI, 'serve'], true],
    [['/usr/bin/node', '--max-old-space-size=200', CLI, 'serve', '--config', 'x.json'], true],
    [['node', '/home/u/.npm/_npx/1a2b/node_modules/.bin/mcpx', 'serve'], true],
    [['mcpx', 'serve'], true],
    [['deno', 'run', 'npm:mcpx', 'serve'], true],
    // What would start mcpx is not mcpx: its child is.
    [['sh', '-c', 'mcpx serve'], false],
    [['env', '-i', 'node', CLI], false],
    [['npm exec mcpx serve'], false],
    [['node', '/usr/lib/node_modules/npm/bin/npx-cli.js', 'mcpx'], false],
    [['node', 'server.js', 'mcpx'], false],
    [[], false],
  ])('%j: %s', (argv, expected) => {
    expect(isMcpxProcess(argv)).toBe(expected);
  });

  it('knows the running mcpx by its script under any name, from the process’s own folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-proc-'));
    try {
      const self = join(dir, 'cli-entry.js');
      writeFileSync(self, '');
      symlinkSync(self, join(dir, 'tool'));
      expect(isMcpxProcess(['node', './tool', 'serve'], { selfScript: self, cwd: dir })).toBe(true);
      expect(isMcpxProcess(['node', './tool', 'serve'], { selfScript: self, cwd: '/' })).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
