/**
 * Errors: one base class (`McpxError`) with a stable `code` per kind and
 * structured context, and one place (`format.ts`) that renders them.
 */

export { CARRIED_ERROR_KEY, carriedError, carryError, withoutCarriedError } from './carried.js';
export { ErrorCode } from './codes.js';
export { displayPath, displayPaths } from './display-path.js';
export {
  errorToJson,
  type FormatOptions,
  formatError,
  formatErrorLine,
  formatErrorVerbose,
  formatOrigin,
  toMcpxError,
} from './format.js';
export {
  type ErrorContext,
  type ErrorOrigin,
  isMcpxError,
  McpxError,
  type McpxErrorOptions,
} from './mcpx-error.js';
