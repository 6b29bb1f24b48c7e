// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the config syntax under test
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/config/index.js';
import { ErrorCode, formatError } from '../../../src/errors/index.js';
import { loadError, loadText, tempDir, writeFiles } from './helpers.js';

describe('config validation errors', () => {
  it('reports a wrong type with field, expected, received and line', async () => {
    const { error, file } = await loadError(
      '{\n  "mcpServers": {\n    "fs": {\n      "command": "npx",\n      "args": ["-y", 3]\n    }\n  }\n}',
    );
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toBe(`${file}:5:22: server 'fs': args[1]: expected string, received number 3`);
    expect(error.context).toMatchObject({
      server: 'fs',
      field: 'args[1]',
      expected: 'string',
      received: 'number 3',
      origin: { file, line: 5, column: 22, layer: 'explicit' },
    });
    expect(error.fixes[0]).toBe('quote it: "3"');
  });

  it('suggests the array form when args is a string', async () => {
    const { error } = await loadError('{"mcpServers": {"fs": {"command": "npx", "args": "-y \'my pkg\'"}}}');
    expect(error.message).toContain('args: expected array of strings, received string "-y \'my pkg\'"');
    expect(error.context).toMatchObject({ expected: 'array of strings' });
    expect(error.fixes[0]).toBe('write it as an array: ["-y","my pkg"]');
  });

  it('rejects non-string env values with a quoted fix', async () => {
    const { error } = await loadError(
      '{"mcpServers": {"db": {"command": "x", "env": {"PORT": 5432, "DEBUG": true}}}}',
    );
    expect(error.message).toContain("server 'db': env.PORT: expected string, received number 5432");
    expect(error.fixes[0]).toBe('quote the value: "PORT": "5432"');
  });

  it('reports wrong types for scalars', async () => {
    const { error } = await loadError(
      '{"mcpServers": {"a": {"command": "x", "enabled": "false", "connect_timeout": "30"}}}',
    );
    expect(error.message).toContain('enabled: expected boolean (true or false), received string "false"');
    expect(error.fixes).toContain('write false without quotes');
    expect(error.fixes.at(-1)).toBe('run `mcpx config validate` to see all 2 problems');
  });

  it('names an unknown field with a did-you-mean, server, file and line', async () => {
    const { error, file } = await loadError(
      '{\n  "mcpServers": {\n    "fs": {\n      "comand": "npx"\n    }\n  }\n}',
    );
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toBe(`${file}:4:7: server 'fs': unknown field 'comand' — did you mean 'command'?`);
    expect(error.context).toMatchObject({ server: 'fs', field: 'comand', origin: { line: 4 } });
    expect(error.fixes[0]).toBe("rename 'comand' to 'command'");
    // The typo explains the missing command; no second "neither command nor url" error.
    expect(error.fixes.some((f) => f.includes('config validate'))).toBe(false);
  });

  it('suggests snake_case for a case/underscore variant', async () => {
    const { error } = await loadError('{"mcpServers": {"a": {"command": "x", "Fail_If_No_Tools": true}}}');
    expect(error.message).toContain("did you mean 'fail_if_no_tools'?");
  });

  it('accepts the env passthrough spellings and foreign keys', async () => {
    const { servers } = await loadText(
      JSON.stringify({
        mcpServers: {
          a: {
            command: 'x',
            envPassthrough: ['A'],
            type: 'stdio',
            disabled: false,
            timeout: 10,
            autoApprove: [],
          },
          b: { command: 'x', env_passthrough: ['B'], alwaysAllow: ['t'] },
          c: { command: 'x', env_passthru: ['C'] },
        },
      }),
    );
    expect(servers.map((s) => s.envPassthrough)).toEqual([['A'], ['B'], ['C']]);
  });

  it('rejects two spellings of one setting that disagree', async () => {
    const { error } = await loadError(
      '{"mcpServers": {"a": {"command": "x", "timeout": 5, "request_timeout": 6}}}',
    );
    expect(error.message).toContain("'timeout' and 'request_timeout' mean the same setting but differ");
  });

  it('rejects enabled and disabled that contradict each other', async () => {
    const { error } = await loadError(
      '{"mcpServers": {"a": {"command": "x", "enabled": true, "disabled": true}}}',
    );
    expect(error.message).toContain("'enabled': true and 'disabled': true contradict each other");
  });

  it('explains a server with neither command nor url, showing both shapes', async () => {
    const { error, file } = await loadError('{\n  "mcpServers": {\n    "x": {"env": {}}\n  }\n}');
    expect(error.code).toBe(ErrorCode.ConfigMissingTransport);
    expect(error.message).toBe(`${file}:3:5: server 'x': has neither command nor url`);
    expect(error.fixes.join('\n')).toContain('"x": { "command": "npx", "args": ["-y", "<package>"] }');
    expect(error.fixes.join('\n')).toContain('"x": { "url": "https://example.com/mcp" }');
  });

  it('rejects a server with both command and url', async () => {
    const { error } = await loadError(
      '{"mcpServers": {"x": {"command": "a", "url": "https://e.example/mcp"}}}',
    );
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toContain("server 'x': has both 'command' and 'url'");
  });

  it('rejects a type that contradicts the transport, and unknown types', async () => {
    expect(
      (await loadError('{"mcpServers": {"x": {"command": "a", "type": "http"}}}')).error.message,
    ).toContain("'type' is \"http\" but the server has a 'command'");
    const { error } = await loadError('{"mcpServers": {"x": {"url": "https://e.example", "type": "htp"}}}');
    expect(error.message).toContain('type: expected "stdio", "http" or "sse", received string "htp"');
    expect(error.fixes).toContain('did you mean "http"?');
  });

  it('rejects a URL that is not http(s)', async () => {
    const { error } = await loadError('{"mcpServers": {"x": {"url": "ftp://e.example/mcp"}}}');
    expect(error.message).toContain('url: "ftp://e.example/mcp" uses ftp; only http and https are supported');
  });

  it('rejects the same server name in mcpServers and servers of one file', async () => {
    const { error } = await loadError(
      '{\n"mcpServers": {"a": {"command": "x"}},\n"servers": {"a": {"command": "y"}}\n}',
    );
    expect(error.message).toContain("server 'a': is defined twice in this file (line 2 and line 3)");
  });

  it('rejects a duplicate key in a server entry with both lines', async () => {
    const { error, file } = await loadError(
      '{"mcpServers": {"a": {\n  "command": "x",\n  "command": "y"\n}}}',
    );
    expect(error.message).toBe(
      `${file}:3:3: duplicate key 'command' in mcpServers.a (first at line 2, again at line 3)`,
    );
  });

  it('rejects names with dots or spaces, suggesting a rename', async () => {
    const { error } = await loadError('{"mcpServers": {"fs.main": {"command": "x"}}}');
    expect(error.message).toContain("the name 'fs.main' contains a '.'");
    expect(error.fixes).toEqual(['rename it to fs-main']);
    expect((await loadError('{"mcpServers": {"my server": {"command": "x"}}}')).error.fixes).toEqual([
      'rename it to my-server',
    ]);
  });

  it('rejects array entries without a name', async () => {
    const { error } = await loadError('{"servers": [{"command": "x"}]}');
    expect(error.message).toContain('a server in an array needs a "name"');
  });

  it('rejects unknown top-level keys with a suggestion, and servers outside a section', async () => {
    const { error } = await loadError('{"mcpServer": {"a": {"command": "x"}}}');
    expect(error.message).toContain("unknown key 'mcpServer' — did you mean 'mcpServers'?");
    const stray = await loadError('{"fs": {"command": "x"}}');
    expect(stray.error.message).toContain(
      '\'fs\' looks like a server but is not inside "mcpServers" or "servers"',
    );
  });

  it('rejects a top level that is not an object', async () => {
    const { error } = await loadError('[1, 2]');
    expect(error.message).toContain('the top level must be an object');
  });

  it('formats as one line naming the server and the fix', async () => {
    const { error, file } = await loadError('{"mcpServers": {"fs": {"comand": "npx"}}}');
    expect(formatError(error)).toBe(
      `error: ${file}:1:24: server 'fs': unknown field 'comand' — did you mean 'command'? (explicit config) — rename 'comand' to 'command'`,
    );
  });
});

describe('validateConfig', () => {
  it('returns every problem across every file without stopping', async () => {
    const root = await tempDir();
    const home = `${root}/home`;
    await writeFiles(root, {
      'home/mcp.json': '{"mcpServers": {"g": {"comand": "x"}, "h": {"command": 1}}}',
      'proj/.mcp.json': '{"mcpServers": {"p": {"command": "x",, }}}',
      'proj/.mcpx/mcp.json':
        '{"mcpServers": {"q": {"command": "x", "env": {"K": "${NOPE_NOT_SET}"}}, "ok": {"command": "y"}}}',
    });
    const result = await validateConfig({ cwd: `${root}/proj`, env: {}, home, includeBuiltin: false });
    expect(result.problems.map((p) => p.code)).toEqual([
      ErrorCode.ConfigInvalid,
      ErrorCode.ConfigInvalid,
      ErrorCode.ConfigInvalidJson,
      ErrorCode.ConfigInterpolation,
    ]);
    expect(result.files.map((f) => [f.layer, f.serverCount])).toEqual([
      ['global', 2],
      ['project', 2],
      ['project', 0],
    ]);
    expect(result.serverCount).toBe(1);
  });
});
