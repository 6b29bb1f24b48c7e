import { isIP } from 'node:net';

/**
 * How private an address is, for the SSRF guard. `metadata` and `link-local`
 * are never reachable; the others are ordered by {@link privacyRank}.
 */
export type AddressClass = 'metadata' | 'link-local' | 'loopback' | 'unspecified' | 'private' | 'public';

/** public < private < loopback: a URL may not lead somewhere more private than allowed. */
export function privacyRank(kind: AddressClass): number {
  switch (kind) {
    case 'public':
      return 0;
    case 'private':
      return 1;
    // 0.0.0.0 and :: reach the local host on Linux and macOS.
    case 'loopback':
    case 'unspecified':
      return 2;
    default:
      return 3;
  }
}

// Cloud instance metadata endpoints: AWS/GCP/Azure (IPv4), AWS (IPv6), Alibaba.
const METADATA_V4 = new Set(['169.254.169.254', '100.100.100.200']);
const METADATA_HOSTNAMES = new Set([
  'metadata.google.internal',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** Hostnames that name a metadata service, compared without a trailing dot. */
export function isMetadataHostname(hostname: string): boolean {
  return METADATA_HOSTNAMES.has(normalizeHostname(hostname));
}

/** Lower case, no brackets, no trailing dot: the form every check compares. */
export function normalizeHostname(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

/**
 * Classify one IP address (v4 or v6, with or without brackets or a zone id).
 * Returns undefined when the text is not an IP address.
 *
 * @example classifyAddress('::ffff:169.254.169.254') // 'metadata'
 */
export function classifyAddress(text: string): AddressClass | undefined {
  const address = normalizeHostname(text).replace(/%.*$/, '');
  const version = isIP(address);
  if (version === 4) return classifyV4(parseV4(address));
  if (version === 6) return classifyV6(parseV6(address));
  return undefined;
}

function parseV4(address: string): number {
  return address.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function inV4(ip: number, base: string, bits: number): boolean {
  const size = 2 ** (32 - bits);
  const start = parseV4(base);
  return ip >= start && ip < start + size;
}

function classifyV4(ip: number): AddressClass {
  const dotted = [ip >>> 24, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255].join('.');
  if (METADATA_V4.has(dotted)) return 'metadata';
  if (inV4(ip, '169.254.0.0', 16)) return 'link-local';
  if (inV4(ip, '127.0.0.0', 8)) return 'loopback';
  if (inV4(ip, '0.0.0.0', 8)) return 'unspecified';
  if (inV4(ip, '10.0.0.0', 8) || inV4(ip, '172.16.0.0', 12) || inV4(ip, '192.168.0.0', 16)) return 'private';
  // Carrier-grade NAT: not the public internet.
  if (inV4(ip, '100.64.0.0', 10)) return 'private';
  return 'public';
}

/** Eight 16-bit groups; `isIP` has already vouched for the syntax. */
function parseV6(address: string): number[] {
  // A trailing dotted IPv4 part becomes two hex groups, so one parser handles both forms.
  const text = address.replace(/(\d+\.\d+\.\d+\.\d+)$/, (v4) => {
    const n = parseV4(v4);
    return `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  });
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const headGroups = parse(head);
  const restGroups = parse(rest ?? '');
  const fill = rest === undefined ? [] : new Array<number>(8 - headGroups.length - restGroups.length).fill(0);
  return [...headGroups, ...fill, ...restGroups];
}

function classifyV6(g: number[]): AddressClass {
  const at = (i: number) => g[i] ?? 0;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embeddedV4 = (hi: number, lo: number) => at(hi) * 65536 + at(lo);
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach the embedded IPv4 address.
  if (zeroUpTo(5) && at(5) === 0xffff) return classifyV4(embeddedV4(6, 7));
  if (at(0) === 0x64 && at(1) === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return classifyV4(embeddedV4(6, 7));
  // 6to4 (2002:AABB:CCDD::) routes to the embedded IPv4 address.
  if (at(0) === 0x2002) {
    const inner = classifyV4(embeddedV4(1, 2));
    if (inner === 'metadata' || inner === 'link-local') return inner;
  }
  if (zeroUpTo(7) && at(7) === 1) return 'loopback';
  if (zeroUpTo(8)) return 'unspecified';
  // AWS's IPv6 metadata endpoint fd00:ec2::254.
  if (at(0) === 0xfd00 && at(1) === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && at(7) === 0x254)
    return 'metadata';
  if ((at(0) & 0xffc0) === 0xfe80) return 'link-local';
  // fc00::/7 unique local, and the deprecated fec0::/10 site-local.
  if ((at(0) & 0xfe00) === 0xfc00 || (at(0) & 0xffc0) === 0xfec0) return 'private';
  // Deprecated IPv4-compatible ::a.b.c.d.
  if (zeroUpTo(6)) return classifyV4(embeddedV4(6, 7));
  return 'public';
}
