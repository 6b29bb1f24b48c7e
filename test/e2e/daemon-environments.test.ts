import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliRun, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { daemonPids, isAlive, waitForExit } from '../helpers/processes.js';

let root: { path: string; remove: () => Promise<void> };
let home: string;
let work: string;
let startLog: string;

// Values no status line, table or socket reply may ever show.
const ALPHA = 'alpha-5ecret-Qx81';
const BETA = 'beta-5ecret-Zk42';

beforeEach(async () => {
  root = await tempDir('mcpx-daemon-env-');
  home = join(root.path, 'home');
  work = join(root.path, 'work');
  startLog = join(root.path, 'pass.starts');
  await mkdir(join(home, '.mcpx'), { recursive: true });
  await mkdir(work);
  await writeFile(
    join(home, '.mcpx', 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        pass: {
          command: process.execPath,
          args: [testServerPath],
          keep_alive: true,
          env_passthrough: ['MCPX_TEST_SECRET'],
          env: { MCPX_TEST_START_LOG: startLog },
        },
      },
    }),
  );
});

afterEach(async () => {
  await runCli(['daemon', 'stop'], { cwd: work, home });
  for (const pid of ourDaemons()) process.kill(pid, 'SIGKILL');
  await root.remove();
});

function mcpx(args: readonly string[], secret?: string): Promise<CliRun> {
  return runCli(args, {
    cwd: work,
    home,
    timeoutMs: 60_000,
    env: secret === undefined ? {} : { MCPX_TEST_SECRET: secret },
  });
}

/** `mcpx call pass.env` as a caller whose MCPX_TEST_SECRET is `secret`: the value the server saw. */
function secretSeen(secret: string, delayMs = 0): Promise<CliRun & { endedAt: number }> {
  return mcpx(['call', 'pass.env', 'name=MCPX_TEST_SECRET', `delay_ms=${delayMs}`], secret).then((run) => ({
    ...run,
    endedAt: Date.now(),
  }));
}

