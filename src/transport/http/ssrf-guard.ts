import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { ErrorCode, McpxError } from '../../errors/index.js';
import {
  type AddressClass,
  classifyAddress,
  isMetadataHostname,
  normalizeHostname,
  privacyRank,
} from './ip-address.js';

/** Resolves a hostname to every address it has (the guard checks them all). */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

/** `dns.lookup(host, { all: true })`: what the OS would connect to, /etc/hosts included. */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/**
 * Where a URL came from decides what it may reach:
 * - `config`: the user wrote it; anything but metadata and link-local addresses.
 * - `server`: a server handed it to mcpx (OAuth endpoints, links); https only (http on
 *   loopback), and no more private than the server's own address class (`maxRank`).
 */
export type UrlPolicy =
  | { readonly kind: 'config' }
  | { readonly kind: 'server'; readonly maxRank: number; readonly allowHosts?: readonly string[] };

/** A URL that passed the guard, with the addresses it was checked against. */
export interface CheckedUrl {
  readonly url: URL;
  readonly addresses: readonly LookupAddress[];
  /** The most private class among the addresses. */
  readonly addressClass: AddressClass;
}

export const CONFIG_URL_POLICY: UrlPolicy = { kind: 'config' };

function blocked(url: URL | string, reason: string, fixes: readonly string[] = []): McpxError {
  const href = typeof url === 'string' ? url : url.href;
  return new McpxError(ErrorCode.SsrfBlocked, `refusing to connect to ${href}: ${reason}`, {
    url: href,
    causes: ['the URL points at a cloud metadata service or a link-local address, which mcpx never contacts'],
    fixes: [
      'check the URL in the config; mcpx will not reach cloud metadata or link-local addresses',
      ...fixes,
    ],
  });
}

/**
 * The checks that need no DNS: scheme, metadata hostnames and literal IP
 * addresses (the WHATWG URL parser has already turned `http://2852039166/` and
 * `0xA9FEA9FE` into dotted form). Throws SsrfBlocked.
 */
export function checkUrlSyntax(input: string | URL, policy: UrlPolicy = CONFIG_URL_POLICY): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch (error) {
    throw new McpxError(ErrorCode.ConfigInvalid, `'${String(input)}' is not a valid URL`, {
      url: String(input),
      cause: error,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw blocked(url, `only http and https URLs are allowed, not ${url.protocol.replace(/:$/, '')}`);
  }
  const host = normalizeHostname(url.hostname);
  if (isMetadataHostname(host)) throw blocked(url, `${host} is a cloud metadata service`);
  const literal = classifyAddress(host);
  if (literal) assertAddressClass(url, host, literal, policy);
  return url;
}

function isAllowedHost(url: URL, policy: UrlPolicy): boolean {
  if (policy.kind !== 'server' || !policy.allowHosts) return false;
  const host = normalizeHostname(url.hostname);
  return policy.allowHosts.some((allowed) => normalizeHostname(allowed) === host);
}

function assertAddressClass(url: URL, address: string, kind: AddressClass, policy: UrlPolicy): void {
  if (kind === 'metadata') throw blocked(url, `${address} is a cloud metadata address`);
  if (kind === 'link-local') throw blocked(url, `${address} is a link-local address`);
  if (policy.kind === 'config' || isAllowedHost(url, policy)) return;
  if (privacyRank(kind) > policy.maxRank) {
    throw new McpxError(
      ErrorCode.SsrfBlocked,
      `refusing to follow ${url.href} from the server: ${address} is a ${kind} address, more private than the server's own`,
      {
        url: url.href,
        causes: ['a remote server tried to point mcpx at a machine on your own network or computer'],
        fixes: ['if you trust this target, add its host to the allow list for this server'],
      },
    );
  }
}

/**
 * Check every address a hostname resolves to against the policy; the most
 * private one decides. Literal IPs skip DNS. Throws SsrfBlocked, or
 * HttpUnreachable when the name does not resolve.
 */
export async function checkResolvedUrl(
  input: string | URL,
  policy: UrlPolicy = CONFIG_URL_POLICY,
  resolver: Resolver = systemResolver,
): Promise<CheckedUrl> {
  const url = checkUrlSyntax(input, policy);
  const host = normalizeHostname(url.hostname);
  const literal = classifyAddress(host);
  const addresses: readonly LookupAddress[] = literal
    ? [{ address: host, family: host.includes(':') ? 6 : 4 }]
    : await resolveOrFail(url, host, resolver);
  return { url, addresses, addressClass: checkAddresses(url, addresses, policy) };
}

/** Check resolved addresses (used by the connection's own DNS lookup); returns the most private class. */
export function checkAddresses(
  url: URL,
  addresses: readonly LookupAddress[],
  policy: UrlPolicy,
): AddressClass {
  if (addresses.length === 0) throw unresolvable(url, new Error('no addresses'));
  let worst: AddressClass = 'public';
  for (const { address } of addresses) {
    const kind = classifyAddress(address) ?? 'public';
    assertAddressClass(url, address, kind, policy);
    if (privacyRank(kind) > privacyRank(worst)) worst = kind;
  }
  if (policy.kind === 'server' && url.protocol === 'http:' && !isAllowedHost(url, policy)) {
    const allLoopback = addresses.every((a) => privacyRank(classifyAddress(a.address) ?? 'public') === 2);
    if (!allLoopback) {
      throw new McpxError(
        ErrorCode.SsrfBlocked,
        `refusing to follow ${url.href} from the server: it must use https`,
        {
          url: url.href,
          fixes: ['a URL a server hands to mcpx must be https (plain http only on this computer)'],
        },
      );
    }
  }
  return worst;
}

async function resolveOrFail(url: URL, host: string, resolver: Resolver): Promise<readonly LookupAddress[]> {
  try {
    return await resolver(host);
  } catch (error) {
    throw unresolvable(url, error);
  }
}

function unresolvable(url: URL, cause: unknown): McpxError {
  return new McpxError(ErrorCode.HttpUnreachable, `cannot resolve ${url.hostname}`, {
    url: url.href,
    cause,
    causes: ['the host name is misspelled', 'there is no network connection or DNS is failing'],
    fixes: ['check the url in the config'],
  });
}

export interface ServerSuppliedUrlOptions {
  /** The MCP server's own URL: the target may not be more private than it. */
  readonly serverUrl: string | URL;
  /** Hosts the user allows regardless of address class (and over plain http). */
  readonly allowHosts?: readonly string[];
  readonly resolver?: Resolver;
}

/**
 * Check a URL that came from a server (an OAuth endpoint, a link) before mcpx
 * fetches it: http(s) only, https unless on loopback, never metadata or
 * link-local, and no more private than the server itself (a public server
 * cannot send mcpx to 127.0.0.1 or 10.0.0.5; a local one may use a local
 * authorization server). `allowHosts` overrides the class and https rules.
 *
 * @example
 * await checkServerSuppliedUrl('https://auth.example.com/token', { serverUrl: 'https://mcp.example.com/mcp' });
 */
export async function checkServerSuppliedUrl(
  input: string | URL,
  options: ServerSuppliedUrlOptions,
): Promise<CheckedUrl> {
  const resolver = options.resolver ?? systemResolver;
  const server = await checkResolvedUrl(options.serverUrl, CONFIG_URL_POLICY, resolver);
  const policy: UrlPolicy = {
    kind: 'server',
    maxRank: privacyRank(server.addressClass),
    ...(options.allowHosts ? { allowHosts: options.allowHosts } : {}),
  };
  return checkResolvedUrl(input, policy, resolver);
}
