// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the config syntax under test
import { describe, expect, it } from 'vitest';
import { interpolate } from '../../../../src/config/index.js';
import { ErrorCode } from '../../../../src/errors/index.js';
import { loadText } from '../helpers.js';

describe('interpolate', () => {
  const env = { HOME: '/home/me', EMPTY: '', TOKEN: 'abc', NESTED: '${TOKEN}' };

  it('replaces ${VAR} and ${VAR:-default}', () => {
    expect(interpolate('${HOME}/data', env)).toEqual({ ok: true, value: '/home/me/data' });
    expect(interpolate('${PORT:-8080}', env)).toEqual({ ok: true, value: '8080' });
    expect(interpolate('${TOKEN:-x}', env)).toEqual({ ok: true, value: 'abc' });
    // `:-` uses the default for an empty value too, like the shell.
    expect(interpolate('${EMPTY:-fallback}', env)).toEqual({ ok: true, value: 'fallback' });
    expect(interpolate('${EMPTY}', env)).toEqual({ ok: true, value: '' });
    expect(interpolate('${env:TOKEN}', env)).toEqual({ ok: true, value: 'abc' });
  });

  it('does not recurse, run commands or expand bare $NAME', () => {
    expect(interpolate('${NESTED}', env)).toEqual({ ok: true, value: '${TOKEN}' });
    expect(interpolate('$(whoami) `id` $HOME', env)).toEqual({ ok: true, value: '$(whoami) `id` $HOME' });
    expect(interpolate('${X:-$(whoami)}', env)).toEqual({ ok: true, value: '$(whoami)' });
  });

  it('turns $$ into a literal $', () => {
    expect(interpolate('cost: $$5 and $${HOME}', env)).toEqual({ ok: true, value: 'cost: $5 and ${HOME}' });
  });

  it('reports missing variables, invalid and unterminated placeholders', () => {
    expect(interpolate('${A}-${B}-${A}', {})).toEqual({
      ok: false,
      reason: 'missing',
      variable: 'A',
      missing: ['A', 'B'],
    });
    expect(interpolate('${command:token}', env)).toMatchObject({
      ok: false,
      reason: 'invalid',
      variable: '${command:token}',
    });
    // VS Code's ${input:id} is the variable MCPX_INPUT_<ID>.
    expect(interpolate('${input:api-key}', {})).toMatchObject({ ok: false, missing: ['MCPX_INPUT_API_KEY'] });
    expect(interpolate('k=${input:api-key}', { MCPX_INPUT_API_KEY: 's' })).toEqual({
      ok: true,
      value: 'k=s',
    });
    expect(interpolate('x ${HOME', env)).toMatchObject({ ok: false, reason: 'unterminated' });
  });
});

describe('interpolation while loading', () => {
  it('interpolates command, args, env, url, headers and cwd', async () => {
    const { servers, dir } = await loadText(
      JSON.stringify({
        mcpServers: {
          local: {
            command: '${BIN:-node}',
            args: ['${ROOT}/server.js', '--name=${USER}'],
            env: { API_KEY: '${KEY}', PLAIN: 'x' },
            cwd: '${SUB:-work}',
          },
          remote: { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${KEY}' } },
        },
      }),
      { ROOT: '/srv', USER: 'me', KEY: 'k1', HOST: 'api.example.com' },
    );
    expect(servers[0]).toMatchObject({
      command: 'node',
      args: ['/srv/server.js', '--name=me'],
      env: { API_KEY: 'k1', PLAIN: 'x' },
      cwd: `${dir}/work`,
    });
    expect(servers[1]).toMatchObject({
      url: 'https://api.example.com/mcp',
      headers: { Authorization: 'Bearer k1' },
    });
  });

  it('leaves a server with a missing variable unusable without breaking the others', async () => {
    const { servers, unusable, file } = await loadText(
      '{\n  "mcpServers": {\n    "gh": {\n      "command": "npx",\n      "env": {"API_KEY": "${GITHUB_TOKEN}", "B": "${OTHER}"}\n    },\n    "ok": {"command": "x"}\n  }\n}',
    );
    expect(servers.map((s) => s.name)).toEqual(['ok']);
    const error = unusable.get('gh');
    expect(error?.code).toBe(ErrorCode.ConfigInterpolation);
    expect(error?.message).toBe(
      `${file}:5:26: server 'gh': env.API_KEY uses \${GITHUB_TOKEN}, which is not set (also unset: OTHER)`,
    );
    expect(error?.context).toMatchObject({
      server: 'gh',
      field: 'env.API_KEY',
      origin: { file, line: 5, layer: 'explicit' },
    });
    expect(error?.fixes).toEqual([
      'export GITHUB_TOKEN=… before running mcpx',
      `or give a default in ${file}: "\${GITHUB_TOKEN:-default}"`,
    ]);
  });

  it('interpolates the oauth block, and names its field when a variable is missing', async () => {
    const text = JSON.stringify({
      mcpServers: {
        remote: {
          url: 'https://x.example/mcp',
          oauth: { client_id: 'cli', client_secret: '${SECRET}', scopes: ['a', 'b'] },
        },
      },
    });
    const { servers } = await loadText(text, { SECRET: 's3cret' });
    expect(servers[0]?.oauth).toEqual({ client_id: 'cli', client_secret: 's3cret', scopes: ['a', 'b'] });
    const { unusable } = await loadText(text);
    expect(unusable.get('remote')).toMatchObject({
      code: ErrorCode.ConfigInterpolation,
      context: { field: 'oauth.client_secret' },
    });
  });

  it('names the array element for a variable in an array command', async () => {
    const { unusable } = await loadText('{"servers": {"s": {"command": ["npx", "${PKG}"]}}}');
    expect(unusable.get('s')?.message).toContain("server 's': command[1] uses ${PKG}, which is not set");
  });

  it('keeps $(...) and backticks literal in a loaded config', async () => {
    const { servers } = await loadText(
      '{"mcpServers": {"s": {"command": "echo", "args": ["$(whoami)", "`id`"]}}}',
    );
    expect(servers[0]?.args).toEqual(['$(whoami)', '`id`']);
  });

  it('checks a URL that is only complete after interpolation', async () => {
    const { unusable } = await loadText('{"mcpServers": {"r": {"url": "${BASE}/mcp"}}}', { BASE: 'ftp://x' });
    expect(unusable.get('r')?.message).toContain('url after interpolation: "ftp://x/mcp" uses ftp');
  });
});
