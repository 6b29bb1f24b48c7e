/**
 * Newline-delimited framing for a byte stream with a hard cap on line length.
 *
 * The SDK's ReadBuffer concatenates the whole buffer on every chunk (O(n²) for
 * a 10 MB line arriving in 64 KB chunks) and rescans it from the start. Here
 * each byte is scanned once, chunks are kept in a list and joined once per
 * line, and a line past the cap stops buffering at once, so memory stays below
 * the cap plus one chunk whatever the server sends.
 */

/** 10 MB: the default cap on one line (one JSON-RPC message) from a server. */
export const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/** How much of each end of a skipped line is kept (see {@link SkippedLine}). */
export const SKIPPED_END_BYTES = 4096;

/** What to do with a line longer than the cap. */
export type OverflowMode =
  /** Report it once and ignore everything after it (the stream can no longer be trusted). */
  | 'stop'
  /** Emit its first `maxLineBytes` bytes, drop the rest up to the next newline, carry on (stderr). */
  | 'truncate'
  /**
   * Drop it up to its newline, keeping only its ends, and report it then (`onSkipped`), so a
   * reply too large to read can still be told apart and pinned on its request (stdout). The
   * `onOverflow` callback may call `stop()` instead, when the line is not worth waiting for.
   */
  | 'skip';

/** A line dropped in `skip` mode: its size and its ends, enough to see what it was. */
export interface SkippedLine {
  /** Its length in bytes, without its line ending. */
  readonly bytes: number;
  /** Its first {@link SKIPPED_END_BYTES} bytes, decoded as UTF-8. */
  readonly head: string;
  /** Its last {@link SKIPPED_END_BYTES} bytes (without the line ending), decoded as UTF-8. */
  readonly tail: string;
}

/** Options of {@link BoundedLineReader}. */
export interface BoundedLineReaderOptions {
  /** Longest accepted line in bytes, not counting its `\n` or `\r\n`. Default {@link DEFAULT_MAX_LINE_BYTES}. */
  readonly maxLineBytes?: number;
  /** Default `stop`. */
  readonly overflow?: OverflowMode;
  /** Each complete line, decoded as UTF-8, without its line ending. */
  readonly onLine: (line: string) => void;
  /**
   * A line went past the cap. `bytesSeen` is how much of it had arrived. In
   * `stop` mode this is called once and the reader ignores all later input. In
   * `skip` mode `head` is the line's first bytes, to judge it by.
   */
  readonly onOverflow?: (bytesSeen: number, head?: string) => void;
  /** `skip` mode: an over-long line ended (its newline, or the end of the stream). */
  readonly onSkipped?: (line: SkippedLine) => void;
}

/**
 * Splits chunks of bytes into lines (`\n`, tolerating `\r\n`) without ever
 * holding more than `maxLineBytes` + one chunk. Multibyte UTF-8 characters
 * split across chunks decode correctly: bytes are joined before decoding.
 *
 * @example
 * const reader = new BoundedLineReader({ onLine: (line) => lines.push(line) });
 * stream.on('data', (chunk) => reader.push(chunk));
 * stream.on('end', () => reader.end());
 */
export class BoundedLineReader {
  readonly maxLineBytes: number;
  readonly #overflow: OverflowMode;
  readonly #onLine: (line: string) => void;
  readonly #onOverflow: ((bytesSeen: number, head?: string) => void) | undefined;
  readonly #onSkipped: ((line: SkippedLine) => void) | undefined;
  /** The start of the current line, as slices of the chunks it arrived in. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** truncate mode: inside an over-long line, dropping bytes until its newline. */
  #discarding = false;
  /** skip mode: inside an over-long line, counting its bytes and keeping its ends. */
  #skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  #stopped = false;

