/** What a request watching a `CallCancel` is told when it is cancelled. */
export interface CancelWatcher {
  cancelled(reason: unknown): void;
}

/**
 * One request's cancellation, for a caller that makes thousands of requests and cancels
 * almost none (the gateway's fast path). An `AbortSignal` is an `EventTarget`: making one
 * and adding and removing a request's listener on it costs ≈9% of a relayed call's CPU in
 * `mcpx serve` (profiled). Here the request that carries the call upstream watches it through a
 * field (`watch`), and the `AbortSignal` is made only when something asks for `signal`
 * (a request that goes through the SDK client, a wait for a server still starting).
 * Either way an abort reaches the request once, with the reason an `AbortController`
 * would give.
 */
export class CallCancel {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  /** Who to tell: nearly always one request, so one watcher needs no array. */
  #watching: CancelWatcher | CancelWatcher[] | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** The same cancellation as an `AbortSignal`, made on first use (aborted already, if it was). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** `watcher.cancelled(reason)` on abort, unless `unwatch` came first. */
  watch(watcher: CancelWatcher): void {
    const watching = this.#watching;
    if (watching === undefined) this.#watching = watcher;
    else this.#watching = Array.isArray(watching) ? [...watching, watcher] : [watching, watcher];
  }

  unwatch(watcher: CancelWatcher): void {
    const watching = this.#watching;
    if (watching === watcher) this.#watching = undefined;
    else if (Array.isArray(watching)) {
      const rest = watching.filter((w) => w !== watcher);
      this.#watching = rest.length > 1 ? rest : rest[0];
    }
  }

  /** Cancel, once: `reason` as `AbortController.abort` takes it (none: an `AbortError`). */
  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason =
      reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const watching = this.#watching;
    this.#watching = undefined;
    this.#controller?.abort(this.#reason);
    if (Array.isArray(watching)) for (const watcher of watching) watcher.cancelled(this.#reason);
    else watching?.cancelled(this.#reason);
  }
}
