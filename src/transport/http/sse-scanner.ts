/** One complete server-sent event, with the text that encoded it. */
export interface ScannedEvent {
  /** The event re-encoded with `\n` line ends, ready to pass on. */
  readonly raw: string;
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
  readonly retry?: number;
}

/** An event (or an unterminated one) grew past the limit. */
export class EventTooLargeError extends Error {
  override readonly name = 'EventTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`a server-sent event exceeded ${limitBytes} bytes`);
  }
}

/**
 * Splits an SSE byte stream into complete events (WHATWG "event stream"
 * format), holding back a partial one, so a caller can pass on whole events
 * only and splice in another stream without leaving a half event behind.
 * Throws EventTooLargeError once a (partial) event passes `maxEventBytes`.
 *
 * Linear in the input: each chunk is decoded, normalised and searched once,
 * and a partial event is kept as a list of pieces with a running byte count,
 * so a huge event fails at the cap without being re-scanned on every chunk.
 */
export class SseScanner {
  #decoder = new TextDecoder();
  /** The partial event so far, already normalised to `\n` line ends. */
  #pieces: string[] = [];
  #bytes = 0;
  /** A CR at the very end of a chunk may be half of a CRLF: it waits for the next chunk. */
  #heldCr = false;

  constructor(private readonly maxEventBytes: number) {}

  push(chunk: Uint8Array): ScannedEvent[] {
    let text = this.#decoder.decode(chunk, { stream: true });
    if (this.#heldCr) text = `\r${text}`;
    this.#heldCr = text.endsWith('\r');
    if (this.#heldCr) text = text.slice(0, -1);
    text = text.replace(/\r\n?/g, '\n');
    const events: ScannedEvent[] = [];
    let start = 0;
    const last = this.#pieces.at(-1);
    if (last?.endsWith('\n') && text.startsWith('\n')) {
      // The blank line that ends the event straddles two chunks.
      this.#pieces[this.#pieces.length - 1] = last.slice(0, -1);
      events.push(this.#complete(''));
      start = 1;
    }
    for (let end = text.indexOf('\n\n', start); end !== -1; end = text.indexOf('\n\n', start)) {
      events.push(this.#complete(text.slice(start, end)));
      start = end + 2;
    }
    const rest = text.slice(start);
    if (rest !== '') {
      this.#pieces.push(rest);
      this.#bytes += Buffer.byteLength(rest);
      if (this.#bytes > this.maxEventBytes) throw new EventTooLargeError(this.maxEventBytes);
    }
    return events;
  }

  /** Drop a partial event (the stream it came from is gone). */
  reset(): void {
    this.#decoder = new TextDecoder();
    this.#pieces = [];
    this.#bytes = 0;
    this.#heldCr = false;
  }

  #complete(tail: string): ScannedEvent {
    const bytes = this.#bytes + Buffer.byteLength(tail);
    const block = this.#pieces.length === 0 ? tail : this.#pieces.join('') + tail;
    this.#pieces = [];
    this.#bytes = 0;
    if (bytes > this.maxEventBytes) throw new EventTooLargeError(this.maxEventBytes);
    return parseBlock(block);
  }
}

function parseBlock(block: string): ScannedEvent {
  const data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  let retry: number | undefined;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'event') event = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  }
  return {
    raw: `${block}\n\n`,
    data: data.join('\n'),
    ...(id === undefined ? {} : { id }),
    ...(event === undefined ? {} : { event }),
    ...(retry === undefined ? {} : { retry }),
  };
}

/** Encode a JSON-RPC message as one SSE `message` event. */
export function sseMessage(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
