// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are what is under test
import { describe, expect, it } from 'vitest';
import { protectSecrets } from '../../../../src/config/client-apps/protect-secrets.js';
import { namesSecret } from '../../../../src/text/index.js';

const protect = (entry: Record<string, unknown>, copyValues = false, chosen = new Map<string, string>()) =>
  protectSecrets('srv', entry, '/h/mcp.json:3', { chosen, ...(copyValues ? { copyValues } : {}) });

describe('protectSecrets', () => {
  it('turns every env and header value into a reference, whatever its name or shape', () => {
    const { entry, secrets } = protect({
      command: 'node',
      env: { OPENAI_KEY: 'plain', LOG_LEVEL: 'info', HOME_DIR: '${HOME}', EMPTY: '' },
      headers: { Authorization: 'Bearer abc', 'X-Stripe': 'xyz' },
    });
    expect(entry.env).toEqual({
      OPENAI_KEY: '${OPENAI_KEY}',
      LOG_LEVEL: '${LOG_LEVEL}',
      HOME_DIR: '${HOME}',
      EMPTY: '',
    });
    expect(entry.headers).toEqual({
      Authorization: 'Bearer ${SRV_AUTHORIZATION}',
      'X-Stripe': '${SRV_X_STRIPE}',
    });
    expect(secrets.map((s) => [s.where, s.variable, s.source])).toEqual([
      ['env OPENAI_KEY', 'OPENAI_KEY', '/h/mcp.json:3'],
      ['env LOG_LEVEL', 'LOG_LEVEL', '/h/mcp.json:3'],
      ['header Authorization', 'SRV_AUTHORIZATION', '/h/mcp.json:3'],
      ['header X-Stripe', 'SRV_X_STRIPE', '/h/mcp.json:3'],
    ]);
    expect(JSON.stringify(secrets)).not.toMatch(/plain|abc|xyz|info/);
  });

  it('finds credentials in args and URLs and names a variable after their key', () => {
    const { entry } = protect({
      command: 'npx',
      args: [
        'server',
        '--api-key=k1',
        '--token',
        't1',
        '--key-file',
        '/path/key.pem',
        '--no-auth',
        'ghp_abcdefghijklmnopqrstuvwx',
        'https://user:pw1@example.com/mcp?key=q1&mode=fast#top',
      ],
    });
    expect(entry.args).toEqual([
      'server',
      '--api-key=${SRV_API_KEY}',
      '--token',
      '${SRV_TOKEN}',
      '--key-file',
      '/path/key.pem',
      '--no-auth',
      '${SRV_TOKEN_2}',
      'https://user:${SRV_PASSWORD}@example.com/mcp?key=${SRV_KEY}&mode=fast#top',
    ]);
    expect(protect({ url: 'https://x.test/mcp?access_token=a1&x=1' }).entry.url).toBe(
      'https://x.test/mcp?access_token=${SRV_ACCESS_TOKEN}&x=1',
    );
  });

  it('copyValues keeps the values and still names them; the shown entry never has them', () => {
    const result = protect({ command: 'node', env: { STRIPE_KEY: 's1' }, args: ['--token=t1'] }, true);
    expect(result.entry).toEqual({ command: 'node', env: { STRIPE_KEY: 's1' }, args: ['--token=t1'] });
    expect(result.shown).toEqual({
      command: 'node',
      env: { STRIPE_KEY: '${STRIPE_KEY}' },
      args: ['--token=${SRV_TOKEN}'],
    });
    expect(result.secrets.every((s) => s.copied)).toBe(true);
  });

  it("another server's different value under the same key gets a variable of its own", () => {
    const chosen = new Map<string, string>();
    expect(protect({ env: { API_KEY: 'a' } }, false, chosen).entry.env).toEqual({ API_KEY: '${API_KEY}' });
    expect(protect({ env: { API_KEY: 'a' } }, false, chosen).entry.env).toEqual({ API_KEY: '${API_KEY}' });
    expect(protect({ env: { API_KEY: 'b' } }, false, chosen).entry.env).toEqual({
      API_KEY: '${SRV_API_KEY}',
    });
  });

  it('names a credential by the last word of its key', () => {
    for (const name of ['key', 'api-key', 'apiKey', 'access_token', 'clientSecret', 'password', 'auth'])
      expect(namesSecret(name), name).toBe(true);
    for (const name of ['key-file', 'token-env', 'auth-type', 'mode', 'keyboard', 'no-auth', 'port'])
      expect(namesSecret(name), name).toBe(false);
  });
});
