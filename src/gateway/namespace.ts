/** One upstream item (tool, prompt or resource URI) and the server it lives on. */
export interface Qualified {
  readonly server: string;
  readonly name: string;
}

/**
 * How URIs cross the gateway, and which servers a name may belong to (the names
 * themselves are the catalogue's: `tools/catalogue.ts`, `namespaced` or `transparent`).
 * Namespaced: every resource URI becomes `mcpx://<server>/<uri>`. Transparent
 * (`--server NAME`): one server, everything unchanged.
 */
export interface Namespace {
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
 * URIs as `mcpx://<server>/<upstream uri verbatim>`, names as `<server>__<name>`.
 * `servers`: the names served now (they change on a reload).
 */
export function namespacedNames(servers: () => readonly string[]): Namespace {
  return {
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
    uri: (_server, uri) => uri,
    parseUri: (uri) => ({ server, name: uri }),
    candidates: () => [server],
  };
}
