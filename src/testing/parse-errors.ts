/**
 * The test server's answer to a line that is not JSON. The SDK's stdio transport skips such a
 * line without a word (its `ReadBuffer` drops a `SyntaxError`), so a client that wrote garbage
 * waits forever; JSON-RPC 2.0 (section 5.1) says the server answers `-32700 Parse error` with a
 * null id, as the seeds' test server does (seed 004, phase 6).
 */
import { type Readable, Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** The JSON-RPC 2.0 answer to a line that is not JSON. */
export const PARSE_ERROR_RESPONSE = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32700, message: 'Parse error' },
} as const;

/**
 * `input` with every line that is not JSON taken out and answered on `out` with
 * {@link PARSE_ERROR_RESPONSE}; every other line passes through unchanged, in order. An empty
 * line is passed on (the SDK ignores it): it is the blank between messages, not a message.
 *
 * @example
 * serveStdio(factory, { transport: new StdioServerTransport(answerParseErrors(process.stdin, process.stdout), process.stdout) });
 */
export function answerParseErrors(input: Readable, out: { write(chunk: string): unknown }): Readable {
  // The part of a line read so far, in pieces: a long line is joined once, not once per chunk.
  let pending: string[] = [];
  // A character split between two chunks is decoded whole.
  const decoder = new StringDecoder('utf8');
  const keep = (line: string): boolean => {
    if (line.trim() === '') return true;
    try {
      JSON.parse(line);
      return true;
    } catch {
      out.write(`${JSON.stringify(PARSE_ERROR_RESPONSE)}\n`);
      return false;
    }
  };
  return input.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        const text = decoder.write(chunk);
        if (!text.includes('\n')) {
          pending.push(text);
          return done();
        }
        const lines = [...pending, text].join('').split('\n');
        pending = [lines.pop() ?? ''];
        const kept = lines.filter(keep);
        done(null, kept.length > 0 ? `${kept.join('\n')}\n` : undefined);
      },
      // A last line without its newline is not a message yet; the SDK would not read it either.
      flush(done) {
        const last = pending.join('') + decoder.end();
        done(null, last === '' ? undefined : last);
      },
    }),
  );
}
