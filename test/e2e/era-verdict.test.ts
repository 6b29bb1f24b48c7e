/**
 * The protocol verdict is right, not lucky (issue 24, item 6), through the built CLI:
 * a `server/discover` probe that times out on a busy machine is no verdict, a server's
 * own answer is, and a remembered legacy verdict is re-checked in the background.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { waitForExit } from '../helpers/processes.js';

let dir: { path: string; remove: () => Promise<void> };
let home = 0;
beforeAll(async () => {
  dir = await tempDir('mcpx-era-verdict-');
});
afterAll(() => dir.remove());

interface EraEntry {
  kind: 'modern' | 'legacy';
  at: number;
}

async function workspace(servers: Record<string, Record<string, string>>) {
  home += 1;
  const config = join(dir.path, `mcp-${home}.json`);
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, env]) => [
      name,
      { command: process.execPath, args: [testServerPath], env },
    ]),
  );
  await writeFile(config, JSON.stringify({ mcpServers }));
  const paths = { cwd: dir.path, home: join(dir.path, `home-${home}`) };
  const cacheFile = join(paths.home, '.mcpx', 'era-cache.json');
  return {
    list: (env: Record<string, string> = {}) =>
      runCli(['--config', config, 'list'], { ...paths, env, timeoutMs: 120_000 }),
    /** The remembered verdicts, by server name. */
    cache: async (): Promise<Record<string, EraEntry>> => {
      const text = await readFile(cacheFile, 'utf8').catch(() => '{"entries":{}}');
      const { entries } = JSON.parse(text) as { entries: Record<string, EraEntry> };
      return Object.fromEntries(Object.entries(entries).map(([key, e]) => [key.split('\u0000')[0], e]));
    },
    /** Dates every remembered verdict `ms` earlier, as if reached that long ago. */
    age: async (ms: number) => {
      const parsed = JSON.parse(await readFile(cacheFile, 'utf8')) as { entries: Record<string, EraEntry> };
      for (const entry of Object.values(parsed.entries)) entry.at -= ms;
      await writeFile(cacheFile, JSON.stringify(parsed));
    },
  };
}

/** The PROTOCOL column of `mcpx list`, by server. */
function protocols(stdout: string): Record<string, string> {
  const rows = stdout.trim().split('\n').slice(1);
  return Object.fromEntries(rows.map((row) => row.split(/\s+/)).map((cells) => [cells[0], cells[3]]));
}

/** Child processes that keep every core busy until ended. */
async function cpuLoad<T>(work: () => Promise<T>): Promise<T> {
  const loops: ChildProcess[] = [];
  for (let n = 0; n < Math.max(2, cpus().length); n++)
    loops.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    return await work();
  } finally {
    for (const loop of loops) loop.kill('SIGKILL');
    await Promise.all(loops.map((loop) => (loop.pid ? waitForExit(loop.pid, 5_000) : undefined)));
  }
}

