/** The last stderr lines of a server, for error messages; nothing is printed. */

/** Default number of stderr lines kept per server. */
export const DEFAULT_STDERR_TAIL_LINES = 20;

/**
 * A fixed-size ring of the most recent lines. Appending is O(1) whatever the
 * volume a chatty server writes.
 */
export class StderrTail {
  readonly capacity: number;
  readonly #ring: string[] = [];
  #next = 0;

  constructor(capacity: number = DEFAULT_STDERR_TAIL_LINES) {
    this.capacity = Math.max(0, Math.floor(capacity));
  }

  push(line: string): void {
    if (this.capacity === 0) return;
    if (this.#ring.length < this.capacity) {
      this.#ring.push(line);
      return;
    }
    this.#ring[this.#next] = line;
    this.#next = (this.#next + 1) % this.capacity;
  }

  /** The kept lines, oldest first. */
  lines(): string[] {
    return [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
  }
}
