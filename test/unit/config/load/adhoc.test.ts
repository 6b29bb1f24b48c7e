import { describe, expect, it } from 'vitest';
import { adhocHttpServer, adhocStdioServer, splitCommandLine } from '../../../../src/config/index.js';
import { ErrorCode, McpxError } from '../../../../src/errors/index.js';

describe('splitCommandLine', () => {
  it('splits on whitespace and respects quotes', () => {
    expect(splitCommandLine('  npx  -y\t@scope/pkg  ')).toEqual(['npx', '-y', '@scope/pkg']);
    expect(splitCommandLine(`node "my server.js" --name 'a b' ""`)).toEqual([
      'node',
      'my server.js',
      '--name',
      'a b',
      '',
    ]);
    expect(splitCommandLine(`echo "it's" 'say "hi"' mixed"qu"'oted'`)).toEqual([
      'echo',
      "it's",
      'say "hi"',
      'mixedquoted',
    ]);
  });

  it('handles escaped spaces and escapes inside double quotes', () => {
    expect(splitCommandLine('python my\\ server.py')).toEqual(['python', 'my server.py']);
    expect(splitCommandLine('echo "a \\"b\\" \\\\ \\n"')).toEqual(['echo', 'a "b" \\ \\n']);
    expect(splitCommandLine("echo 'no \\escapes'")).toEqual(['echo', 'no \\escapes']);
  });

  it('expands and runs nothing', () => {
    expect(splitCommandLine('echo $HOME $(whoami) `id` ~ *')).toEqual([
      'echo',
      '$HOME',
      '$(whoami)',
      '`id`',
      '~',
      '*',
    ]);
  });

  it('rejects an unterminated quote', () => {
    expect(() => splitCommandLine('node "server.js')).toThrow(/unterminated double quote/);
  });
});

describe('ad-hoc servers', () => {
  it('builds a stdio server named after what it runs', () => {
    const server = adhocStdioServer('npx -y @modelcontextprotocol/server-filesystem@latest /tmp', '/work');
    expect(server).toMatchObject({
      name: 'server-filesystem',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem@latest', '/tmp'],
      cwd: '/work',
      origin: { layer: 'adhoc' },
      requiresTrust: false,
      enabled: true,
    });
    expect(adhocStdioServer('python3 -m my_server', '/w').name).toBe('my_server');
    expect(adhocStdioServer('node ./dist/test-server.js', '/w').name).toBe('test-server');
    expect(adhocStdioServer('/usr/local/bin/my.server --x', '/w').name).toBe('my-server');
    expect(adhocStdioServer('"/opt/My Tools/srv"', '/w')).toMatchObject({
      name: 'srv',
      command: '/opt/My Tools/srv',
    });
  });

  it('rejects an empty command line', () => {
    const error = (() => {
      try {
        adhocStdioServer('   ', '/w');
      } catch (e) {
        return e as McpxError;
      }
    })();
    expect(error).toBeInstanceOf(McpxError);
    expect(error?.code).toBe(ErrorCode.Usage);
  });

  it('builds an HTTP server named after the host', () => {
    expect(adhocHttpServer('https://mcp.example.com/mcp')).toMatchObject({
      name: 'mcp-example-com',
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      origin: { layer: 'adhoc' },
      requiresTrust: false,
    });
    expect(adhocHttpServer('http://127.0.0.1:3000/sse', 'sse')).toMatchObject({
      name: '127-0-0-1',
      transport: 'sse',
    });
    expect(() => adhocHttpServer('localhost:3000')).toThrow(/only http and https/);
  });
});
