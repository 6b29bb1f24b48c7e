/**
 * `mcpx config import`: other client apps' files found on this machine, and the plan that copies their
 * servers into an mcpx config. Kept off index.ts, which the library and `mcpx exec` load for the
 * dialects alone: they never import.
 */
export { type FoundClientAppFile, findClientAppFiles } from './find-client-apps.js';
export {
  applyImport,
  type ImportItem,
  type ImportOptions,
  type ImportPlan,
  type ImportSource,
  planImport,
  sourceComment,
} from './import-plan.js';
