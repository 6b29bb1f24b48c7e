/**
 * Local MCP servers as child processes over stdin/stdout: a safe environment,
 * Windows command resolution, bounded newline framing, the last stderr lines
 * for error messages, and a shutdown that ends the server's whole process tree.
 */
export {
  BoundedLineReader,
  type BoundedLineReaderOptions,
  DEFAULT_MAX_LINE_BYTES,
  type OverflowMode,
} from './bounded-line-reader.js';
export { coalescingWriter } from './coalescing-writer.js';
export { isRelayId, RELAY_ID_PREFIX } from './json-rpc-frame.js';
export {
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  type KillableChild,
  type KillTreeOptions,
  killTree,
} from './kill-tree.js';
export type { OrphanWatchdog } from './orphan-watchdog.js';
export { type AncestorProcess, processAncestry, startedAlike } from './process-ancestry.js';
export {
  DEFAULT_PATHEXT,
  findOnPath,
  pathExtensions,
  type ResolveCommandOptions,
  type ResolvedCommand,
  resolveCommand,
} from './resolve-command.js';
export { type PackageInstallEvent, rollBackInstallsNow } from './runner/install-watch.js';
export type { PackageRunnerName } from './runner/recognise-runner.js';
export { type BuildServerEnvOptions, buildServerEnv, getEnv, SAFE_ENV_KEYS } from './safe-env.js';
export { MAX_SERVER_CHAIN, readServerChain, serverChainKey } from './server-chain.js';
export { createStdioServerTransport, type StdioServerHooks } from './server-transport.js';
export { ServingStdioTransport } from './serving-transport.js';
export { DEFAULT_STDERR_TAIL_LINES, StderrTail } from './stderr-tail.js';
export { hintsFromStderr } from './stdio-errors.js';
export { type ExitInfo, StdioTransport, type StdioTransportOptions } from './stdio-transport.js';
export {
  escapeCmdArgument,
  isWindowsBatchFile,
  type SpawnInvocation,
  spawnInvocation,
} from './windows-shim.js';
