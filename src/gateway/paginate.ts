import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** Items per page of a merged list, unless the gateway is told otherwise. */
export const DEFAULT_PAGE_SIZE = 100;

// Lists a client may still be paging through: a few, since a client pages right away.
const KEPT_SNAPSHOTS = 16;

/**
 * Pages of merged lists. The list can change while a client pages (a server
 * connects, a list changes), and offsets into a changed list would repeat or
 * skip items, so each cursor names the snapshot its first page came from and
 * later pages are cut from that same snapshot while it is kept. The cursor is
 * opaque to the client (base64url); one of another list, or garbage, is
 * refused with -32602 as the spec asks.
 */
export class Paginator {
  readonly #ids = new WeakMap<readonly unknown[], number>();
  readonly #snapshots = new Map<number, readonly unknown[]>();
  #next = 0;

  constructor(readonly pageSize = DEFAULT_PAGE_SIZE) {}

  page<T>(
    kind: string,
    items: readonly T[],
    cursor: string | undefined,
  ): { items: T[]; nextCursor?: string } {
    let offset = 0;
    let list: readonly T[] = items;
    let id: number;
    if (cursor === undefined) {
      id = this.#remember(items);
    } else {
      const decoded = decodeCursor(cursor);
      if (
        decoded?.k !== kind ||
        typeof decoded.o !== 'number' ||
        !Number.isInteger(decoded.o) ||
        decoded.o < 0 ||
        typeof decoded.s !== 'number'
      )
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid cursor for ${kind}`);
      offset = decoded.o;
      const kept = this.#snapshots.get(decoded.s) as readonly T[] | undefined;
      if (kept) {
        list = kept;
        id = decoded.s;
      } else {
        id = this.#remember(items);
      }
    }
    const end = offset + this.pageSize;
    return {
      items: list.slice(offset, end),
      ...(end < list.length
        ? { nextCursor: Buffer.from(JSON.stringify({ k: kind, o: end, s: id })).toString('base64url') }
        : {}),
    };
  }

  #remember(items: readonly unknown[]): number {
    const known = this.#ids.get(items);
    if (known !== undefined && this.#snapshots.has(known)) return known;
    const id = this.#next++;
    this.#ids.set(items, id);
    this.#snapshots.set(id, items);
    if (this.#snapshots.size > KEPT_SNAPSHOTS) {
      const oldest = this.#snapshots.keys().next().value as number;
      this.#snapshots.delete(oldest);
    }
    return id;
  }
}

function decodeCursor(cursor: string): { k?: unknown; o?: unknown; s?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
