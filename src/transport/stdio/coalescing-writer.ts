import { Writable } from 'node:stream';

/** The parts of the real output (a pipe, `process.stdout`) the writer uses. */
export interface CoalescingTarget {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
  readonly writableHighWaterMark?: number;
}

/**
 * A `Writable` in front of a pipe for a transport that writes one message per
 * `write()` (the SDK's `StdioServerTransport`). The first message of a turn
 * of the event loop goes out at once, so a lone reply waits for nothing; the
 * ones written after it in the same turn are held until the turn ends and go
 * out as one write. With 2,000 replies in flight that is a handful of system
 * calls (each one wakes the reader) instead of 2,000: profiled, the writes
 * were the largest single cost of `mcpx serve` on stdio.
 *
 * Backpressure is kept: while the pipe is full nothing more is written, and
 * `write()` returns false past the high-water mark as any stream does. Errors
 * of the pipe arrive on the pipe's own `error` event, where its owner handles
 * them; a failed write also destroys this writer, so the transport on it sees
 * the error too. `end()` resolves its callback once everything is handed to
 * the pipe.
 */
export function coalescingWriter(target: CoalescingTarget): Writable {
  const send = (data: string, done: (error?: Error | null) => void) => {
    let settled = false;
    const settle = (error?: Error | null) => {
      if (settled) return;
      settled = true;
      done(error);
    };
    let room: boolean;
    try {
      room = target.write(data, (error) => {
        if (error) settle(error);
      });
    } catch (error) {
      settle(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    // Holding the callback until the turn's end is what makes later writes wait in this
    // stream's buffer, which `writev` then hands over as one chunk.
    if (room) setImmediate(settle);
    else target.once('drain', () => settle());
  };
  const writer = new Writable({
    decodeStrings: false,
    highWaterMark: target.writableHighWaterMark ?? 16 * 1024,
    write(chunk: string | Buffer, _encoding, done) {
      send(typeof chunk === 'string' ? chunk : chunk.toString('utf8'), done);
    },
    writev(chunks, done) {
      send(
        chunks
          .map(({ chunk }) => (typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8')))
          .join(''),
        done,
      );
    },
  });
  return writer;
}