describe('the protocol verdict', () => {
  it('twenty servers at once under CPU load: no legacy verdict remembered for a 2026 server; the next list shows 2026-07-28', {
    timeout: 240_000,
  }, async () => {
    // Nineteen dual-era servers and the built-in demo. Every fourth also takes 5 s to read its
    // stdin, so the 2 s probe times out for them however fast the machine is (and however late,
    // on a loaded one, the probe is sent after the server started: 3 s is the margin).
    const servers: Record<string, Record<string, string>> = {};
    for (let n = 1; n <= 19; n++) {
      const name = `s${String(n).padStart(2, '0')}`;
      servers[name] = n % 4 === 0 ? { MCPX_TEST_FAULT: 'slow-start', MCPX_TEST_SLOW_START_MS: '5000' } : {};
    }
    const w = await workspace(servers);

    const busy = await cpuLoad(() => w.list());
    expect(busy.stderr).toBe('');
    expect(busy.code).toBe(0);
    const seen = protocols(busy.stdout);
    expect(Object.keys(seen)).toHaveLength(20);
    // The busy run itself fell back to 2025 for the servers whose probe timed out…
    expect(seen.s04).toBe('2025-11-25');
    // …but remembered no such verdict: every server is known as what it is.
    const cache = await w.cache();
    expect(Object.entries(cache).filter(([, e]) => e.kind === 'legacy')).toEqual([]);
    expect(Object.keys(cache).sort()).toEqual(['demo', ...Object.keys(servers)].sort());

    const plain = await w.list();
    expect(plain.code).toBe(0);
    expect(protocols(plain.stdout)).toEqual(
      Object.fromEntries(['demo', ...Object.keys(servers)].map((name) => [name, '2026-07-28'])),
    );
  });

  it('a genuinely 2025-only server is remembered as legacy, kept as it was, and re-checked at most hourly', async () => {
    const starts = join(dir.path, 'legacy-starts');
    const w = await workspace({
      silent: { MCPX_TEST_FAULT: 'silent-until-initialize', MCPX_TEST_START_LOG: starts },
      idless: { MCPX_TEST_FAULT: 'idless-error-before-initialize' },
    });
    const started = async () => (await readFile(starts, 'utf8')).split('\n').filter(Boolean).length;
    const first = await w.list();
    expect(first.code).toBe(0);
    expect(protocols(first.stdout)).toMatchObject({ silent: '2025-11-25', idless: '2025-11-25' });
    const remembered = await w.cache();
    expect(remembered.silent?.kind).toBe('legacy');
    expect(remembered.idless?.kind).toBe('legacy');
    expect(await started()).toBe(1);

    const again = await w.list();
    expect(protocols(again.stdout)).toMatchObject({ silent: '2025-11-25', idless: '2025-11-25' });
    const kept = await w.cache();
    expect(kept.silent).toEqual(remembered.silent);
    expect(kept.idless).toEqual(remembered.idless);
    expect(await started()).toBe(2);

    // Two hours later one run asks again beside its own start (a second start of the server);
    // the verdict stays legacy, and the next run within the hour does not ask.
    await w.age(2 * 60 * 60 * 1000);
    const rechecked = await w.list();
    expect(rechecked.stderr).toBe('');
    expect(protocols(rechecked.stdout)).toMatchObject({ silent: '2025-11-25', idless: '2025-11-25' });
    expect(await started()).toBe(4);
    const after = await w.list();
    expect(protocols(after.stdout)).toMatchObject({ silent: '2025-11-25', idless: '2025-11-25' });
    expect(await started()).toBe(5);
    const confirmed = await w.cache();
    expect(confirmed.silent?.kind).toBe('legacy');
    expect(confirmed.idless?.kind).toBe('legacy');
  });

  it('a stale legacy verdict for a server now speaking 2026-07-28 is corrected by the background recheck', async () => {
    // The entry as written stays the same (so does its fingerprint); what runs is upgraded.
    const w = await workspace({ svc: { MCPX_TEST_FAULT: `\${SVC_FAULT}` } });
    const legacyBuild = { SVC_FAULT: 'silent-until-initialize' };
    const modernBuild = { SVC_FAULT: '' };
    expect((await w.list(legacyBuild)).code).toBe(0);
    expect((await w.cache()).svc?.kind).toBe('legacy');

    // Upgraded, but the verdict is fresh: used as it is, not asked again on every start.
    const fresh = await w.list(modernBuild);
    expect(protocols(fresh.stdout).svc).toBe('2025-11-25');
    expect((await w.cache()).svc?.kind).toBe('legacy');

    // Two hours later: this run still uses the verdict (no delay), and asks again beside it…
    await w.age(2 * 60 * 60 * 1000);
    const rechecking = await w.list(modernBuild);
    expect(rechecking.stderr).toBe('');
    expect(rechecking.code).toBe(0);
    expect(protocols(rechecking.stdout).svc).toBe('2025-11-25');
    expect((await w.cache()).svc?.kind).toBe('modern');
    // …so the next run speaks 2026-07-28.
    const after = await w.list(modernBuild);
    expect(protocols(after.stdout).svc).toBe('2026-07-28');
  });
});
