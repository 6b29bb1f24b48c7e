import { describe, expect, it } from 'vitest';
import { BoundedLineReader, DEFAULT_MAX_LINE_BYTES } from '../../../src/transport/index.js';
import { SKIPPED_END_BYTES, type SkippedLine } from '../../../src/transport/stdio/bounded-line-reader.js';

function collect(options: { maxLineBytes?: number; overflow?: 'stop' | 'truncate' } = {}) {
  const lines: string[] = [];
  const overflows: number[] = [];
  const reader = new BoundedLineReader({
    ...options,
    onLine: (line) => lines.push(line),
    onOverflow: (seen) => overflows.push(seen),
  });
  return { reader, lines, overflows };
}

const b = (text: string) => Buffer.from(text, 'utf8');

describe('BoundedLineReader', () => {
  it('defaults to a 10 MB cap', () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBe(10 * 1024 * 1024);
    expect(collect().reader.maxLineBytes).toBe(DEFAULT_MAX_LINE_BYTES);
  });

  it('splits lines and tolerates CRLF, also when \\r and \\n arrive in different chunks', () => {
    const { reader, lines } = collect();
    reader.push(b('one\r\ntwo\nthr'));
    reader.push(b('ee\r'));
    reader.push(b('\nfour\r\n\r\n'));
    expect(lines).toEqual(['one', 'two', 'three', 'four', '']);
    expect(reader.bufferedBytes).toBe(0);
  });

  it('joins a line split over many chunks', () => {
    const { reader, lines } = collect();
    for (const piece of ['{"a"', ':', '1', '}\n{"b":2}', '\n']) reader.push(b(piece));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('decodes multibyte UTF-8 characters split across chunks', () => {
    const { reader, lines } = collect();
    const bytes = b('héllo 🌍 wörld\n');
    for (let i = 0; i < bytes.length; i++) reader.push(bytes.subarray(i, i + 1));
    expect(lines).toEqual(['héllo 🌍 wörld']);
  });

  it('delivers a last line without newline at end()', () => {
    const { reader, lines } = collect();
    reader.push(b('a\nlast'));
    reader.end();
    expect(lines).toEqual(['a', 'last']);
  });

  it('accepts a line of exactly the cap (with LF or CRLF) and rejects cap + 1', () => {
    const exact = collect({ maxLineBytes: 8 });
    exact.reader.push(b('12345678\n'));
    exact.reader.push(b('abcdefgh\r'));
    exact.reader.push(b('\n'));
    expect(exact.lines).toEqual(['12345678', 'abcdefgh']);
    expect(exact.overflows).toEqual([]);

    const over = collect({ maxLineBytes: 8 });
    over.reader.push(b('123456789\nnext\n'));
    expect(over.lines).toEqual([]);
    expect(over.overflows).toEqual([9]);
    expect(over.reader.stopped).toBe(true);
  });

  it('reports an open line past the cap at once, once, and ignores everything after', () => {
    const { reader, lines, overflows } = collect({ maxLineBytes: 8 });
    reader.push(b('1234'));
    reader.push(b('56789'));
    reader.push(b('0'));
    // 10 bytes and no newline: more than the cap plus a possible `\r`, so the line cannot fit.
    expect(overflows).toHaveLength(1);
    reader.push(b('abc\n{"ok":1}\n'));
    reader.end();
    expect(lines).toEqual([]);
    expect(overflows).toHaveLength(1);
    expect(reader.bufferedBytes).toBe(0);
  });

  it('in truncate mode keeps the head of a long line and carries on', () => {
    const { reader, lines, overflows } = collect({ maxLineBytes: 4, overflow: 'truncate' });
    reader.push(b('short\n'));
    reader.push(b('abcdefgh'));
    reader.push(b('ijk\nok\n'));
    expect(lines).toEqual(['shor…', 'abcd…', 'ok']);
    expect(overflows).toHaveLength(2);
  });

  it('keeps memory bounded: 20 MB in 64 KB chunks with a 10 MB cap never holds more than cap + one chunk', () => {
    const chunkSize = 64 * 1024;
    const limit = 10 * 1024 * 1024;
    const { reader, lines, overflows } = collect({ maxLineBytes: limit });
    const chunk = Buffer.alloc(chunkSize, 'x');
    let peak = 0;
    for (let sent = 0; sent < 20 * 1024 * 1024; sent += chunkSize) {
      reader.push(chunk);
      peak = Math.max(peak, reader.bufferedBytes);
    }
    reader.push(b('\n'));
    expect(peak).toBeLessThanOrEqual(limit + chunkSize);
    expect(overflows).toHaveLength(1);
    expect(lines).toEqual([]);
    expect(reader.bufferedBytes).toBe(0);
  });

  it('frames a 10 MB line fast (each byte scanned once, one join)', () => {
    const chunkSize = 64 * 1024;
    const { reader, lines } = collect();
    const chunk = Buffer.alloc(chunkSize, 'y');
    const total = DEFAULT_MAX_LINE_BYTES - chunkSize;
    const started = performance.now();
    for (let sent = 0; sent < total; sent += chunkSize) reader.push(chunk);
    reader.push(b('\n'));
    const elapsed = performance.now() - started;
    expect(lines[0]).toHaveLength(total);
    // An O(n²) concat-per-chunk buffer takes seconds here; a linear one takes a few ms.
    expect(elapsed).toBeLessThan(500);
  });

  it('rejects a cap that is not a positive integer', () => {
    expect(() => new BoundedLineReader({ maxLineBytes: 0, onLine: () => {} })).toThrow(RangeError);
  });

  it('skip mode: drops an over-long line to its newline, keeping its size and ends, and carries on', () => {
    const skipped: SkippedLine[] = [];
    const heads: Array<string | undefined> = [];
    const lines: string[] = [];
    const reader = new BoundedLineReader({
      maxLineBytes: 10,
      overflow: 'skip',
      onLine: (line) => lines.push(line),
      onOverflow: (_seen, head) => heads.push(head),
      onSkipped: (line) => skipped.push(line),
    });
    const long = `{${'a'.repeat(SKIPPED_END_BYTES)}${'b'.repeat(3 * SKIPPED_END_BYTES)}${'c'.repeat(SKIPPED_END_BYTES)}}`;
    reader.push(b('ok\n'));
    for (let i = 0; i < long.length; i += 1000) reader.push(b(long.slice(i, i + 1000)));
    expect(skipped).toEqual([]); // not yet: its newline has not come
    reader.push(b('\r\nnext\n'));
    expect(lines).toEqual(['ok', 'next']);
    expect(heads).toHaveLength(1);
    expect(heads[0]?.startsWith('{aaa')).toBe(true);
    expect(skipped).toEqual([
      {
        bytes: long.length,
        head: long.slice(0, SKIPPED_END_BYTES),
        tail: long.slice(-SKIPPED_END_BYTES),
      },
    ]);
    expect(reader.bufferedBytes).toBe(0);
  });

  it('skip mode: an over-long line whose newline came in the same chunk, and one ended by the stream', () => {
    const skipped: SkippedLine[] = [];
    const reader = new BoundedLineReader({
      maxLineBytes: 4,
      overflow: 'skip',
      onLine: () => {},
      onSkipped: (l) => skipped.push(l),
    });
    reader.push(b('123456\n1234567'));
    reader.end();
    expect(skipped).toEqual([
      { bytes: 6, head: '123456', tail: '123456' },
      { bytes: 7, head: '1234567', tail: '1234567' },
    ]);
  });

  it('skip mode: stop() from onOverflow ignores the rest, as stop mode does', () => {
    const lines: string[] = [];
    const skipped: SkippedLine[] = [];
    const reader: BoundedLineReader = new BoundedLineReader({
      maxLineBytes: 4,
      overflow: 'skip',
      onLine: (line) => lines.push(line),
      onOverflow: () => reader.stop(),
      onSkipped: (line) => skipped.push(line),
    });
    reader.push(b('no line breaks at all'));
    reader.push(b('\nlater\n'));
    reader.end();
    expect(reader.stopped).toBe(true);
    expect(lines).toEqual([]);
    expect(skipped).toEqual([]);
  });
});
