import type { Server } from '@modelcontextprotocol/server';
import type { ListKind } from '../client/index.js';
import type { LogMessage } from './core.js';

/**
 * The downstream servers alive now (one per 2025 session or stdio client), so
 * an upstream list change reaches every client as its own notification.
 */
export class LiveSessions {
  /** Each server, with the id of its 2025-11-25 HTTP session (none for a stdio client). */
  readonly #servers = new Map<Server, string | undefined>();

  /**
   * `sessionId`: the server's HTTP session. The SDK keeps the level a session asked for
   * (`logging/setLevel`) under its session id, so a log sent without it ignores that level.
   */
  add(server: Server, sessionId?: string): void {
    this.#servers.set(server, sessionId);
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
    for (const server of this.#servers.keys()) {
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
    for (const [server, sessionId] of this.#servers)
      void server.sendLoggingMessage({ ...message }, sessionId).catch(() => {});
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#servers.keys()].map((s) => s.close().catch(() => {})));
    this.#servers.clear();
  }
}
