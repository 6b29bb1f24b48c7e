/**
 * A question the daemon asked at the calling terminal is not asked again when
 * the daemon then hands the command back (its server is not one it holds):
 * the caller's full CLI takes the answers the person already gave.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { type PtyRun, runInPty } from '../helpers/pty.js';

let dir: { path: string; remove: () => Promise<void> };
const stops: (() => Promise<unknown> | undefined)[] = [];

beforeAll(async () => {
  dir = await tempDir('mcpx-daemon-asked-once-');
});
afterAll(() => dir.remove());
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/**
 * A repository whose `.mcp.json` (not trusted yet) is `project`, and the user's own config
 * `global`, with a daemon running for them.
 */
async function repository(name: string, { project, global }: { project?: object; global?: object }) {
  const repo = join(dir.path, name, 'repo');
  const home = join(dir.path, name, 'home');
  await mkdir(repo, { recursive: true });
  await mkdir(join(home, '.mcpx'), { recursive: true });
  if (project) await writeFile(join(repo, '.mcp.json'), JSON.stringify(project));
  if (global) await writeFile(join(home, '.mcpx', 'mcp.json'), JSON.stringify(global));
  expect((await runCli(['daemon', 'start'], { cwd: repo, home })).code).toBe(0);
  stops.push(() => runCli(['daemon', 'stop'], { cwd: repo, home }));
  return (args: string[]) => {
    const term = runInPty(args, { cwd: repo, home });
    stops.push(() => {
      term.kill();
      return undefined;
    });
    return term;
  };
}

const held = { command: process.execPath, args: [testServerPath], keep_alive: true };
const other = { command: process.execPath, args: [testServerPath] };
const TRUST = 'Start it? Only say yes if you trust this repository. [y/N]';

/** Whether `question` shows again before the command ends. */
async function askedAgain(term: PtyRun, question: string): Promise<boolean> {
  return Promise.race([
    term.exited.then(() => false),
    term.waitFor(question, 30_000).then(
      () => true,
      () => false,
    ),
  ]);
}

describe('a question asked before the daemon hands a command back', () => {
  it('a trust question: answered once, the caller reuses the answers', { timeout: 90_000 }, async () => {
    const inPty = await repository('trust', { project: { mcpServers: { held, other } } });
    const term = inPty(['call', 'other.echo', 'message=once']);
    // Asked in the daemon, at this terminal: `held` declined, `other` approved.
    await term.waitFor("defines server 'held'");
    await term.waitFor(TRUST);
    await term.type('n\r');
    await term.waitFor("defines server 'other'");
    await term.waitFor(TRUST);
    await term.type('y\r');
    // `other` is not the daemon's: the caller runs the command itself, asking nothing again.
    expect(await askedAgain(term, TRUST)).toBe(false);
    expect(await term.exited).toBe(0);
    const screen = term.text();
    expect(screen).toContain('once');
    expect(screen.split(TRUST)).toHaveLength(3);
    expect(screen).toContain("skipped server 'held'");
  });

  it('an input variable (masked): typed once, and the server gets it', { timeout: 90_000 }, async () => {
    // `${input:…}` is asked only for the user's own files (a repository's may not ask anything).
    const inPty = await repository('input', {
      global: {
        inputs: [{ type: 'promptString', id: 'api-key', description: 'API key', password: true }],
        mcpServers: { held, other: { ...other, env: { API_KEY: `\${input:api-key}` } } },
      },
    });
    const term = inPty(['call', 'other.env', 'name=API_KEY']);
    const INPUT = 'API key (api-key) for';
    await term.waitFor(INPUT);
    await term.type('sk-typed-once\r');
    // The masked prompt redraws itself at each key, so "asked again" shows as a command still
    // waiting for an answer rather than as the question on the screen again.
    const ended = await Promise.race([
      term.exited,
      new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 30_000)),
    ]);
    expect(ended).toBe(0);
    expect(term.text()).toContain('sk-typed-once');
  });
});
