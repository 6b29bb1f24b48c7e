import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { StderrTail } from '../../../src/transport/stdio/stderr-tail.js';
import { WriteQueue } from '../../../src/transport/stdio/write-queue.js';

/** A stream with room for `capacity` writes before it needs a drain. */
class FakeStream extends EventEmitter {
  readonly written: string[] = [];
  buffered = 0;
  maxDrainListeners = 0;

  constructor(readonly capacity: number) {
    super();
  }

  write(chunk: string): boolean {
    this.written.push(chunk);
    this.buffered++;
    return this.buffered < this.capacity;
  }

  override once(event: string, listener: (...args: unknown[]) => void): this {
    super.once(event, listener);
    this.maxDrainListeners = Math.max(this.maxDrainListeners, this.listenerCount('drain'));
    return this;
  }

  drain() {
    this.buffered = 0;
    this.emit('drain');
  }
}

describe('WriteQueue', () => {
  it('sends the messages of one turn as one write, in order', async () => {
    const stream = new FakeStream(10);
    const queue = new WriteQueue(stream);
    await Promise.all(Array.from({ length: 1000 }, (_, i) => queue.write(`m${i};`)));
    expect(stream.written).toEqual([Array.from({ length: 1000 }, (_, i) => `m${i};`).join('')]);
  });

  it('sends what many callbacks of one loop turn write in two writes, in order', async () => {
    // Calls in flight over HTTP arrive one per socket, each in a callback of its own within one
    // poll of the event loop; a write per callback wakes the server once per call.
    const stream = new FakeStream(1000);
    const queue = new WriteQueue(stream);
    const writes: Promise<void>[] = [];
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 100; i++)
        setImmediate(() => {
          writes.push(queue.write(`m${i};`));
          if (i === 99) resolve();
        });
    });
    await Promise.all(writes);
    expect(stream.written.join('')).toBe(Array.from({ length: 100 }, (_, i) => `m${i};`).join(''));
    expect(stream.written).toHaveLength(2);
    // A lone write after a quiet turn goes out with its own microtasks, not a turn later.
    await new Promise((resolve) => setImmediate(resolve));
    const lone = queue.write('alone;');
    await Promise.resolve();
    expect(stream.written.at(-1)).toBe('alone;');
    await lone;
  });

  it('keeps order and at most one drain listener while the stream is full', async () => {
    const stream = new FakeStream(1);
    const queue = new WriteQueue(stream);
    const settled: number[] = [];
    const writes: Promise<unknown>[] = [];
    for (let turn = 0; turn < 50; turn++) {
      for (let i = 0; i < 20; i++) {
        const n = turn * 20 + i;
        writes.push(queue.write(`m${n};`).then(() => settled.push(n)));
      }
      await new Promise((resolve) => setImmediate(resolve));
      if (turn % 3 === 0) stream.drain();
    }
    while (settled.length < 1000) {
      stream.drain();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(writes);
    expect(stream.written.join('')).toBe(Array.from({ length: 1000 }, (_, i) => `m${i};`).join(''));
    expect(stream.written.length).toBeLessThan(1000);
    expect(settled).toEqual([...settled].sort((a, b) => a - b));
    expect(stream.maxDrainListeners).toBe(1);
  });

  it('rejects waiting and later writes once failed', async () => {
    const stream = new FakeStream(1);
    const queue = new WriteQueue(stream);
    const first = queue.write('a');
    const second = queue.write('b');
    queue.fail(new Error('gone'));
    await expect(first).rejects.toThrow('gone');
    await expect(second).rejects.toThrow('gone');
    await expect(queue.write('c')).rejects.toThrow('gone');
    expect(stream.listenerCount('drain')).toBe(0);
  });
});

describe('StderrTail', () => {
  it('keeps the last N lines, oldest first', () => {
    const tail = new StderrTail(3);
    for (let i = 1; i <= 7; i++) tail.push(`line ${i}`);
    expect(tail.lines()).toEqual(['line 5', 'line 6', 'line 7']);
    const empty = new StderrTail(0);
    empty.push('x');
    expect(empty.lines()).toEqual([]);
  });
});
