import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { BoundedLineReader } from './bounded-line-reader.js';
import { asJsonRpcMessage } from './json-rpc-frame.js';

/** The SDK stdio server transport's cap on one unread message (its `STDIO_DEFAULT_MAX_BUFFER_SIZE`). */
export const SERVING_MAX_LINE_BYTES = 10 * 1024 * 1024;

/** What the transport reads from (the client's end: `process.stdin`). */
export type ServingInput = Pick<
  Readable,
  'on' | 'off' | 'pause' | 'listenerCount' | 'readableEnded' | 'destroyed'
>;

/** What it writes to (`process.stdout`, or the `coalescingWriter` in front of it). */
export type ServingOutput = Pick<Writable, 'write' | 'once' | 'on' | 'off'>;

/**
 * mcpx's end of a stdio connection on which mcpx is the server (`mcpx serve`): newline-
 * delimited JSON-RPC from `input`, replies to `output`. It behaves as the SDK's
 * `StdioServerTransport` does (a line that is not JSON is skipped, one that is JSON but no
 * JSON-RPC message is reported through `onerror` and skipped, a line past 10 MB is reported
 * and closes the transport, the end of input closes it), for less per message: a line is
 * checked with the framing check mcpx's own client transport uses rather than parsed again by
 * the SDK's zod message schema (the SDK validates each request's content against its era's
 * schema afterwards anyway), and a reply written while the output has room adds and removes
 * no listener. Profiled, the two were ≈3% of a relayed call in `mcpx serve`.
 */
export class ServingStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport['onmessage'];
  /**
   * Sees each message before the SDK server does and may keep it (returns true):
   * the gateway's fast path (`gateway/fast-path.ts`).
   */
  intercept?: ((message: JSONRPCMessage) => boolean) | undefined;

  readonly #input: ServingInput;
  readonly #output: ServingOutput;
  readonly #lines: BoundedLineReader;
  #started = false;
  #closed = false;
  /** The wait for the output to drain, shared by every message written while it is full. */
  #drain: Promise<void> | undefined;

  constructor(input: ServingInput, output: ServingOutput) {
    this.#input = input;
    this.#output = output;
    this.#lines = new BoundedLineReader({
      maxLineBytes: SERVING_MAX_LINE_BYTES,
      overflow: 'stop',
      onLine: (line) => this.#onLine(line),
      onOverflow: () => {
        this.onerror?.(new Error(`a message exceeded the maximum size of ${SERVING_MAX_LINE_BYTES} bytes`));
        void this.close();
      },
    });
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('ServingStdioTransport already started');
    this.#started = true;
    if (this.#input.readableEnded || this.#input.destroyed) setImmediate(this.#onInputEnd);
    this.#input.on('data', this.#onData);
    this.#input.on('error', this.#onInputError);
    this.#input.on('end', this.#onInputEnd);
    this.#input.on('close', this.#onInputEnd);
    this.#output.on('error', this.#onOutputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('ServingStdioTransport is closed'));
    let room: boolean;
    try {
      room = this.#output.write(`${JSON.stringify(message)}\n`);
    } catch (error) {
      return Promise.reject(error);
    }
    if (room) return Promise.resolve();
    return this.#drained();
  }

  /**
   * Past the output's high-water mark: settle once it drains, as the SDK's transport does. Every
   * message written until then shares one wait, so a thousand replies behind a slow reader add
   * two listeners, not two thousand (whose removals, one by one, were a quarter of the gateway's
   * CPU with a thousand calls in flight).
   */
  #drained(): Promise<void> {
    this.#drain ??= new Promise((resolve, reject) => {
      const onDrain = () => {
        this.#drain = undefined;
        this.#output.off('error', onError);
        resolve();
      };
      const onError = (error: Error) => {
        this.#drain = undefined;
        this.#output.off('drain', onDrain);
        reject(error);
      };
      this.#output.once('drain', onDrain);
      this.#output.once('error', onError);
    });
    return this.#drain;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('error', this.#onInputError);
    this.#input.off('end', this.#onInputEnd);
    this.#input.off('close', this.#onInputEnd);
    // Late write failures (the client went away) must not become an unhandled 'error'.
    this.#output.off('error', this.#onOutputError);
    this.#output.on('error', () => {});
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#lines.stop();
    this.onclose?.();
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#lines.push(chunk);
  };

  readonly #onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onInputEnd = (): void => {
    void this.close();
  };

  readonly #onOutputError = (error: Error): void => {
    if (this.#closed) return;
    this.onerror?.(error);
    void this.close();
  };

  #onLine(line: string): void {
    if (this.#closed) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return; // as the SDK's transport: a line that is not JSON is skipped
    }
    const message = asJsonRpcMessage(parsed);
    if (!message) {
      this.onerror?.(new Error('a line on stdin is JSON but not a JSON-RPC 2.0 message'));
      return;
    }
    try {
      if (this.intercept?.(message)) return;
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
