import { describe, expect, it } from 'vitest';
import { appCsp, declaredSources } from '../../../src/console/app-csp.js';

describe("an MCP App's frame policy", () => {
  it('denies everything an App did not declare', () => {
    const policy = appCsp(declaredSources(undefined), 'http://127.0.0.1:4000');
    expect(policy).toBe(
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
        "font-src data:; media-src data:; connect-src 'none'; frame-src 'none'; worker-src 'none'; " +
        "base-uri 'none'; form-action 'none'; frame-ancestors http://127.0.0.1:4000",
    );
  });

  it('allows the declared origins, each where it was declared', () => {
    const sources = declaredSources({
      csp: {
        resourceDomains: ['https://cdn.example.com', 'https://*.example.org:8443'],
        connectDomains: ['wss://live.example.com'],
      },
    });
    const policy = appCsp(sources, 'http://127.0.0.1:4000');
    expect(policy).toContain(
      "script-src 'unsafe-inline' https://cdn.example.com https://*.example.org:8443;",
    );
    expect(policy).toContain('connect-src wss://live.example.com;');
  });

  it('drops a declared value that would widen or break the policy', () => {
    const sources = declaredSources({
      csp: {
        resourceDomains: [
          "'unsafe-eval'",
          '*',
          'https://a.example.com; script-src *',
          'https://b.example.com/path',
          'data:',
          42,
        ],
        connectDomains: 'https://not-a-list.example.com',
      },
    });
    expect(sources).toEqual({ connect: [], resource: [] });
  });
});
