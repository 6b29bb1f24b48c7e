/**
 * Configuration: find the config files (global, ancestors, project, or
 * `--config`), parse them as JSONC in any of the accepted shapes, validate
 * and normalize each server entry into a `ServerConfig`, interpolate
 * `${VAR}`, merge the layers, and decide which project entries are trusted.
 * Everything here is pure of `process.env` and the console: callers pass the
 * environment and the mcpx home in.
 */

export { type FileLookup, isMcpxProcess, runsMcpx } from './command-line/runs-mcpx.js';
export { splitCommandLine } from './command-line/split-command-line.js';
export {
  type ConfigScope,
  type EditConfigFileOptions,
  type EditConfigFileResult,
  editConfigFile,
  readProjectFile,
  scopeFile,
  updateConfigFile,
  updateProjectFile,
} from './edit/edit-file.js';
export {
  EMPTY_CONFIG,
  editConfigText,
  type NewServerEntry,
  type ServerEdit,
  type TextEditResult,
} from './edit/edit-text.js';
export { canonicalJson, type FingerprintInput, fingerprintEntry } from './entry/fingerprint.js';
export { SERVER_DEFAULTS } from './entry/server-defaults.js';
export { FIELD_TRUST } from './entry/server-fields.js';
export { toolSwitchedOff } from './entry/tool-lists.js';
export { findProfile } from './file/profiles.js';
export { type AdhocStdioOptions, adhocHttpServer, adhocStdioServer } from './load/adhoc.js';
export { builtinServers, testServerPath } from './load/builtin.js';
export {
  type ConfigCandidate,
  configCandidates,
  configPaths,
  globalConfigPath,
  resolveMcpxHome,
} from './load/discover.js';
export { createConfigFileCache } from './load/file-cache.js';
export { loadConfig, validateConfig } from './load/load.js';
export type { ConfigFileCache, LoadConfigOptions } from './load/options.js';
export { type ParsedDocument, parseJsonc } from './parse/parse-jsonc.js';
export { readConfigText } from './parse/read-config-text.js';
export { levenshtein, suggest } from './parse/suggest.js';
export { type EnvLookup, type InterpolationResult, interpolate } from './resolve/interpolate.js';
export {
  approvedRecord,
  assertApproved,
  isTrusted,
  loadTrustStore,
  markApproved,
  type SettingsApproval,
  saveTrustStore,
  trustServers,
  trustStorePath,
  untrustedServers,
} from './trust/trust.js';
export { describeForTrust, describeSettingsForTrust } from './trust/trust-review.js';
export type {
  ConfigFileInfo,
  ConfigLayer,
  ConfigPathInfo,
  ConfigWarning,
  FileDialect,
  HeldSettings,
  InputRequest,
  LoadedConfig,
  PermissionName,
  ProfileConfig,
  ProfileLayer,
  ProtocolPin,
  ServerConfig,
  ServerOrigin,
  ShadowedServer,
  TransportKind,
  TrustRecord,
  TrustStore,
  ValidationResult,
} from './types.js';
