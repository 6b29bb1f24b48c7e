import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { type KillableChild, killTree } from '../../../src/transport/stdio/index.js';

/** A fake child process: exits when `behaviour` says so for stdin close or a signal. */
class FakeChild extends EventEmitter implements KillableChild {
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly events: string[] = [];
  readonly stdin = {
    end: () => {
      this.events.push('stdin.end');
      if (this.behaviour.exitsOnStdinClose) this.exit(0, null);
    },
  };

  constructor(
    readonly pid: number | undefined,
    readonly behaviour: { exitsOnStdinClose?: boolean; exitsOn?: NodeJS.Signals[] } = {},
  ) {
    super();
  }

  exit(code: number | null, signal: NodeJS.Signals | null) {
    if (this.exitCode !== null || this.signalCode !== null) return;
    this.exitCode = code;
    this.signalCode = signal;
    setImmediate(() => this.emit('exit', code, signal));
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    this.events.push(`kill ${signal}`);
    this.exit(null, signal);
    return true;
  }

  /** What a group signal does to this child and to `members` other processes of the group. */
  groupSignal(signal: NodeJS.Signals | 0) {
    if (signal === 0) return;
    this.events.push(`group ${signal}`);
    if (signal === 'SIGKILL' || this.behaviour.exitsOn?.includes(signal)) this.exit(null, signal);
  }
}

function harness(child: FakeChild, options: { groupMembersIgnoringTerm?: number } = {}) {
  let others = options.groupMembersIgnoringTerm ?? 0;
  const signalGroup = (pgid: number, signal: NodeJS.Signals | 0) => {
    expect(pgid).toBe(child.pid);
    const leaderAlive = child.exitCode === null && child.signalCode === null;
    if (!leaderAlive && others === 0) throw Object.assign(new Error('ESRCH'), { code: 'ESRCH' });
    child.groupSignal(signal);
    if (signal === 'SIGKILL') others = 0;
  };
  const groupAlive = () => others > 0 || (child.exitCode === null && child.signalCode === null);
  return { signalGroup, groupAlive };
}

const fast = { closeGraceMs: 30, killGraceMs: 30 };

describe('killTree (POSIX, mocked)', () => {
  it('stops after closing stdin when the server exits on its own and leaves nothing behind', async () => {
    const child = new FakeChild(100, { exitsOnStdinClose: true });
    await killTree(child, { platform: 'linux', ...fast, ...harness(child) });
    expect(child.events).toEqual(['stdin.end']);
  });

  it('sends SIGTERM to the group when stdin close is not enough', async () => {
    const child = new FakeChild(101, { exitsOn: ['SIGTERM'] });
    await killTree(child, { platform: 'linux', ...fast, ...harness(child) });
    expect(child.events).toEqual(['stdin.end', 'group SIGTERM']);
    expect(child.signalCode).toBe('SIGTERM');
  });

  it('ends the stdin grace when closeGraceEnds settles: a server waiting on an answer gets SIGTERM at once', async () => {
    const child = new FakeChild(103, { exitsOn: ['SIGTERM'] });
    const started = performance.now();
    await killTree(child, {
      platform: 'linux',
      closeGraceMs: 60_000,
      killGraceMs: 30,
      closeGraceEnds: Promise.resolve(),
      ...harness(child),
    });
    // Far below the 60 s grace: the wait was cut, not timed out.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(child.events).toEqual(['stdin.end', 'group SIGTERM']);
  });

  it('escalates to SIGKILL for a server that ignores SIGTERM', async () => {
    const child = new FakeChild(102);
    await killTree(child, { platform: 'linux', ...fast, ...harness(child) });
    expect(child.events).toEqual(['stdin.end', 'group SIGTERM', 'group SIGKILL']);
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('still signals the group after the server exited, for grandchildren left in it', async () => {
    const child = new FakeChild(103, { exitsOnStdinClose: true });
    const h = harness(child, { groupMembersIgnoringTerm: 1 });
    await killTree(child, { platform: 'linux', ...fast, ...h });
    expect(child.events).toEqual(['stdin.end', 'group SIGTERM', 'group SIGKILL']);
    expect(h.groupAlive()).toBe(false);
  });

  it('does nothing for a child that never spawned', async () => {
    const child = new FakeChild(undefined);
    await killTree(child, { platform: 'linux', ...fast, ...harness(child) });
    expect(child.events).toEqual([]);
  });
});

describe('killTree (win32, mocked)', () => {
  it('closes stdin, then ends the tree with taskkill /T /F', async () => {
    const child = new FakeChild(200);
    const taskkilled: number[] = [];
    await killTree(child, {
      platform: 'win32',
      ...fast,
      taskkill: async (pid) => {
        taskkilled.push(pid);
        child.exit(1, null);
      },
      signalGroup: () => {
        throw new Error('no process groups on Windows');
      },
    });
    expect(child.events).toEqual(['stdin.end']);
    expect(taskkilled).toEqual([200]);
  });

  it('skips taskkill when the server exits after stdin closes', async () => {
    const child = new FakeChild(201, { exitsOnStdinClose: true });
    let called = false;
    await killTree(child, {
      platform: 'win32',
      ...fast,
      taskkill: async () => {
        called = true;
      },
    });
    expect(called).toBe(false);
  });
});
