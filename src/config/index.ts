/**
 * Configuration: find the config files (global, ancestors, project, or
 * `--config`), parse them as JSONC in any of the accepted shapes, validate
 * and normalize each server entry into a `ServerConfig`, interpolate
 * `${VAR}`, merge the layers, and decide which project entries are trusted.
 * Everything here is pure of `process.env` and the console: callers pass the
 * environment and the mcpx home in.
 */
export { type AdhocStdioOptions, adhocHttpServer, adhocStdioServer } from './adhoc.js';
export { builtinServers, testServerPath } from './builtin.js';
export {
  type ConfigCandidate,
  configCandidates,
  configPaths,
  globalConfigPath,
  resolveMcpxHome,
} from './discover.js';
export {
  type ConfigScope,
  type EditConfigFileOptions,
  type EditConfigFileResult,
  editConfigFile,
  readProjectFile,
  scopeFile,
  updateConfigFile,
  updateProjectFile,
} from './edit-file.js';
export {
  EMPTY_CONFIG,
  editConfigText,
  type NewServerEntry,
  type ServerEdit,
  type TextEditResult,
} from './edit-text.js';
export { type ConfigFileCache, createConfigFileCache } from './file-cache.js';
export { canonicalJson, type FingerprintInput, fingerprintEntry } from './fingerprint.js';
export type { InputRequest } from './input-variable.js';
export { type EnvLookup, type InterpolationResult, interpolate } from './interpolate.js';
export { loadConfig, validateConfig } from './load.js';
export { type ParsedDocument, parseJsonc } from './parse-jsonc.js';
export { findProfile, type ProfileConfig, type ProfileLayer } from './profiles.js';
export { readConfigText } from './read-config-text.js';
export { type FileLookup, isMcpxProcess, runsMcpx } from './runs-mcpx.js';
export { SERVER_DEFAULTS } from './server-defaults.js';
export { FIELD_TRUST } from './server-fields.js';
export { splitCommandLine } from './split-command-line.js';
export { levenshtein, suggest } from './suggest.js';
export { toolSwitchedOff } from './tool-lists.js';
export {
  approvedRecord,
  assertApproved,
  isTrusted,
  loadTrustStore,
  markApproved,
  type SettingsApproval,
  saveTrustStore,
  type TrustRecord,
  type TrustStore,
  trustServers,
  trustStorePath,
  untrustedServers,
} from './trust.js';
export { describeForTrust, describeSettingsForTrust } from './trust-review.js';
export type {
  ConfigFileInfo,
  ConfigLayer,
  ConfigPathInfo,
  ConfigWarning,
  FileDialect,
  HeldSettings,
  LoadConfigOptions,
  LoadedConfig,
  PermissionName,
  ProtocolPin,
  ServerConfig,
  ServerOrigin,
  ShadowedServer,
  TransportKind,
  ValidationResult,
} from './types.js';
