/**
 * `mcpx config import`: other hosts' files found on this machine, and the plan that copies their
 * servers into an mcpx config. Kept off index.ts, which the library and `mcpx exec` load for the
 * dialects alone: they never import.
 */
export { type FoundHostFile, findHostFiles } from './find-hosts.js';
export {
  applyImport,
  type ImportItem,
  type ImportOptions,
  type ImportPlan,
  type ImportSource,
  planImport,
  sourceComment,
} from './import-plan.js';
