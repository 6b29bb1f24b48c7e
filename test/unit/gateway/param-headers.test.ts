import { describe, expect, it } from 'vitest';
import { paramHeaderMismatch, paramHeaders } from '../../../src/gateway/http/param-headers.js';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    limit: { type: 'integer', 'x-mcp-header': 'Limit' },
    nested: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } },
    plain: { type: 'string' },
  },
};

describe('Mcp-Param-* headers (SEP-2243)', () => {
  const declared = paramHeaders(schema);

  it('finds declarations along the chain of properties', () => {
    expect(declared.map((d) => [d.name, d.path.join('.')])).toEqual([
      ['Region', 'region'],
      ['Limit', 'limit'],
      ['Tenant', 'nested.tenant'],
    ]);
  });

  it('accepts headers that agree, Base64-encoded values and numbers compared as numbers', () => {
    const headers = new Headers({
      'Mcp-Param-Region': `=?base64?${Buffer.from('zürich').toString('base64')}?=`,
      'Mcp-Param-Limit': '10.0',
      'Mcp-Param-Tenant': 'acme',
    });
    expect(
      paramHeaderMismatch(declared, { region: 'zürich', limit: 10, nested: { tenant: 'acme' } }, headers),
    ).toBeUndefined();
    // An absent or null argument expects no header.
    expect(paramHeaderMismatch(declared, { region: null }, new Headers())).toBeUndefined();
  });

  it('refuses a missing, disagreeing or badly encoded header, naming it', () => {
    expect(paramHeaderMismatch(declared, { region: 'eu' }, new Headers())).toEqual({
      header: 'Mcp-Param-Region',
      reason: 'the body carries region="eu" but the Mcp-Param-Region header is absent',
    });
    expect(paramHeaderMismatch(declared, { limit: 5 }, new Headers({ 'Mcp-Param-Limit': '6' }))?.header).toBe(
      'Mcp-Param-Limit',
    );
    expect(
      paramHeaderMismatch(declared, { region: 'eu' }, new Headers({ 'Mcp-Param-Region': '=?base64?!!?=' }))
        ?.reason,
    ).toMatch(/invalid Base64/);
  });
});
