/**
 * The Content-Security-Policy an MCP App's frame is served with: what its resource declares
 * (`_meta.ui.csp`: `connectDomains`, `resourceDomains`, SEP-1865) and nothing else. Undeclared is
 * denied: no network, no outside script, style, image or font, no frames, no forms, no `<base>`.
 * Inline script and style are the App's own page (an App is one HTML document), so they run.
 */

/** A source a declared domain may be: a scheme, a host (a leading `*.` allowed), an optional port. */
const SOURCE = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/;

/** What an App declared under `_meta.ui.csp`, kept to the sources that are plain origins. */
export interface AppCspSources {
  readonly connect: readonly string[];
  readonly resource: readonly string[];
}

/**
 * The declared sources, each checked against `SOURCE`: a value with a quote, a semicolon, a path
 * or a keyword (`'unsafe-eval'`, `*`) is dropped, so an App cannot widen its own policy.
 */
export function declaredSources(ui: unknown): AppCspSources {
  const csp = typeof ui === 'object' && ui !== null ? (ui as { csp?: unknown }).csp : undefined;
  const list = (key: string): string[] => {
    const value = typeof csp === 'object' && csp !== null ? (csp as Record<string, unknown>)[key] : undefined;
    return Array.isArray(value)
      ? value.filter((v): v is string => typeof v === 'string' && SOURCE.test(v))
      : [];
  };
  return { connect: list('connectDomains'), resource: list('resourceDomains') };
}

/** The frame's policy for `sources`, framed only by the console's page at `consoleOrigin`. */
export function appCsp(sources: AppCspSources, consoleOrigin: string): string {
  const or = (list: readonly string[], ...own: string[]) => [...own, ...list].join(' ') || "'none'";
  return [
    "default-src 'none'",
    `script-src ${or(sources.resource, "'unsafe-inline'")}`,
    `style-src ${or(sources.resource, "'unsafe-inline'")}`,
    `img-src ${or(sources.resource, 'data:')}`,
    `font-src ${or(sources.resource, 'data:')}`,
    `media-src ${or(sources.resource, 'data:')}`,
    `connect-src ${or(sources.connect)}`,
    "frame-src 'none'",
    "worker-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${consoleOrigin}`,
  ].join('; ');
}
