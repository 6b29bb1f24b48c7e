/** One upstream item (tool, prompt or resource URI) and the server it lives on. */
export interface Qualified {
  readonly server: string;
  readonly name: string;
}

/**
 * How URIs cross the gateway, and which servers a name may belong to (the names
 * themselves are the catalogue's: `tools/catalogue.ts`, `namespaced` or `transparent`).
 * Namespaced: a resource URI becomes `mcpx://<server>/<uri>`, and an MCP App's
 * `ui://<rest>` becomes `ui://<server>/<rest>` (hosts render only `ui://` URIs). Transparent
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
const APP_SCHEME = 'ui://';
/** What no URI a client is to hold may carry: whitespace, control and format characters. */
const UNFIT = /[\s\p{Cc}\p{Cf}]/u;

/**
 * Whether `uri` is an MCP App's resource URI a client can hold: `ui://` and something after it
 * that parses as a URL, with no whitespace, control or format character. Another is served under
 * `mcpx://` like any resource, and no tool's UI link may name it.
 */
export function isAppUri(uri: string): boolean {
  return (
    uri.startsWith(APP_SCHEME) && uri.length > APP_SCHEME.length && !UNFIT.test(uri) && URL.canParse(uri)
  );
}

/**
 * `<encoded server>/<rest>` → the server and the rest, if the server is one served now: how every
 * namespaced URI (`mcpx://`, `ui://`, `skill://`) names its server after the scheme.
 */
export function splitServer(
  rest: string,
  servers: () => readonly string[],
): { server: string; rest: string } | undefined {
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  let server: string;
  try {
    server = decodeURIComponent(rest.slice(0, slash));
  } catch {
    return undefined;
  }
  return servers().includes(server) ? { server, rest: rest.slice(slash + 1) } : undefined;
}

/**
 * URIs as `mcpx://<server>/<upstream uri verbatim>` (an App's as `ui://<server>/<the rest
 * verbatim>`), names as `<server>__<name>`. `servers`: the names served now (they change on a
 * reload). The server is always the first segment, put there by mcpx: an upstream's URI cannot
 * reach another server's, whatever it holds (`ui://other/x` of `a` is `ui://a/other/x`).
 */
export function namespacedNames(servers: () => readonly string[]): Namespace {
  return {
    // The upstream URI is kept verbatim after the server, so a template's `{var}`
    // expressions still expand and the read goes back byte for byte.
    uri: (server, uri) =>
      isAppUri(uri)
        ? `${APP_SCHEME}${encodeURIComponent(server)}/${uri.slice(APP_SCHEME.length)}`
        : `${SCHEME}${encodeURIComponent(server)}/${uri}`,
    parseUri(uri) {
      if (uri.startsWith(SCHEME)) {
        const split = splitServer(uri.slice(SCHEME.length), servers);
        return split && { server: split.server, name: split.rest };
      }
      if (!uri.startsWith(APP_SCHEME)) return undefined;
      const split = splitServer(uri.slice(APP_SCHEME.length), servers);
      const name = split && `${APP_SCHEME}${split.rest}`;
      // Only what `uri()` makes: an App URI of a served server.
      return split && name && isAppUri(name) ? { server: split.server, name } : undefined;
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
