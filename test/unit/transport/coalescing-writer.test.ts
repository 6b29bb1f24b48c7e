import { EventEmitter } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { coalescingWriter } from '../../../src/transport/stdio/coalescing-writer.js';

/** A pipe that records each write and has room until `full` is set. */
class RecordingPipe extends EventEmitter {
  readonly writes: string[] = [];
  readonly writableHighWaterMark = 64;
  full = false;

  write(chunk: string, callback?: (error?: Error | null) => void): boolean {
    this.writes.push(chunk);
    process.nextTick(() => callback?.());
    return !this.full;
  }
}

describe('coalescingWriter', () => {
  it('sends the first message at once and the rest of the turn as one write, in order', async () => {
    const pipe = new RecordingPipe();
    const writer = coalescingWriter(pipe);
    for (let i = 0; i < 100; i++) writer.write(`m${i}\n`);
    expect(pipe.writes).toEqual(['m0\n']);
    await nextTurn();
    await nextTurn();
    expect(pipe.writes).toHaveLength(2);
    expect(pipe.writes.join('')).toBe(Array.from({ length: 100 }, (_, i) => `m${i}\n`).join(''));
  });

  it('writes nothing more while the pipe is full, and resumes on its drain', async () => {
    const pipe = new RecordingPipe();
    pipe.full = true;
    const writer = coalescingWriter(pipe);
    writer.write('a\n');
    writer.write('b\n');
    await nextTurn();
    await nextTurn();
    expect(pipe.writes).toEqual(['a\n']);
    pipe.full = false;
    pipe.emit('drain');
    await nextTurn();
    expect(pipe.writes).toEqual(['a\n', 'b\n']);
  });

  it('reports back-pressure past its high-water mark, and end() waits for every byte', async () => {
    const pipe = new RecordingPipe();
    const writer = coalescingWriter(pipe);
    const accepted = Array.from({ length: 20 }, () => writer.write('0123456789\n'));
    expect(accepted.at(-1)).toBe(false);
    await new Promise<void>((resolve) => writer.end(() => resolve()));
    expect(pipe.writes.join('')).toBe('0123456789\n'.repeat(20));
  });

  it('fails its writer when the pipe reports a write error', async () => {
    const pipe = new RecordingPipe();
    pipe.write = (chunk, callback) => {
      pipe.writes.push(chunk);
      process.nextTick(() => callback?.(new Error('EPIPE')));
      return true;
    };
    const writer = coalescingWriter(pipe);
    const failed = new Promise<Error>((resolve) => writer.once('error', resolve));
    writer.write('x\n');
    expect((await failed).message).toBe('EPIPE');
  });
});
