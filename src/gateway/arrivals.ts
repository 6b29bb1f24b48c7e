import type { ListKind } from '../client/index.js';
import type { RegistryEvent, ServerRegistry } from '../registry/index.js';

/** How long to wait for servers still starting. */
export interface SettleOptions {
  /** At most this long; without it, until each is up or has failed. */
  readonly waitMs?: number;
  /** The client's request ended (cancelled, timed out): stop waiting. */
  readonly signal?: AbortSignal;
}

/**
 * The served servers as a client's request finds them: up, or still on their way
 * (starting, or coming back after a crash). A client app's patience is short (Claude Code
 * gives a `tools/list` a few seconds, and nine `npx` servers take longer than that to
 * start), so a list request waits a little (`settle` with `waitMs`), is answered with
 * the servers up, and each server left out is *owed* that list: once it is up, the
 * list is announced as changed, so the client lists again. A request aimed at one
 * server (a call) waits for that server instead, for as long as the call may last.
 *
 * Tools are announced by the registry itself (a catalogue event each time a server's
 * tools are listed, its first listing included); resources and prompts are not listed
 * at connect, so their changes are announced here.
 */
export class Arrivals {
  readonly #registry: ServerRegistry;
  readonly #announce: (kind: ListKind) => void;
  readonly #owed = new Map<string, Set<ListKind>>();

  constructor(registry: ServerRegistry, announce: (kind: ListKind) => void) {
    this.#registry = registry;
    this.#announce = announce;
  }

  /** Every registry event, from the host's one listener: a server owed a list has come up. */
  heard(event: RegistryEvent): void {
    if (event.type !== 'state' || event.previous !== 'starting') return;
    if (event.state !== 'ready' && event.state !== 'busy') return;
    const kinds = this.#owed.get(event.server);
    if (!kinds) return;
    this.#owed.delete(event.server);
    for (const kind of kinds) if (kind !== 'tools') this.#announce(kind);
  }

  /** Whether the server's connection can take a request now, without waiting. */
  isUp(server: string): boolean {
    const { state } = this.#registry.status(server);
    return state === 'ready' || state === 'busy';
  }

  /**
   * Bring up the servers of `servers` that are not up (a crashed one comes back as the
   * registry's reconnect policy allows) and resolve once each is up or has failed, or
   * `waitMs` has passed, or `signal` aborted, whichever is first. Never rejects.
   */
  async settle(servers: readonly string[], options: SettleOptions = {}): Promise<void> {
    const pending = servers
      .filter((server) => !this.isUp(server))
      .map((server) => this.#registry.use(server, async () => {}).catch(() => {}));
    if (pending.length === 0) return;
    const { waitMs, signal } = options;
    if (signal?.aborted) return;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const givenUp = new Promise<void>((resolve) => {
      if (waitMs !== undefined) timer = setTimeout(resolve, waitMs);
      onAbort = resolve;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([Promise.all(pending), givenUp]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** A `kind` list was answered without `server` (not up): announce it once the server is. */
  owe(kind: ListKind, server: string): void {
    const kinds = this.#owed.get(server) ?? new Set<ListKind>();
    kinds.add(kind);
    this.#owed.set(server, kinds);
  }
}
