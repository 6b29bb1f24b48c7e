import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Deadlines } from '../../../src/client/deadlines.js';
import { repoRoot } from '../../helpers/cli.js';

describe('many timeouts on one timer', () => {
  it('ends each request once its own time has passed, never before, and none that ended first', async () => {
    const deadlines = new Deadlines<string>();
    const ended: { key: string; afterMs: number }[] = [];
    const started = performance.now();
    const expire = (key: string) => ({
      expire: () => ended.push({ key, afterMs: performance.now() - started }),
    });
    deadlines.add('late', 120, expire('late'));
    // Added after a later one, due before it: the timer is armed again for it.
    deadlines.add('soon', 30, expire('soon'));
    deadlines.add('answered', 30, expire('answered'));
    deadlines.delete('answered');
    await expect.poll(() => ended.length, { timeout: 2_000, interval: 5 }).toBe(2);
    expect(ended.map((e) => e.key)).toEqual(['soon', 'late']);
    expect(ended[0]?.afterMs).toBeGreaterThanOrEqual(30);
    expect(ended[1]?.afterMs).toBeGreaterThanOrEqual(120);
    expect(deadlines.size).toBe(0);
  });

  it('a request whose earlier neighbour ended is still ended in time by the timer armed for it', async () => {
    const deadlines = new Deadlines<number>();
    const ended: number[] = [];
    // The timer is armed for the first; it ends early, and the second is due later.
    deadlines.add(1, 20, { expire: () => ended.push(1) });
    deadlines.add(2, 60, { expire: () => ended.push(2) });
    deadlines.delete(1);
    await sleep(30);
    expect(ended).toEqual([]);
    await expect.poll(() => ended, { timeout: 2_000, interval: 5 }).toEqual([2]);
  });

  it('holds the process open while a request waits, and not once none does', async () => {
    // The built module in a process of its own: a minute's timeout, answered at once.
    const program = `
      const { Deadlines } = await import(${JSON.stringify(join(repoRoot, 'dist/client/deadlines.js'))});
      const deadlines = new Deadlines();
      deadlines.add('a', 60_000, { expire: () => console.log('expired') });
      deadlines.delete('a');
    `;
    const started = performance.now();
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', program]);
    expect(stdout).toBe('');
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
