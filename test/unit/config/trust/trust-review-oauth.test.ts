/** What a person approving a repository's server sees of its oauth block: where a credential is read from, never a secret. */
import { describe, expect, it } from 'vitest';
import { adhocHttpServer } from '../../../../src/config/index.js';
import { describeForTrust } from '../../../../src/config/trust/trust-review.js';
import type { ServerConfig } from '../../../../src/config/types.js';

const oauth = {
  grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
  client_id: 'workload',
  client_secret: 'sk-canary-literal',
  assertion_file: '/home/me/.ssh/id_ed25519',
  id_token_env: 'AWS_SECRET_ACCESS_KEY',
  idp_token_endpoint: 'https://idp.example.com/token',
};
const server: ServerConfig = {
  ...adhocHttpServer('https://mcp.example.com/mcp'),
  name: 'remote',
  origin: { layer: 'project', file: '/repo/.mcp.json', line: 2 },
  oauth,
  asWritten: { url: 'https://mcp.example.com/mcp', oauth },
};

describe('the trust review of an oauth block', () => {
  it('shows which file and variable mcpx would read and where it would send them, and hides secrets', () => {
    const text = describeForTrust(server).join('\n');
    expect(text).toContain('assertion_file: /home/me/.ssh/id_ed25519');
    expect(text).toContain('id_token_env: AWS_SECRET_ACCESS_KEY');
    expect(text).toContain('idp_token_endpoint: https://idp.example.com/token');
    expect(text).toContain('client_secret (written in the file, hidden)');
    expect(text).not.toContain('sk-canary-literal');
  });

  it('shows a changed assertion file before → after', () => {
    const before = {
      ...server.asWritten,
      oauth: { ...oauth, assertion_file: '/var/run/secrets/tokens/mcp' },
    };
    const text = describeForTrust(server, { fingerprint: 'old', asWritten: before }).join('\n');
    expect(text).toContain('assertion_file: /var/run/secrets/tokens/mcp');
    expect(text).toMatch(
      /oauth: .*assertion_file: \/var\/run\/secrets\/tokens\/mcp.* → .*assertion_file: \/home\/me\/\.ssh\/id_ed25519/,
    );
    expect(text).not.toContain('sk-canary-literal');
  });
});
