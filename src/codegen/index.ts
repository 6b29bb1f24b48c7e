/**
 * Typed TypeScript from a server's tools (`mcpx generate`, issue 45): a module per server whose
 * functions call through the host (`boundTools`), the manifest of fingerprints it records, and
 * the drift between that manifest and what the server lists now. Prints nothing.
 */
export { type BindOptions, type BoundTools, boundTools } from './bound-tools.js';
export { catalogueDrift, driftError, driftLine, type ToolDrift } from './drift.js';
export { type GeneratedModule, type GenerateModuleOptions, generateModule } from './emit-module.js';
export { assignByKey, assignFileNames, assignIdentifiers, identifierFor } from './identifiers.js';
export {
  catalogueFingerprint,
  type GeneratedEntry,
  type GeneratedManifest,
  type GeneratedTool,
  type ListedCatalogue,
  readManifest,
} from './manifest.js';
export { schemaType } from './schema-type.js';
export { staleFiles } from './tree-files.js';
