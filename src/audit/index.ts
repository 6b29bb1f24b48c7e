/**
 * The audit log: one record per tool call an agent, a gateway's client or a person made — who
 * asked, which server and tool, what the permission engine decided and on whose word, how long
 * it took and how it ended, the arguments' names (values masked). The host keeps one trail for
 * every front end; sinks are the owner-only rotated file, `mcpx serve --access-log`, or a
 * program's own.
 */
export { type AuditCallStart, type AuditedCall, type AuditTrail, createAuditTrail } from './audit-trail.js';
export { MASKED, maskArguments } from './call-arguments.js';
export {
  AUDIT_FILE_MAX_BYTES,
  AUDIT_FILES_KEPT,
  AUDIT_FLUSH_MS,
  type AuditFileOptions,
  defaultAuditPath,
  openAuditFile,
} from './file-sink.js';
export type {
  AuditAnswerer,
  AuditApp,
  AuditCaller,
  AuditClient,
  AuditDecision,
  AuditOutcome,
  AuditRecord,
  AuditSink,
} from './types.js';
