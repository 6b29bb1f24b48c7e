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
 * Serial writer over one stream. Messages sent in the same turn of the event
 * loop go out as one write (2,000 concurrent requests cost a handful of
 * system calls, not 2,000). `write()` resolves once its data is handed to the
 * stream without exceeding its buffer (at once when there is room, after the
 * next `drain` otherwise).
 */
export class WriteQueue {
  readonly #stream: QueueWritable;
  /** Written, waiting for the drain that lets their promises resolve. */
  readonly #written: Waiter[] = [];
  /** Not written yet: waiting for the flush, or for a drain. */
  readonly #queued: Waiter[] = [];
  #draining = false;
  #flushScheduled = false;
  #failed: Error | undefined;
  readonly #onFlushed: (() => void) | undefined;

  /** `onFlushed` runs each time a write has reached the underlying resource (the pipe), not just the stream's buffer. */
  constructor(stream: QueueWritable, onFlushed?: () => void) {
    this.#stream = stream;
    this.#onFlushed = onFlushed;
  }

  /** Messages waiting for the stream to drain (for tests and diagnostics). */
  get waiting(): number {
    return this.#written.length + this.#queued.length;
  }

  write(data: string): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    return new Promise((resolve, reject) => {
      this.#queued.push({ data, resolve, reject });
      if (this.#draining || this.#flushScheduled) return;
      this.#flushScheduled = true;
      queueMicrotask(this.#flush);
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

  readonly #flush = (): void => {
    this.#flushScheduled = false;
    if (this.#draining || this.#failed || this.#queued.length === 0) return;
    const batch = this.#queued.splice(0);
    const data = batch.length === 1 ? (batch[0] as Waiter).data : batch.map((w) => w.data).join('');
    let room: boolean;
    try {
      // A write error (EPIPE) also arrives on the stream's 'error' event, where the owner handles it.
      room = this.#stream.write(data, (error) => {
        if (error) this.fail(error);
        else this.#onFlushed?.();
      });
    } catch (error) {
      // write after end: the stream is closed
      const failure = error instanceof Error ? error : new Error(String(error));
      this.fail(failure);
      for (const waiter of batch) waiter.reject(failure);
      return;
    }
    if (room) {
      for (const waiter of batch) waiter.resolve();
      return;
    }
    this.#written.push(...batch);
    this.#draining = true;
    this.#stream.once('drain', this.#onDrain);
  };

  readonly #onDrain = (): void => {
    this.#draining = false;
    for (const waiter of this.#written.splice(0)) waiter.resolve();
    this.#flush();
  };
}
