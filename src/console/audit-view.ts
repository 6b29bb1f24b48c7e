import type { AuditRecord, AuditSink } from '../audit/index.js';

/** The audit records of this console's host, as the page shows them: newest last, bounded. */
export interface AuditView {
  /** Added to the host's trail (`host.audit().add(view.sink)`): every call's record, as the file gets it. */
  readonly sink: AuditSink;
  list(): readonly AuditRecord[];
}

/** An audit sink that keeps the last `limit` records (default 1,000) for the page, and says when one came. */
export function createAuditView(changed: () => void, limit = 1000): AuditView {
  const records: AuditRecord[] = [];
  return {
    sink: {
      write(record) {
        records.push(record);
        if (records.length > limit) records.splice(0, records.length - limit);
        changed();
      },
    },
    list: () => records,
  };
}
