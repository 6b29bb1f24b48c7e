import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { ErrorCode, McpxError } from '../../../../src/errors/index.js';
import {
  checkResolvedUrl,
  checkServerSuppliedUrl,
  checkUrlSyntax,
  classifyAddress,
  privacyRank,
} from '../../../../src/transport/http/index.js';

describe('classifyAddress', () => {
  it.each([
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['[fd00:ec2::254]', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['169.254.0.1', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['::ffff:169.254.1.1', 'link-local'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:10.1.2.3', 'private'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['169.253.255.255', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['fec0::1', 'private'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('returns undefined for host names', () => {
    expect(classifyAddress('example.com')).toBeUndefined();
    expect(classifyAddress('localhost')).toBeUndefined();
  });

  it('orders classes public < private < loopback', () => {
    expect(privacyRank('public')).toBeLessThan(privacyRank('private'));
    expect(privacyRank('private')).toBeLessThan(privacyRank('loopback'));
    expect(privacyRank('unspecified')).toBe(privacyRank('loopback'));
  });
});

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof McpxError ? error.code : 'other';
  }
  return undefined;
}

describe('checkUrlSyntax (config URLs)', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    // Node's URL parser normalizes these IPv4 spellings to 169.254.169.254 before we look.
    'http://2852039166/',
    'http://0xA9FEA9FE/',
    'http://0251.0376.0251.0376/',
    'http://169.254.169.254./',
    'http://[::ffff:169.254.169.254]/',
    'http://[fd00:ec2::254]/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://METADATA.GOOGLE.INTERNAL./',
    'http://100.100.100.200/',
    'http://169.254.1.2/',
    'http://[fe80::1]/',
    'ftp://example.com/',
    'file:///etc/passwd',
  ])('refuses %s', (url) => {
    expect(code(() => checkUrlSyntax(url))).toBe(ErrorCode.SsrfBlocked);
  });

  it.each([
    'http://127.0.0.1:3000/mcp',
    'http://localhost/mcp',
    'http://10.0.0.5/mcp',
    'http://192.168.1.20/mcp',
    'https://mcp.example.com/mcp',
    'http://[::1]:8080/mcp',
  ])('allows %s from the user', (url) => {
    expect(code(() => checkUrlSyntax(url))).toBeUndefined();
  });
});

const fakeDns =
  (table: Record<string, string[]>) =>
  async (host: string): Promise<readonly LookupAddress[]> => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const dns = fakeDns({
  'mcp.example.com': ['93.184.216.34'],
  'auth.example.com': ['93.184.216.35'],
  'rebind.example.com': ['93.184.216.36', '169.254.169.254'],
  'intranet.example.com': ['10.0.0.7'],
  'local.example.com': ['127.0.0.1'],
  localhost: ['127.0.0.1', '::1'],
  'mixed.example.com': ['93.184.216.37', '192.168.0.9'],
});

async function asyncCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return error instanceof McpxError ? error.code : 'other';
  }
  return undefined;
}

describe('checkResolvedUrl', () => {
  it('checks every resolved address', async () => {
    expect(await asyncCode(checkResolvedUrl('http://rebind.example.com/', undefined, dns))).toBe(
      ErrorCode.SsrfBlocked,
    );
    const ok = await checkResolvedUrl('http://intranet.example.com/', undefined, dns);
    expect(ok.addressClass).toBe('private');
  });

  it('reports a name that does not resolve as unreachable', async () => {
    expect(await asyncCode(checkResolvedUrl('http://nowhere.example.com/', undefined, dns))).toBe(
      ErrorCode.HttpUnreachable,
    );
  });
});

describe('checkServerSuppliedUrl', () => {
  const from = (serverUrl: string, url: string, allowHosts?: string[]) =>
    asyncCode(
      checkServerSuppliedUrl(url, { serverUrl, resolver: dns, ...(allowHosts ? { allowHosts } : {}) }),
    );

  it('lets a public server point at another public https host', async () => {
    expect(await from('https://mcp.example.com/mcp', 'https://auth.example.com/token')).toBeUndefined();
  });

  it('requires https from a public server', async () => {
    expect(await from('https://mcp.example.com/mcp', 'http://auth.example.com/token')).toBe(
      ErrorCode.SsrfBlocked,
    );
  });

  it.each([
    'https://127.0.0.1/token',
    'https://local.example.com/token',
    'https://intranet.example.com/token',
    'https://10.1.1.1/token',
    'https://[::1]/token',
    'https://mixed.example.com/token',
    'https://0.0.0.0/token',
  ])('refuses %s from a public server', async (url) => {
    expect(await from('https://mcp.example.com/mcp', url)).toBe(ErrorCode.SsrfBlocked);
  });

  it('lets a local server use a local authorization server, over http on loopback', async () => {
    expect(await from('http://localhost:3000/mcp', 'http://127.0.0.1:9000/token')).toBeUndefined();
    expect(await from('http://localhost:3000/mcp', 'http://localhost:9000/token')).toBeUndefined();
    expect(await from('http://localhost:3000/mcp', 'https://intranet.example.com/token')).toBeUndefined();
  });

  it('requires https off loopback even for a local server', async () => {
    expect(await from('http://localhost:3000/mcp', 'http://intranet.example.com/token')).toBe(
      ErrorCode.SsrfBlocked,
    );
  });

  it('lets a private server reach private but not loopback addresses', async () => {
    expect(await from('https://intranet.example.com/mcp', 'https://10.0.0.8/token')).toBeUndefined();
    expect(await from('https://intranet.example.com/mcp', 'https://127.0.0.1/token')).toBe(
      ErrorCode.SsrfBlocked,
    );
  });

  it('never allows metadata or link-local, even from a local server or an allowed host', async () => {
    expect(await from('http://localhost/mcp', 'http://169.254.169.254/')).toBe(ErrorCode.SsrfBlocked);
    expect(await from('http://localhost/mcp', 'https://rebind.example.com/', ['rebind.example.com'])).toBe(
      ErrorCode.SsrfBlocked,
    );
  });

  it('lets the allow list override the class rule', async () => {
    expect(
      await from('https://mcp.example.com/mcp', 'https://intranet.example.com/token', [
        'intranet.example.com',
      ]),
    ).toBeUndefined();
  });
});
