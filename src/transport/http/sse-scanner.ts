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
 * Throws EventTooLargeError once buffered text passes `maxEventBytes`.
 */
export class SseScanner {
  #decoder = new TextDecoder();
  #buffer = '';

  constructor(private readonly maxEventBytes: number) {}

  push(chunk: Uint8Array): ScannedEvent[] {
    this.#buffer += this.#decoder.decode(chunk, { stream: true });
    // A CR at the very end may be half of a CRLF: keep it for the next chunk.
    const hold = this.#buffer.endsWith('\r') ? '\r' : '';
    const text = (hold ? this.#buffer.slice(0, -1) : this.#buffer).replace(/\r\n?/g, '\n');
    const events: ScannedEvent[] = [];
    let start = 0;
    for (let end = text.indexOf('\n\n', start); end !== -1; end = text.indexOf('\n\n', start)) {
      const block = text.slice(start, end);
      start = end + 2;
      if (Buffer.byteLength(block) > this.maxEventBytes) throw new EventTooLargeError(this.maxEventBytes);
      events.push(parseBlock(block));
    }
    this.#buffer = text.slice(start) + hold;
    // Characters undercount UTF-8 bytes, so measure exactly only once it could matter.
    if (
      this.#buffer.length * 4 > this.maxEventBytes &&
      Buffer.byteLength(this.#buffer) > this.maxEventBytes
    ) {
      throw new EventTooLargeError(this.maxEventBytes);
    }
    return events;
  }

  /** Drop a partial event (the stream it came from is gone). */
  reset(): void {
    this.#decoder = new TextDecoder();
    this.#buffer = '';
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
