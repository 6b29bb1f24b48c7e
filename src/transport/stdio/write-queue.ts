/**
 * Writing messages to a server's stdin with backpressure. The SDK adds a
 * `drain` listener per message that cannot be written at once; a few thousand
 * concurrent requests then trip Node's MaxListenersExceededWarning. Here at
 * most one `drain` listener exists at any time and later messages wait in one
 * queue, in order.
 */

/** The parts of a `Writable` the queue uses. */
export interface QueueWritable {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
  removeListener(event: 'drain', listener: () => void): unknown;
}

interface Waiter {
  readonly data: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Serial writer over one stream. `write()` resolves once the data is handed to
 * the stream without exceeding its buffer (immediately when there is room,
 * after the next `drain` otherwise).
 */
export class WriteQueue {
  readonly #stream: QueueWritable;
  /** Written, waiting for the drain that lets their promises resolve; then not yet written. */
  readonly #written: Waiter[] = [];
  readonly #queued: Waiter[] = [];
  #draining = false;
  #failed: Error | undefined;

  constructor(stream: QueueWritable) {
    this.#stream = stream;
  }

  /** Messages waiting for the stream to drain (for tests and diagnostics). */
  get waiting(): number {
    return this.#written.length + this.#queued.length;
  }

  write(data: string): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    return new Promise((resolve, reject) => {
      if (this.#draining) {
        this.#queued.push({ data, resolve, reject });
        return;
      }
      this.#writeNow({ data, resolve, reject });
    });
  }

  /** Rejects every waiting and future write with `error` (the stream is gone). */
  fail(error: Error): void {
    if (this.#failed) return;
    this.#failed = error;
    if (this.#draining) this.#stream.removeListener('drain', this.#onDrain);
    this.#draining = false;
    for (const waiter of this.#written.splice(0)) waiter.reject(error);
    for (const waiter of this.#queued.splice(0)) waiter.reject(error);
  }

  #writeNow(waiter: Waiter): void {
    let room: boolean;
    try {
      // A write error (EPIPE) also arrives on the stream's 'error' event, where the owner handles it.
      room = this.#stream.write(waiter.data, (error) => {
        if (error) this.fail(error);
      });
    } catch (error) {
      // write after end: the stream is closed
      this.fail(error instanceof Error ? error : new Error(String(error)));
      waiter.reject(this.#failed as Error);
      return;
    }
    if (room) {
      waiter.resolve();
      return;
    }
    this.#written.push(waiter);
    this.#draining = true;
    this.#stream.once('drain', this.#onDrain);
  }

  readonly #onDrain = (): void => {
    this.#draining = false;
    for (const waiter of this.#written.splice(0)) waiter.resolve();
    while (!this.#draining && !this.#failed) {
      const next = this.#queued.shift();
      if (!next) return;
      this.#writeNow(next);
    }
  };
}
