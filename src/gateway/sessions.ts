import type { Server } from '@modelcontextprotocol/server';
import type { ListKind } from '../client/index.js';
import type { LogMessage } from './core.js';

/**
 * The downstream servers alive now (one per 2025 session or stdio client), so
 * an upstream list change reaches every client as its own notification.
 */
export class LiveSessions {
  readonly #servers = new Set<Server>();

  add(server: Server): void {
    this.#servers.add(server);
    const previous = server.onclose;
    server.onclose = () => {
      this.#servers.delete(server);
      previous?.();
    };
  }

  get size(): number {
    return this.#servers.size;
  }

  listChanged(kind: ListKind): void {
    for (const server of this.#servers) {
      const sent =
        kind === 'tools'
          ? server.sendToolListChanged()
          : kind === 'prompts'
            ? server.sendPromptListChanged()
            : server.sendResourceListChanged();
      void sent.catch(() => {});
    }
  }

  log(message: LogMessage): void {
    for (const server of this.#servers) void server.sendLoggingMessage({ ...message }).catch(() => {});
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#servers].map((s) => s.close().catch(() => {})));
    this.#servers.clear();
  }
}
