/** What a person at a terminal sees while a task runs: `run()` in-process with stderr as a TTY. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/io/io.js';
import { run } from '../../../src/cli/run.js';
import { tempDir } from '../../helpers/cli.js';
import { everythingPath } from '../../helpers/servers.js';

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('mcpx-task-tty-');
});
afterAll(() => dir.remove());

it('redraws the task status in place on a terminal, then clears it and prints the result', async () => {
  const config = join(dir.path, 'everything.json');
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everythingPath] } } }),
  );
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string | Uint8Array) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { PATH: process.env.PATH, HOME: dir.path, MCPX_HOME: join(dir.path, '.mcpx') },
    cwd: dir.path,
    homedir: dir.path,
    stdoutIsTTY: false,
    stderrIsTTY: true,
    interactive: false,
    signal: new AbortController().signal,
  };
  const code = await run(
    ['--config', config, 'call', 'everything.simulate-research-query', 'topic=owls'],
    io,
  );
  expect(code, stderr).toBe(0);
  expect(stdout).toContain('# Research Report: owls');
  // Each status replaces the line before it (carriage return, erase line) …
  expect(stderr).toMatch(/\r\u001b\[2Ktask \S+ working: Gathering sources\.\.\./);
  expect(stderr).toMatch(/\r\u001b\[2Ktask \S+ working: Generating report\.\.\./);
  // … and the line is erased before the result is printed: nothing is left on the terminal.
  expect(stderr.endsWith('\r\u001b[2K')).toBe(true);
  expect(stderr).not.toContain('\n');
}, 60_000);
