import { assignToolNames } from '../tools/index.js';

/** One upstream item (tool or prompt) as the gateway offers it: its public name and where it lives. */
export interface Qualified {
  readonly server: string;
  readonly name: string;
}

/**
 * How names and URIs cross the gateway. `namespaced`: every name becomes
 * `<server>__<name>` (the tools layer's naming, so `a` + `b__c` and `a__b` + `c`
 * get distinct hashed names and every name fits in 64 characters) and every
 * resource URI `mcpx://<server>/<uri>`. `transparent` (`--server NAME`): one
 * server, everything unchanged.
 */
export interface Namespace {
  /** Public name → upstream item, for a set of items; deterministic for the same set. */
  names(items: readonly Qualified[]): Map<string, Qualified>;
  /** The URI (or URI template) a client sees for an upstream one. */
  uri(server: string, uri: string): string;
  /** The upstream server and URI behind a URI a client sent, or undefined if it is not one of ours. */
  parseUri(uri: string): Qualified | undefined;
  /**
   * The servers a public name may belong to before it is listed (a server still starting):
   * the one whose `<server>__` it starts with, else (a name shortened with a hash, or
   * nobody's) every one.
   */
  candidates(publicName: string): readonly string[];
}

const SCHEME = 'mcpx://';

/**
 * `a` + `b__c` and `a__b` + `c` stay distinct; URIs as `mcpx://<server>/<upstream uri verbatim>`.
 * `servers`: the names served now (they change on a reload).
 */
export function namespacedNames(servers: () => readonly string[]): Namespace {
  return {
    names(items) {
      const assigned = assignToolNames(
        items.map((i) => ({ source: i.server, tool: i.name })),
        'namespaced',
      );
      return new Map([...assigned].map(([name, q]) => [name, { server: q.source, name: q.tool }]));
    },
    // The upstream URI is kept verbatim after the server, so a template's `{var}`
    // expressions still expand and the read goes back byte for byte.
    uri: (server, uri) => `${SCHEME}${encodeURIComponent(server)}/${uri}`,
    parseUri(uri) {
      if (!uri.startsWith(SCHEME)) return undefined;
      const rest = uri.slice(SCHEME.length);
      const slash = rest.indexOf('/');
      if (slash <= 0) return undefined;
      let server: string;
      try {
        server = decodeURIComponent(rest.slice(0, slash));
      } catch {
        return undefined;
      }
      if (!servers().includes(server)) return undefined;
      return { server, name: rest.slice(slash + 1) };
    },
    candidates(publicName) {
      const all = servers();
      const named = all.filter((server) => publicName.startsWith(`${server}__`));
      return named.length > 0 ? named : all;
    },
  };
}

/** One server re-served unchanged (`mcpx serve --server NAME`). */
export function transparentNames(server: string): Namespace {
  return {
    names: (items) => new Map(items.filter((i) => i.server === server).map((i) => [i.name, i])),
    uri: (_server, uri) => uri,
    parseUri: (uri) => ({ server, name: uri }),
    candidates: () => [server],
  };
}
