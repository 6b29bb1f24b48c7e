import type { Tool } from '@modelcontextprotocol/server';
import { canonicalJson, type ServerConfig } from '../config/index.js';
import { filterTools, type RegistryEvent, type ServerRegistry, type ServerState } from '../registry/index.js';
import type { CatalogueMemory } from './catalogue-memory.js';

/** A server not started yet, or starting: one a stand-in is for. */
const ON_ITS_WAY: ReadonlySet<ServerState> = new Set(['created', 'starting']);

export interface StandInsOptions {
  readonly memory: CatalogueMemory;
  readonly registry: ServerRegistry;
  /** A served server's config now (a reload changes them); undefined for one not served. */
  readonly configOf: (server: string) => ServerConfig | undefined;
  /** Whether the server can take a request now. */
  readonly isUp: (server: string) => boolean;
  /** The tools clients were shown changed: tell them (`tools/list_changed`). */
  readonly announce: () => void;
}

/**
 * What each served server listed last time (`catalogue-memory.ts`), standing in for its live
 * list until the server is up: a client's first `tools/list` is then whole at once, though some
 * servers take far longer to start than a client app waits. A stand-in lasts until the server leaves
 * `starting`. Once it is up, its live list replaces the stand-in, and clients hear of it only
 * when the two differ; once it failed, its remembered tools go, with a list change, and a
 * call of one gets the server's own failure (`GatewayCore.toolRoute`). Every listing of a
 * served server is remembered for the next run.
 */
export class StandIns {
  readonly #o: StandInsOptions;
  /** Remembered tools by server name, as the server gave them (before the allow/deny lists). */
  readonly #standing = new Map<string, readonly Tool[]>();

  constructor(options: StandInsOptions) {
    this.#o = options;
  }

  /** Recall the lists of those of `servers` still on their way (not started, or starting). */
  async recall(servers: readonly ServerConfig[]): Promise<void> {
    await Promise.all(
      servers.map(async (server) => {
        const tools = await this.#o.memory.recall(server);
        // Read while the server started: it may be up, or have failed, by now.
        if (tools && this.#onItsWay(server.name)) this.#standing.set(server.name, tools);
      }),
    );
  }

  /** Whether remembered tools stand in for the server's now. */
  has(server: string): boolean {
    return this.#standing.has(server);
  }

  /** The remembered tools shown for `server` now, the config's allow/deny lists applied; undefined without a stand-in. */
  toolsOf(server: string): readonly Tool[] | undefined {
    const tools = this.#standing.get(server);
    const config = this.#o.configOf(server);
    return tools && config ? filterTools(config, tools) : undefined;
  }

  /** The server is no longer served as it was (a reload removed or restarted it). */
  drop(server: string): void {
    this.#standing.delete(server);
  }

  /**
   * Every registry event, from the host's one listener. True for a catalogue event whose
   * announcement is held back: the list of a server standing in, which `state` settles.
   */
  heard(event: RegistryEvent): boolean {
    if (event.type === 'catalog') {
      const config = this.#o.configOf(event.server);
      if (event.kind !== 'tools' || !config) return false;
      if (event.listed) void this.#o.memory.remember(config, event.listed);
      return this.#standing.has(event.server);
    }
    // Asked on every state change (busy and ready around each call): nothing more unless standing in.
    if (event.type === 'state' && this.#standing.has(event.server) && !ON_ITS_WAY.has(event.state))
      this.#settled(event.server);
    return false;
  }

  /** The server is up, failed or stopped: its live list (none, unless up) replaces the stand-in. */
  #settled(server: string): void {
    const shown = this.toolsOf(server);
    this.#standing.delete(server);
    if (shown === undefined) return;
    const live = this.#o.isUp(server) ? this.#o.registry.status(server).tools : [];
    if (canonicalJson(shown) !== canonicalJson(live)) this.#o.announce();
  }

  #onItsWay(server: string): boolean {
    try {
      return ON_ITS_WAY.has(this.#o.registry.status(server).state);
    } catch {
      // No longer in the registry (a reload removed it while its list was read).
      return false;
    }
  }
}
