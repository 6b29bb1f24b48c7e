import type { ServerConfig } from '../types.js';

/**
 * What a server entry means when it says nothing else: no extra environment,
 * nothing passed through, no headers, enabled, era negotiated, no trust
 * needed. Servers built in code (builtin, ad-hoc, tests, benchmarks) spread
 * this and add their name, transport, origin and fingerprint.
 */
export const SERVER_DEFAULTS = {
  args: [],
  env: {},
  envPassthrough: [],
  headers: {},
  enabled: true,
  failIfNoTools: false,
  protocol: 'auto',
  requiresTrust: false,
} as const satisfies Partial<ServerConfig>;
