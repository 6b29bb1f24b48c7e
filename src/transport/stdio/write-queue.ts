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
 * Serial writer over one stream. The first message of a quiet moment goes out
 * at the end of its microtasks, so a lone request waits for nothing; what is
 * written after that in the same turn of the event loop (the callbacks of
 * other sockets or reads of the same poll) waits for the turn's end and goes
 * out as one write. With 200 calls in flight over HTTP, each arriving on its
 * own socket, that is two writes a turn instead of one per call (each write
 * wakes the server). `write()` resolves once its data is handed to the stream
 * without exceeding its buffer (when it goes out and there is room, after the
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
  /** A write went out this turn: later ones wait for the turn's end (`#endTurn`). */
  #turnWritten = false;
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
      if (this.#draining || this.#flushScheduled || this.#turnWritten) return;
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
    if (!this.#turnWritten) {
      this.#turnWritten = true;
      setImmediate(this.#endTurn);
    }
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

  /** The turn that wrote is over: what it queued since goes out now, as one write. */
  readonly #endTurn = (): void => {
    this.#turnWritten = false;
    this.#flush();
  };

  readonly #onDrain = (): void => {
    this.#draining = false;
    for (const waiter of this.#written.splice(0)) waiter.resolve();
    this.#flush();
  };
}
