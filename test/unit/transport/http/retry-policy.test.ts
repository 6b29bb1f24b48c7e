import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  parseRetryAfter,
  retryDelay,
  shouldRetryNetworkError,
  shouldRetryStatus,
} from '../../../../src/transport/http/index.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['0', 0],
    ['5', 5_000],
    [' 120 ', 120_000],
    ['Thu, 01 Jan 2026 00:00:30 GMT', 30_000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
  ])('%j is %i ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it.each([null, undefined, '', '-1', '1.5', 'soon', '12abc'])('%j is not a delay', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('doubles per retry with jitter between half and all of the step', () => {
    for (const [retry, ceiling] of [
      [1, 1000],
      [2, 2000],
      [3, 4000],
      [4, 8000],
    ] as const) {
      expect(backoffDelay(retry, { baseMs: 1000, random: () => 0 })).toBe(ceiling / 2);
      expect(backoffDelay(retry, { baseMs: 1000, random: () => 0.999999 })).toBeCloseTo(ceiling, -1);
      const d = backoffDelay(retry, { baseMs: 1000 });
      expect(d).toBeGreaterThanOrEqual(ceiling / 2);
      expect(d).toBeLessThanOrEqual(ceiling);
    }
  });

  it('never exceeds the cap', () => {
    expect(backoffDelay(30, { baseMs: 1000, maxMs: 5000, random: () => 0.999999 })).toBeLessThanOrEqual(5000);
  });

  it('lets Retry-After win, and gives up on one that is too long', () => {
    expect(retryDelay(1, 7_000, { baseMs: 10 })).toBe(7_000);
    expect(retryDelay(1, 10 * 60_000, { baseMs: 10 })).toBeUndefined();
    expect(retryDelay(2, undefined, { baseMs: 10, random: () => 0 })).toBe(10);
  });
});

describe('retry decisions', () => {
  const list = { httpMethod: 'POST', rpcMethods: ['tools/list'] };
  const call = { httpMethod: 'POST', rpcMethods: ['tools/call'] };
  const stream = { httpMethod: 'GET', rpcMethods: [] };

  it.each([429, 500, 502, 503, 504])('retries HTTP %i for a safe request', (status) => {
    expect(shouldRetryStatus(status, list)).toBe(true);
    expect(shouldRetryStatus(status, stream)).toBe(true);
  });

  it.each([400, 401, 403, 404, 405, 501, 505])('does not retry HTTP %i', (status) => {
    expect(shouldRetryStatus(status, list)).toBe(false);
  });

  it('retries a tools/call only on statuses that prove it was not processed', () => {
    expect(shouldRetryStatus(429, call)).toBe(true);
    expect(shouldRetryStatus(503, call)).toBe(true);
    expect(shouldRetryStatus(500, call)).toBe(false);
    expect(shouldRetryStatus(502, call)).toBe(false);
    expect(shouldRetryStatus(504, call)).toBe(false);
  });

  it('retries a tools/call after a network error only when it never left', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    expect(shouldRetryNetworkError(reset, call, true)).toBe(false);
    expect(shouldRetryNetworkError(reset, call)).toBe(false);
    expect(shouldRetryNetworkError(reset, call, false)).toBe(true);
    expect(shouldRetryNetworkError(refused, call)).toBe(true);
    expect(shouldRetryNetworkError(reset, list, true)).toBe(true);
  });
});