/** Server processes started for `pass`, in order (the test server logs its pid). */
async function starts(): Promise<number[]> {
  const text = await readFile(startLog, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

/** mcpx daemons of this test's home. */
const ourDaemons = () => daemonPids(join(home, '.mcpx'));

describe('the daemon keeps callers with different environments apart', () => {
  it("runs one instance per environment: a slow call survives another caller's arrival, each sees its own value, equal values share", {
    timeout: 120_000,
  }, async () => {
    // The first caller starts the daemon (its environment becomes the daemon's) and a slow call.
    const slow = secretSeen(ALPHA, 12_000);
    const until = Date.now() + 30_000;
    while ((await starts()).length === 0 && Date.now() < until) await delay(50);
    expect(await starts()).toHaveLength(1);

    // Meanwhile a caller with another value, and one with the same value as the first.
    const [beta, alpha] = await Promise.all([secretSeen(BETA), secretSeen(ALPHA)]);
    expect({ code: beta.code, stdout: beta.stdout, stderr: beta.stderr }).toEqual({
      code: 0,
      stdout: `${BETA}\n`,
      stderr: '',
    });
    expect({ code: alpha.code, stdout: alpha.stdout }).toEqual({ code: 0, stdout: `${ALPHA}\n` });

    // The slow call was in flight all along and finished with its own value.
    const first = await slow;
    expect({ code: first.code, stdout: first.stdout, stderr: first.stderr }).toEqual({
      code: 0,
      stdout: `${ALPHA}\n`,
      stderr: '',
    });
    expect(first.endedAt).toBeGreaterThan(Math.max(beta.endedAt, alpha.endedAt));

    // Two processes: one per environment, the same-value caller shared the first one.
    const pids = await starts();
    expect(pids).toHaveLength(2);
    expect(pids.every((pid) => isAlive(pid))).toBe(true);
    // Warm and apart afterwards too: each caller is sent back to its own instance.
    expect((await secretSeen(BETA)).stdout).toBe(`${BETA}\n`);
    expect((await secretSeen(ALPHA)).stdout).toBe(`${ALPHA}\n`);
    expect(await starts()).toEqual(pids);

    // Status shows both instances, told apart by a tag, never by the values.
    const json = await mcpx(['daemon', 'status', '--json']);
    expect(json.code).toBe(0);
    const status = JSON.parse(json.stdout) as {
      servers: { name: string; envTag: string; state: string; calls: number }[];
    };
    expect(status.servers).toHaveLength(2);
    expect(status.servers.map((s) => s.name)).toEqual(['pass', 'pass']);
    const tags = status.servers.map((s) => s.envTag);
    expect(new Set(tags).size).toBe(2);
    for (const tag of tags) expect(tag).toMatch(/^[0-9a-f]{8}$/);
    // Alpha's instance took three calls (the slow one, the shared one, the last), beta's two.
    expect(status.servers.map((s) => s.calls).sort()).toEqual([2, 3]);
    const table = await mcpx(['daemon', 'status']);
    expect(table.stdout).toMatch(/SERVER\s+ENV\s+STATE\s+UPTIME\s+CALLS\s+SESSIONS\s+LAST ERROR/);
    for (const tag of tags) expect(table.stdout).toMatch(new RegExp(`\\bpass\\s+${tag}\\s+ready\\b`));
    for (const output of [json.stdout, json.stderr, table.stdout, table.stderr]) {
      expect(output).not.toContain(ALPHA);
      expect(output).not.toContain(BETA);
    }

    // Stopped means every instance gone.
    expect((await mcpx(['daemon', 'stop'])).code).toBe(0);
    for (const pid of pids) expect(await waitForExit(pid, 5_000)).toBe(true);
  });

  it('holds at most four environments of one server: a fifth makes room by stopping the least recently used idle one', {
    timeout: 120_000,
  }, async () => {
    const values = ['one', 'two', 'three', 'four', 'five'];
    for (const value of values) expect((await secretSeen(value)).stdout).toBe(`${value}\n`);
    const pids = await starts();
    expect(pids).toHaveLength(5);
    // The first one went to make room; the other four are still warm.
    expect(await waitForExit(pids[0] as number, 5_000)).toBe(true);
    expect(pids.slice(1).every((pid) => isAlive(pid))).toBe(true);
    expect((await secretSeen('five')).stdout).toBe('five\n');
    expect((await secretSeen('two')).stdout).toBe('two\n');
    expect(await starts()).toHaveLength(5);
  });

  it('with four environments each in a call, a fifth is refused by the daemon, says why, and runs directly with its own value', {
    timeout: 120_000,
  }, async () => {
    expect((await mcpx(['daemon', 'start'])).code).toBe(0);
    const values = ['one', 'two', 'three', 'four', 'five'];
    const runs = await Promise.all(
      values.map((value) =>
        mcpx(['--verbose', 'call', 'pass.env', 'name=MCPX_TEST_SECRET', 'delay_ms=10000'], value),
      ),
    );
    expect(runs.map((r) => [r.code, r.stdout])).toEqual(values.map((value) => [0, `${value}\n`]));
    const refused = runs.filter((r) => r.stderr.includes("already runs 'pass' for 4 other environments"));
    expect(refused).toHaveLength(1);
    expect(refused[0]?.stderr).toContain('starting it directly');
    for (const value of values) expect(refused[0]?.stderr).not.toContain(`=${value}`);
    // Four instances in the daemon, the fifth started by its own command (and gone with it).
    const status = JSON.parse((await mcpx(['daemon', 'status', '--json'])).stdout) as {
      servers: { name: string }[];
    };
    expect(status.servers).toHaveLength(4);
    const pids = await starts();
    expect(pids).toHaveLength(5);
    expect(pids.filter((pid) => isAlive(pid))).toHaveLength(4);
  });
});
