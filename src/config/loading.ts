/**
 * The part of the config layer every command uses at its start: load the config and the trust
 * store, check a server is approved, find a profile, make an ad-hoc server (`--stdio`, `--http`),
 * tell an mcpx command line, suggest a name. Each is exported by `config/index.ts` too, with the
 * config editing (and jsonc-parser's editor), the trust review and the file cache besides: the
 * host, the registry and the call's own modules import this module instead, so a cold `mcpx call`
 * neither reads nor compiles those (docs/performance.md, the cold call).
 */

export { isMcpxProcess, runsMcpx } from './command-line/runs-mcpx.js';
export { canonicalJson } from './entry/fingerprint.js';
export { toolSwitchedOff } from './entry/tool-lists.js';
export { findProfile } from './file/profiles.js';
export { type AdhocStdioOptions, adhocHttpServer, adhocStdioServer } from './load/adhoc.js';
export { resolveMcpxHome } from './load/discover.js';
export { loadConfig } from './load/load.js';
export { suggest } from './parse/suggest.js';
export { approvedRecord, assertApproved, loadTrustStore, markApproved, trustServers } from './trust/trust.js';
export type { LoadedConfig, ServerConfig, TrustStore } from './types.js';
