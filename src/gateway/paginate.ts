import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** Items per page of a merged list, unless the gateway is told otherwise. */
export const DEFAULT_PAGE_SIZE = 100;

/**
 * One page of a merged list. The cursor is opaque to the client (base64url of
 * the list kind and offset); a cursor of another list, or garbage, is refused
 * with -32602 as the spec asks.
 */
export function paginate<T>(
  kind: string,
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
): { items: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = decodeCursor(cursor);
    if (decoded?.k !== kind || typeof decoded.o !== 'number' || !Number.isInteger(decoded.o) || decoded.o < 0)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid cursor for ${kind}`);
    offset = decoded.o;
  }
  const end = offset + pageSize;
  return {
    items: items.slice(offset, end),
    ...(end < items.length
      ? { nextCursor: Buffer.from(JSON.stringify({ k: kind, o: end })).toString('base64url') }
      : {}),
  };
}

function decodeCursor(cursor: string): { k?: unknown; o?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
