import { describe, expect, it } from 'vitest';
import { SessionActivity } from '../../../src/gateway/http/session-idle.js';

describe('SessionActivity', () => {
  it('counts a session idle only with no request open and none for longer than the idle time', () => {
    let now = 0;
    const activity = new SessionActivity(100, () => now);
    const first = activity.begin('a');
    now = 500;
    // A request (or a stream) still open: never idle, however long.
    expect(activity.idle()).toEqual([]);
    first();
    now = 550;
    expect(activity.idle()).toEqual([]);
    now = 601;
    expect(activity.idle()).toEqual(['a']);
    // Used again: the clock starts over from its end.
    const again = activity.begin('a');
    again();
    expect(activity.idle()).toEqual([]);
  });

  it('ends each request once, and forgets a session that ended', () => {
    let now = 0;
    const activity = new SessionActivity(10, () => now);
    const one = activity.begin('a');
    const two = activity.begin('a');
    one();
    one();
    now = 100;
    expect(activity.idle()).toEqual([]);
    two();
    now = 200;
    expect(activity.idle()).toEqual(['a']);
    activity.forget('a');
    expect(activity.idle()).toEqual([]);
  });
});
