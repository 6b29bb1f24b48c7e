/**
 * Bounds on one list walk (`tools/list`, `resources/list`, `resources/templates/list`,
 * `prompts/list`). The SDK walks the pages itself and stops only at its page cap (and on a
 * page identical to the one before, silently, as if the list had ended); it counts neither
 * items nor bytes. A walk here watches every page the SDK asks for and fails, as the server's
 * error, on a cursor the server hands out twice, and on a list past the caps below.
 */
import { ErrorCode, McpxError } from '../errors/index.js';

/** The caps of one list walk. */
export interface ListLimits {
  readonly maxPages: number;
  readonly maxItems: number;
  readonly maxBytes: number;
}

// 250 tools at page size 7 (36 pages) is normal; a big real server lists a few hundred tools
// in well under a megabyte. These leave two orders of magnitude of room.
export const DEFAULT_LIST_LIMITS: ListLimits = {
  maxPages: 500,
  maxItems: 10_000,
  maxBytes: 16 * 1024 * 1024,
};

export const LIST_METHODS: ReadonlySet<string> = new Set([
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
]);

const ITEMS_KEY: Record<string, string> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};

/** The pages of one list, as the SDK fetches them; each check throws the server's error. */
export class ListWalk {
  readonly #server: string;
  readonly #limits: ListLimits;
  readonly #cursors = new Set<string>();
  #pages = 0;
  #items = 0;
  #bytes = 0;

  constructor(server: string, limits: ListLimits = DEFAULT_LIST_LIMITS) {
    this.#server = server;
    this.#limits = limits;
  }

  /** Before a page is asked for. */
  beforePage(method: string, cursor: unknown): void {
    if (typeof cursor === 'string') this.#cursors.add(cursor);
    if (this.#pages >= this.#limits.maxPages) {
      throw this.#tooLarge(
        method,
        `more than ${this.#limits.maxPages} pages`,
        'its pagination may never end (a new cursor on every page)',
      );
    }
    this.#pages++;
  }

  /** A page arrived: its cursor must be new, and the list still within its caps. */
  afterPage(method: string, page: unknown): void {
    const result = (page ?? {}) as Record<string, unknown>;
    const items = result[ITEMS_KEY[method] ?? ''];
    this.#items += Array.isArray(items) ? items.length : 0;
    // The page as it came, near enough: parsed and written again.
    this.#bytes += Buffer.byteLength(JSON.stringify(page) ?? '');
    if (this.#items > this.#limits.maxItems) {
      throw this.#tooLarge(method, `more than ${this.#limits.maxItems} items`);
    }
    if (this.#bytes > this.#limits.maxBytes) {
      throw this.#tooLarge(method, `more than ${size(this.#limits.maxBytes)}`);
    }
    const next = result.nextCursor;
    if (typeof next === 'string' && this.#cursors.has(next)) {
      throw new McpxError(
        ErrorCode.ListPaginationBroken,
        `server '${this.#server}' returned the same cursor twice in ${method}`,
        {
          server: this.#server,
          causes: [`the server's pagination loops: a page of ${method} points back to a page already read`],
          fixes: [`report it to the server's authors; mcpx does not read a list that loops`],
        },
      );
    }
  }

  #tooLarge(method: string, what: string, cause?: string): McpxError {
    return new McpxError(ErrorCode.ListTooLarge, `server '${this.#server}' returned ${what} in ${method}`, {
      server: this.#server,
      causes: [
        ...(cause ? [cause] : []),
        `mcpx reads at most ${this.#limits.maxPages} pages, ${this.#limits.maxItems} items and ${size(this.#limits.maxBytes)} of one list`,
      ],
      fixes: [
        `report it to the server's authors`,
        `or disable the server in the config (mcpx config disable ${this.#server})`,
      ],
    });
  }
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${bytes} bytes`;
}

const walks = new WeakMap<object, ListWalk>();

/**
 * Request options that carry a bounded walk: the SDK passes the same options to every page of
 * an aggregated list, and the client's `request` finds the walk through them.
 */
export function withListWalk<T extends object>(options: T, walk: ListWalk): T {
  const own = { ...options };
  walks.set(own, walk);
  return own;
}

/** The walk the options carry, if any. */
export function listWalkOf(options: unknown): ListWalk | undefined {
  return typeof options === 'object' && options !== null ? walks.get(options) : undefined;
}
