import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadText } from './helpers.js';

describe('config formats', () => {
  it('reads the standard mcpServers format', async () => {
    const { servers, file, files } = await loadText(
      JSON.stringify({
        mcpServers: {
          fs: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
            env: { DEBUG: '1' },
          },
        },
      }),
    );
    expect(servers).toEqual([
      {
        name: 'fs',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
        env: { DEBUG: '1' },
        envPassthrough: [],
        headers: {},
        enabled: true,
        failIfNoTools: false,
        protocol: 'auto',
        origin: { layer: 'explicit', file, line: 1 },
        fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
        asWritten: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
          env: { DEBUG: '1' },
        },
        requiresTrust: false,
      },
    ]);
    expect(files).toEqual([{ path: file, layer: 'explicit', serverCount: 1 }]);
  });

  it('accepts comments and trailing commas in a config file', async () => {
    const { servers } = await loadText(`{
      // my servers
      "mcpServers": {
        "a": { "command": "node", "args": ["a.js",], }, /* the first */
      },
    }`);
    expect(servers.map((s) => [s.name, s.command, s.args])).toEqual([['a', 'node', ['a.js']]]);
  });

  it('splits an array command into command and args, before any args', async () => {
    const { servers } = await loadText(
      '{"servers": {"gh": {"command": ["npx", "-y", "@modelcontextprotocol/server-github"], "args": ["--ro"]}}}',
    );
    expect(servers[0]).toMatchObject({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github', '--ro'],
      transport: 'stdio',
    });
  });

  it('reads servers as an array of named entries', async () => {
    const { servers } = await loadText(`{"servers": [
      {"name": "one", "command": ["echo", "1"]},
      {"name": "two", "url": "https://example.com/mcp"}
    ]}`);
    expect(servers.map((s) => [s.name, s.transport, s.origin.line])).toEqual([
      ['one', 'stdio', 2],
      ['two', 'http', 3],
    ]);
  });

  it('reads remote servers with headers and every type synonym', async () => {
    const { servers } = await loadText(
      JSON.stringify({
        mcpServers: {
          plain: { url: 'https://a.example/mcp', headers: { Authorization: 'Bearer x' } },
          http: { url: 'https://b.example/mcp', type: 'http' },
          streamable: { url: 'https://c.example/mcp', type: 'streamable-http' },
          camel: { url: 'https://c.example/mcp', type: 'streamableHttp' },
          sse: { url: 'https://d.example/sse', type: 'sse' },
          viaTransport: { url: 'https://d.example/sse', transport: 'sse' },
          stdio: { command: 'x', type: 'stdio' },
          windsurf: { serverUrl: 'https://e.example/mcp' },
        },
      }),
    );
    expect(Object.fromEntries(servers.map((s) => [s.name, s.transport]))).toEqual({
      plain: 'http',
      http: 'http',
      streamable: 'http',
      camel: 'http',
      sse: 'sse',
      viaTransport: 'sse',
      stdio: 'stdio',
      windsurf: 'http',
    });
    expect(servers[0]).toMatchObject({
      url: 'https://a.example/mcp',
      headers: { Authorization: 'Bearer x' },
      args: [],
    });
  });

  it('accepts mcpServers, servers and VS Code style mcp.servers in one file', async () => {
    const { servers } = await loadText(
      JSON.stringify({
        $schema: 'https://example.com/schema.json',
        inputs: [],
        mcpServers: { a: { command: 'a' } },
        servers: { b: { command: 'b' } },
        mcp: { servers: { c: { command: 'c' } }, inputs: [] },
      }),
    );
    expect(servers.map((s) => s.name)).toEqual(['a', 'b', 'c']);
  });

  it('treats an empty file and {} as no servers', async () => {
    expect((await loadText('')).servers).toEqual([]);
    expect((await loadText('{}')).servers).toEqual([]);
    expect((await loadText('// nothing yet\n')).files[0]?.serverCount).toBe(0);
  });

  it('asks for a new approval when allowed_hosts widens where a server may send mcpx', async () => {
    const entry = { url: 'https://x.example/mcp' };
    const before = (await loadText(JSON.stringify({ mcpServers: { s: entry } }))).servers[0];
    const after = (
      await loadText(JSON.stringify({ mcpServers: { s: { ...entry, allowed_hosts: ['10.0.0.1'] } } }))
    ).servers[0];
    expect(after?.allowedHosts).toEqual(['10.0.0.1']);
    expect(after?.fingerprint).not.toBe(before?.fingerprint);
  });

  it('resolves a relative cwd against the config file directory', async () => {
    const { servers, dir } = await loadText(
      '{"mcpServers": {"rel": {"command": "x", "cwd": "tools/srv"}, "abs": {"command": "x", "cwd": "/opt/srv"}}}',
    );
    expect(servers[0]?.cwd).toBe(join(dir, 'tools', 'srv'));
    expect(servers[1]?.cwd).toBe('/opt/srv');
  });

  it('normalizes every server field and its spellings', async () => {
    const { servers } = await loadText(
      JSON.stringify({
        mcpServers: {
          full: {
            command: 'srv',
            env_passthrough: ['PATH'],
            fail_if_no_tools: true,
            connect_timeout: 5,
            request_timeout: 1.5,
            http_max_retries: 3,
            http_retry_backoff: 0.25,
            allowed_tools: ['read'],
            disabled_tools: ['write'],
            protocol: 'legacy',
            max_line_bytes: 1024,
          },
          camel: {
            url: 'https://x.example/mcp',
            envPassthrough: ['HOME'],
            failIfNoTools: true,
            connectTimeout: 2,
            requestTimeout: 3,
            allowedTools: ['a'],
            disabledTools: ['b'],
            oauth: { clientId: 'abc', scopes: ['read'] },
            allowedHosts: ['auth.intranet.example'],
          },
          foreign: {
            command: 'x',
            env_passthru: ['USER'],
            timeout: 60,
            includeTools: ['only'],
            excludeTools: ['never'],
            autoApprove: ['a'],
            alwaysAllow: ['b'],
            description: 'from Gemini',
            trust: true,
            tools: {},
          },
          alt: { command: 'x', excluded_tools: ['z'], disabled: true },
        },
      }),
    );
    const [full, camel, foreign, alt] = servers;
    expect(full).toMatchObject({
      envPassthrough: ['PATH'],
      failIfNoTools: true,
      connectTimeoutMs: 5000,
      requestTimeoutMs: 1500,
      httpMaxRetries: 3,
      httpRetryBackoffMs: 250,
      allowTools: ['read'],
      denyTools: ['write'],
      protocol: 'legacy',
      maxLineBytes: 1024,
    });
    expect(camel).toMatchObject({
      envPassthrough: ['HOME'],
      failIfNoTools: true,
      connectTimeoutMs: 2000,
      requestTimeoutMs: 3000,
      allowTools: ['a'],
      denyTools: ['b'],
      oauth: { clientId: 'abc', scopes: ['read'] },
      allowedHosts: ['auth.intranet.example'],
    });
    expect(foreign).toMatchObject({
      envPassthrough: ['USER'],
      requestTimeoutMs: 60_000,
      allowTools: ['only'],
      denyTools: ['never'],
      enabled: true,
    });
    expect(alt).toMatchObject({ denyTools: ['z'], enabled: false });
  });

  it('maps enabled and the foreign disabled', async () => {
    const { servers } = await loadText(
      JSON.stringify({
        mcpServers: {
          on: { command: 'x' },
          off: { command: 'x', enabled: false },
          disabled: { command: 'x', disabled: true },
          agree: { command: 'x', enabled: false, disabled: true },
        },
      }),
    );
    expect(servers.map((s) => [s.name, s.enabled])).toEqual([
      ['on', true],
      ['off', false],
      ['disabled', false],
      ['agree', false],
    ]);
  });
});
