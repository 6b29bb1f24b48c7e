/**
 * A question the daemon asked at the calling terminal is not asked again when
 * the daemon then hands the command back (its server is not one it holds):
 * the caller's full CLI takes the answers the person already gave.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';

let dir: { path: string; remove: () => Promise<void> };
const repo = () => join(dir.path, 'repo');
const home = () => join(dir.path, 'home');
const stops: (() => void)[] = [];

beforeAll(async () => {
  dir = await tempDir('mcpx-daemon-asked-once-');
  await mkdir(repo(), { recursive: true });
  await mkdir(join(home(), '.mcpx'), { recursive: true });
  // A repository's file: neither entry is trusted yet, so each is asked about.
  await writeFile(
    join(repo(), '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        held: { command: process.execPath, args: [testServerPath], keep_alive: true },
        other: { command: process.execPath, args: [testServerPath] },
      },
    }),
  );
});
afterAll(() => dir.remove());
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await runCli(['daemon', 'stop'], { cwd: repo(), home: home() });
});

const QUESTION = 'Start it? Only say yes if you trust this repository. [y/N]';

describe('a question asked before the daemon hands a command back', () => {
  it('is asked once: the caller reuses the answers for the same questions', { timeout: 90_000 }, async () => {
    expect((await runCli(['daemon', 'start'], { cwd: repo(), home: home() })).code).toBe(0);
    const term = runInPty(['call', 'other.echo', 'message=once'], { cwd: repo(), home: home() });
    stops.push(() => term.kill());
    // Asked in the daemon, at this terminal: `held` declined, `other` approved.
    await term.waitFor("defines server 'held'");
    await term.waitFor(QUESTION);
    await term.type('n\r');
    await term.waitFor("defines server 'other'");
    await term.waitFor(QUESTION);
    await term.type('y\r');
    // `other` is not the daemon's: the caller runs the command itself, asking nothing again.
    const askedAgain = await Promise.race([
      term.exited.then(() => false),
      term.waitFor(QUESTION, 30_000).then(
        () => true,
        () => false,
      ),
    ]);
    expect(askedAgain).toBe(false);
    expect(await term.exited).toBe(0);
    const screen = term.text();
    expect(screen).toContain('once');
    expect(screen.split(QUESTION)).toHaveLength(3);
    expect(screen).toContain("skipped server 'held'");
  });
});
