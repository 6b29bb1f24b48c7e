import { describe, expect, it } from 'vitest';
import { CallCancel, type CancelWatcher } from '../../../src/client/call-cancel.js';

const watcher = () => {
  const told: unknown[] = [];
  const w: CancelWatcher = { cancelled: (reason) => told.push(reason) };
  return { w, told };
};

describe('CallCancel', () => {
  it('tells its watcher once, with the reason, and aborts a signal made before', () => {
    const cancel = new CallCancel();
    const { w, told } = watcher();
    cancel.watch(w);
    const signal = cancel.signal;
    const heard: unknown[] = [];
    signal.addEventListener('abort', () => heard.push(signal.reason));
    cancel.abort('stop');
    cancel.abort('again');
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBe('stop');
    expect(told).toEqual(['stop']);
    expect(heard).toEqual(['stop']);
    expect(signal.aborted).toBe(true);
  });

  it('makes a signal only when asked, aborted already when the call was', () => {
    const cancel = new CallCancel();
    cancel.abort();
    const signal = cancel.signal;
    expect(signal.aborted).toBe(true);
    // No reason: the AbortError an AbortController gives.
    expect((signal.reason as DOMException).name).toBe('AbortError');
    expect(cancel.reason).toBe(signal.reason);
    expect(cancel.signal).toBe(signal);
  });

  it('tells nothing to a watcher that stopped watching', () => {
    const cancel = new CallCancel();
    const first = watcher();
    const second = watcher();
    cancel.watch(first.w);
    cancel.unwatch(second.w); // not the one watching: no effect
    cancel.unwatch(first.w);
    cancel.abort('late');
    expect(first.told).toEqual([]);
    expect(second.told).toEqual([]);
  });

  it('tells every watcher still watching, each once', () => {
    const cancel = new CallCancel();
    const [a, b, c] = [watcher(), watcher(), watcher()];
    cancel.watch(a.w);
    cancel.watch(b.w);
    cancel.watch(c.w);
    cancel.unwatch(b.w);
    cancel.abort('all');
    expect([a.told, b.told, c.told]).toEqual([['all'], [], ['all']]);
  });
});