  constructor(options: BoundedLineReaderOptions) {
    const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`maxLineBytes must be a positive integer, got ${max}`);
    this.maxLineBytes = max;
    this.#overflow = options.overflow ?? 'stop';
    this.#onLine = options.onLine;
    this.#onOverflow = options.onOverflow;
    this.#onSkipped = options.onSkipped;
  }

  /** Bytes held for the line in progress (for tests and diagnostics). */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  /** Whether an over-long line stopped the reader (`stop` mode). */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Feeds the next chunk; calls `onLine` for every line it completes. */
  push(chunk: Buffer): void {
    let start = 0;
    while (!this.#stopped && start < chunk.length) {
      const newline = chunk.indexOf(LF, start);
      if (newline === -1) {
        this.#keep(chunk, start, chunk.length);
        return;
      }
      if (this.#discarding) {
        this.#discarding = false;
      } else if (this.#skipping) {
        this.#skip(chunk, start, newline);
        this.#endSkip();
      } else if (
        this.#pendingBytes + (newline - start) - this.#trailingCr(chunk, start, newline) >
        this.maxLineBytes
      ) {
        this.#tooLong(chunk, start, newline, true);
      } else {
        this.#emit(chunk, start, newline);
      }
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without a newline is still delivered. */
  end(): void {
    if (this.#skipping && !this.#stopped) {
      this.#endSkip();
      return;
    }
    if (this.#stopped || this.#discarding || this.#pendingBytes === 0) {
      this.#reset();
      return;
    }
    this.#emit(Buffer.alloc(0), 0, 0);
  }

  /** Drops any partial line and ignores all later input. */
  stop(): void {
    this.#stopped = true;
    this.#skipping = undefined;
    this.#reset();
  }

  #keep(chunk: Buffer, start: number, end: number): void {
    if (this.#discarding) return;
    if (this.#skipping) {
      this.#skip(chunk, start, end);
      return;
    }
    this.#pending.push(chunk.subarray(start, end));
    this.#pendingBytes += end - start;
    // One byte of slack: the line may be exactly the cap plus a `\r` still waiting for its `\n`.
    if (this.#pendingBytes > this.maxLineBytes + 1) this.#tooLong(chunk, end, end, false);
  }

  /** 1 when the line ending at `end` ends with `\r` (which may sit in an earlier chunk). */
  #trailingCr(chunk: Buffer, start: number, end: number): number {
    if (end > start) return chunk[end - 1] === CR ? 1 : 0;
    const last = this.#pending[this.#pending.length - 1];
    return last !== undefined && last[last.length - 1] === CR ? 1 : 0;
  }

  /** `complete`: the line's newline has arrived; otherwise the rest of it is still to come. */
  #tooLong(chunk: Buffer, start: number, end: number, complete: boolean): void {
    const seen = this.#pendingBytes + (end - start);
    if (this.#overflow === 'stop') {
      this.stop();
      this.#onOverflow?.(seen);
      return;
    }
    if (this.#overflow === 'skip') {
      const line = [...this.#pending, chunk.subarray(start, end)];
      this.#skipping = {
        bytes: seen,
        head: firstBytes(line, SKIPPED_END_BYTES),
        tail: lastBytes(line, SKIPPED_END_BYTES + 1),
      };
      this.#reset();
      this.#onOverflow?.(seen, this.#skipping.head.toString('utf8'));
      if (complete && this.#skipping) this.#endSkip();
      return;
    }
    const head = this.#join(chunk, start, end).subarray(0, this.maxLineBytes);
    this.#reset();
    // The line is still open: drop the rest of it as it arrives.
    if (!complete) this.#discarding = true;
    this.#onOverflow?.(seen);
    this.#onLine(`${head.toString('utf8')}…`);
  }

  /** skip mode: `chunk[start, end)` is more of the line being skipped. */
  #skip(chunk: Buffer, start: number, end: number): void {
    const skipping = this.#skipping;
    if (!skipping || end === start) return;
    skipping.bytes += end - start;
    // The head is all that had arrived at the overflow; a cap below the kept size leaves room for more.
    if (skipping.head.length < SKIPPED_END_BYTES)
      skipping.head = firstBytes([skipping.head, chunk.subarray(start, end)], SKIPPED_END_BYTES);
    // One byte more than is reported: the last may be the `\r` of a `\r\n`.
    skipping.tail = lastBytes([skipping.tail, chunk.subarray(start, end)], SKIPPED_END_BYTES + 1);
  }

  #endSkip(): void {
    const skipping = this.#skipping;
    this.#skipping = undefined;
    if (!skipping) return;
    const cr = skipping.tail[skipping.tail.length - 1] === CR ? 1 : 0;
    const tail = skipping.tail.subarray(0, skipping.tail.length - cr);
    this.#onSkipped?.({
      bytes: skipping.bytes - cr,
      head: skipping.head.subarray(0, skipping.bytes - cr).toString('utf8'),
      tail: tail.subarray(Math.max(0, tail.length - SKIPPED_END_BYTES)).toString('utf8'),
    });
  }

  #emit(chunk: Buffer, start: number, end: number): void {
    let bytes = this.#join(chunk, start, end);
    this.#reset();
    if (bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    this.#onLine(bytes.toString('utf8'));
  }

  /** The pending slices plus `chunk[start, end)` as one buffer, copying only when there is more than one piece. */
  #join(chunk: Buffer, start: number, end: number): Buffer {
    const tail = chunk.subarray(start, end);
    if (this.#pending.length === 0) return tail;
    if (tail.length === 0 && this.#pending.length === 1) return this.#pending[0] as Buffer;
    return Buffer.concat([...this.#pending, tail], this.#pendingBytes + tail.length);
  }

  #reset(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
  }
}

/** The first `n` bytes of `pieces` joined, copying no more than that. */
function firstBytes(pieces: readonly Buffer[], n: number): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (const piece of pieces) {
    if (size >= n) break;
    const part = piece.subarray(0, n - size);
    kept.push(part);
    size += part.length;
  }
  return Buffer.concat(kept, size);
}

/** The last `n` bytes of `pieces` joined, copying no more than that. */
function lastBytes(pieces: readonly Buffer[], n: number): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (let i = pieces.length - 1; i >= 0 && size < n; i--) {
    const piece = pieces[i] as Buffer;
    const part = piece.subarray(Math.max(0, piece.length - (n - size)));
    kept.unshift(part);
    size += part.length;
  }
  return Buffer.concat(kept, size);
}
