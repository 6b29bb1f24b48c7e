/**
 * The mcpx home (`~/.mcpx`, or `MCPX_HOME`): mcpx's own state, read and
 * written only through `createHomeFiles()`, which refuses symbolic links and
 * foreign files, keeps folders 0700 and files 0600, and replaces files
 * atomically, each read-modify-write under the file's lock (`update`). The
 * lock itself (`file-lock.ts`) serves every file mcpx edits, in the home or
 * not, and the daemon's start lock; a process's identity (`liveness.ts`) says
 * whether a lock's holder still runs.
 */
export {
  acquireLock,
  type FileAccess,
  type FileLock,
  type FileLockOptions,
  type LockHolder,
  lockFileOf,
  tryLock,
  updateUnderLock,
  type WithFileLockOptions,
  withFileLock,
} from './file-lock.js';
export {
  identify,
  isAlive,
  type ProcessIdentity,
  parseIdentity,
  processStart,
  stillRuns,
} from './liveness.js';
export { onProcessExit } from './process-exit.js';
export { createHomeFiles, type FileChange, type HomeFiles } from './safe-file.js';
