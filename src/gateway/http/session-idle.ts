/**
 * When each 2025-11-25 session was last used, so the HTTP front can end the
 * ones a client left without a DELETE (most clients never send one: they
 * exit). A session is idle while none of its requests is open (an SSE stream
 * a client listens on counts as open, however quiet) and none came for
 * `idleMs`. Ending it frees its downstream server and its event log; the
 * client's next request gets 404, on which the spec has it initialize anew.
 */
export class SessionActivity {
  readonly #sessions = new Map<string, { last: number; open: number }>();
  readonly #idleMs: number;
  readonly #now: () => number;

  constructor(idleMs: number, now: () => number = Date.now) {
    this.#idleMs = idleMs;
    this.#now = now;
  }

  /** A request of session `id` began; call the returned function once its response has closed (once). */
  begin(id: string): () => void {
    let entry = this.#sessions.get(id);
    if (!entry) {
      entry = { last: this.#now(), open: 0 };
      this.#sessions.set(id, entry);
    }
    entry.open += 1;
    const used = entry;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      used.open -= 1;
      used.last = this.#now();
    };
  }

  forget(id: string): void {
    this.#sessions.delete(id);
  }

  /** The sessions idle for longer than `idleMs`, with no request open. */
  idle(): string[] {
    const now = this.#now();
    const ids: string[] = [];
    for (const [id, { last, open }] of this.#sessions)
      if (open === 0 && now - last > this.#idleMs) ids.push(id);
    return ids;
  }
}
