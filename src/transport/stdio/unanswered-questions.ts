import type { JSONRPCMessage } from '@modelcontextprotocol/client';

/**
 * The requests a server sent mcpx (roots, sampling, elicitation, ping) that mcpx has not
 * answered. A server waiting on one does not exit when its stdin closes: it waits for the
 * answer, often for a minute. So at shutdown such a server is not "still working" and gets
 * no grace: once mcpx's input to it is closed, nothing can answer it (issue 44: server-everything
 * asks for roots 350 ms after it starts, after a one-shot call's result).
 */
export class UnansweredQuestions {
  readonly #ids = new Set<string | number>();
  #onQuestion: (() => void) | undefined;

  /** A message from the server: a request starts waiting for mcpx. */
  received(message: JSONRPCMessage): void {
    const m = message as { id?: unknown; method?: unknown };
    if (typeof m.method === 'string' && isId(m.id)) {
      this.#ids.add(m.id);
      this.#onQuestion?.();
    }
  }

  /** A message to the server: an answer ends a wait. */
  sent(message: JSONRPCMessage): void {
    const m = message as { id?: unknown; method?: unknown };
    if (m.method === undefined && isId(m.id)) this.#ids.delete(m.id);
  }

  /**
   * Settles as soon as the server waits on mcpx: at once when it already does, else at
   * its next request. For the shutdown, when nothing will answer any more.
   */
  waitedOn(): Promise<void> {
    if (this.#ids.size > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#onQuestion = resolve;
    });
  }
}

function isId(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}
