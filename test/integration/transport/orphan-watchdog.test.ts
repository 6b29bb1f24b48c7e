import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createOrphanWatchdog, watchdogGraceMs } from '../../../src/transport/stdio/orphan-watchdog.js';
import { isAlive, procAvailable, waitForExit } from '../../helpers/processes.js';

const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/** A process group whose leader ignores SIGTERM and never reads its input: only SIGKILL ends it. */
function stubbornGroup(): number {
  const child = spawn(
    process.execPath,
    ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  started.push(child);
  return child.pid as number;
}

/** A watchdog whose own process the test can reach. */
function watched(graceMs = 300) {
  const shells: ChildProcess[] = [];
  const watchdog = createOrphanWatchdog({
    graceMs,
    spawn: ((...args: Parameters<typeof spawn>) => {
      const shell = spawn(...args);
      shells.push(shell);
      return shell;
    }) as typeof spawn,
  });
  return { watchdog, shells };
}

describe.runIf(procAvailable)('orphan watchdog', () => {
  it('ends the guarded groups, SIGKILL after the grace, when its pipe ends (mcpx died)', async () => {
    const { watchdog, shells } = watched();
    const group = stubbornGroup();
    watchdog.guard(group);
    expect(shells).toHaveLength(1);
    const shell = shells[0] as ChildProcess;
    await new Promise((resolve) => setTimeout(resolve, 200));
    shell.stdin?.destroy(); // what the kernel does to the pipe when mcpx dies
    expect(await waitForExit(group, 3000)).toBe(true);
    expect(await waitForExit(shell.pid as number, 3000)).toBe(true);
  });

  it("ends them when it is sent SIGTERM (a signal to mcpx's process group)", async () => {
    const { watchdog, shells } = watched();
    const group = stubbornGroup();
    watchdog.guard(group);
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(shells[0]?.pid as number, 'SIGTERM');
    expect(await waitForExit(group, 3000)).toBe(true);
  });

  it('exits with nothing guarded, and leaves released groups alone; the next guard starts another', async () => {
    const { watchdog, shells } = watched();
    const group = stubbornGroup();
    watchdog.guard(group);
    watchdog.release(group);
    expect(await waitForExit(shells[0]?.pid as number, 3000)).toBe(true);
    expect(isAlive(group)).toBe(true);
    watchdog.guard(group);
    expect(shells).toHaveLength(2);
    watchdog.release(group);
    expect(await waitForExit(shells[1]?.pid as number, 3000)).toBe(true);
  });

  it('gives each level deeper inside mcpx servers half the grace, so the outer one never cuts it short', () => {
    expect(watchdogGraceMs(0)).toBe(1600);
    expect(watchdogGraceMs(1)).toBe(800);
    expect(watchdogGraceMs(1)).toBeLessThan(2000); // killTree's SIGTERM → SIGKILL wait
    expect(watchdogGraceMs(10)).toBe(100);
  });
});
