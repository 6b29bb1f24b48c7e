// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the syntax under test
import { describe, expect, it } from 'vitest';
import { exportServers } from '../../../../src/low-level.js';
import { loadText } from '../helpers.js';

describe('exportServers (the library hand-over, e.g. for claude --mcp-config)', () => {
  it('writes Claude Code\'s {"mcpServers": …} with ${VAR} references as written, never their values', async () => {
    const config = await loadText(
      JSON.stringify({
        mcpServers: {
          gh: { command: ['npx', '-y', 'gh-server'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } },
          api: {
            url: 'https://example.com/mcp',
            headers: { Authorization: 'Bearer ${API_KEY}' },
            timeout: 30,
          },
        },
      }),
      { GITHUB_TOKEN: 'ghp_real_value', API_KEY: 'real-key' },
    );
    const ctx = { homedir: '/home/ada', platform: 'linux' as const, env: {}, cwd: '/work' };
    const result = exportServers('claude-code', config.servers, ctx);
    expect(JSON.parse(result.text)).toEqual({
      mcpServers: {
        gh: {
          type: 'stdio',
          command: 'npx',
          args: ['-y', 'gh-server'],
          env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
        },
        api: {
          type: 'http',
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer ${API_KEY}' },
        },
      },
    });
    expect(result.text).not.toContain('ghp_real_value');
    expect(result.notes).toEqual(['api: Claude Code has no setting for request_timeout; left out']);
  });
});
