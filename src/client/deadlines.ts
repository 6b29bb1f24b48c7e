const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * The timeouts of many requests on one timer: a timer per request is set and cleared on
 * every call (Node's timer lists, a priority queue), where most requests end long before
 * their time. Here a request's deadline is a map entry. The one timer stays armed for the
 * earliest deadline it knows (a request that ends first is only forgotten); when it fires it
 * ends whatever is due and is armed for the next. It holds the process open only while a
 * request waits. A request ends no earlier than its own timeout, as with its own timer.
 */
/** What a deadline ends: an object with its own `expire`, so that a request needs no closure for it. */
export interface Expiring {
  expire(): void;
}

export class Deadlines<K> {
  readonly #due = new Map<K, { readonly at: number; readonly target: Expiring }>();
  #timer: NodeJS.Timeout | undefined;
  /** When the timer is armed to fire (`Infinity`: not armed). */
  #armedAt = Number.POSITIVE_INFINITY;

  /** Requests waiting for their deadline. */
  get size(): number {
    return this.#due.size;
  }

  /** Call `target.expire()` once `ms` have passed, unless `delete(key)` came first. */
  add(key: K, ms: number, target: Expiring): void {
    const at = performance.now() + ms;
    this.#due.set(key, { at, target });
    if (at < this.#armedAt) this.#arm(at);
    else if (this.#due.size === 1) this.#timer?.ref();
  }

  /** The request ended before its deadline. */
  delete(key: K): void {
    if (this.#due.delete(key) && this.#due.size === 0) this.#timer?.unref();
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#armedAt = at;
    const ms = Math.max(1, Math.ceil(at - performance.now()));
    // Past Node's longest timer the timer fires early, finds nothing due, and is armed again.
    this.#timer = setTimeout(() => this.#fire(), Math.min(ms, LONGEST_TIMER_MS));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [key, due] of this.#due) {
      if (due.at <= now) {
        this.#due.delete(key);
        due.target.expire();
      } else if (due.at < next) next = due.at;
    }
    if (next < this.#armedAt) this.#arm(next);
  }
}
