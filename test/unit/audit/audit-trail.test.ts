import { describe, expect, it } from 'vitest';
import { type AuditRecord, createAuditTrail } from '../../../src/audit/index.js';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';

function trail(profile?: string) {
  const records: AuditRecord[] = [];
  const t = createAuditTrail([{ write: (r) => records.push(r) }], profile);
  const begin = () => t.begin({ who: { client: 'library' }, server: 's', tool: 't', args: { a: 1 } });
  return { records, begin };
}

describe('the audit trail', () => {
  it('classifies how a call ended, once', () => {
    const { records, begin } = trail();
    begin().returned({ content: [], isError: true });
    // An upstream's JSON-RPC error, wrapped by mcpx, keeps its code.
    const rejected = new McpxError(ErrorCode.ServerRejected, 'rejected', { cause: { code: -32602 } });
    begin().failed(rejected);
    begin().failed(new McpxError(ErrorCode.ServerCrashed, 'crashed'));
    begin().failed(new McpxError(ErrorCode.PermissionDenied, 'no'));
    const twice = begin();
    twice.returned({ content: [] });
    twice.failed(new Error('late'));
    const round = begin();
    round.dropped();
    round.returned({ content: [] });
    expect(records.map((r) => [r.outcome, r.error?.code])).toEqual([
      ['tool-error', undefined],
      ['protocol-error', -32602],
      ['error', ErrorCode.ServerCrashed],
      ['refused', undefined],
      ['ok', undefined],
    ]);
  });

  it("stamps the host's profile on every record", () => {
    const { records, begin } = trail('work');
    begin().returned({ content: [] });
    expect(records[0]).toMatchObject({ client: 'library', profile: 'work', argumentKeys: ['a'] });
  });
});
