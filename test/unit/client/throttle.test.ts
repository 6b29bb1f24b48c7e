import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttle } from '../../../src/client/throttle.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('throttle', () => {
  it('tells the first change at once, a burst once more after the interval, and nothing owed after that', () => {
    const announce = vi.fn();
    const changed = throttle(announce, 500);
    changed();
    expect(announce).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 30_000; i++) changed();
    expect(announce).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(500);
    expect(announce).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5_000);
    expect(announce).toHaveBeenCalledTimes(2);
  });

  it('while changes keep coming, tells them at most once an interval, and always after the last', () => {
    const told: number[] = [];
    const changed = throttle(() => told.push(Date.now()), 500);
    const start = Date.now();
    // A change every 10 ms for 3 s.
    let last = start;
    for (let t = 0; t < 3_000; t += 10) {
      last = Date.now();
      changed();
      vi.advanceTimersByTime(10);
    }
    vi.advanceTimersByTime(5_000);
    expect(told.length).toBeGreaterThan(2);
    for (let i = 1; i < told.length; i++)
      expect((told[i] as number) - (told[i - 1] as number)).toBeGreaterThanOrEqual(500);
    expect(told.at(-1)).toBeGreaterThanOrEqual(last);
    expect(told.at(-1)).toBeLessThanOrEqual(last + 500);
  });

  it('a lone change after a quiet spell is told at once', () => {
    const announce = vi.fn();
    const changed = throttle(announce, 500);
    changed();
    vi.advanceTimersByTime(2_000);
    changed();
    expect(announce).toHaveBeenCalledTimes(2);
  });

  it('stop() drops a change still owed', () => {
    const announce = vi.fn();
    const changed = throttle(announce, 500);
    changed();
    changed();
    changed.stop();
    vi.advanceTimersByTime(5_000);
    expect(announce).toHaveBeenCalledTimes(1);
  });
});
