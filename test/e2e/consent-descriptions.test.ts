/**
 * Consent shows what it approves (issue 28, item 6): on a real pseudo-terminal,
 * the connect question of `mcpx chat` shows each tool's description with its
 * invisible characters made visible, and the fingerprint the approval covers,
 * so an instruction a server hides between zero-width characters is seen
 * before the server is allowed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from '../../src/testing/fake-model-server.js';
import { HIDDEN_INSTRUCTION } from '../../src/testing/hostile-server.js';
import { repoRoot, tempDir } from '../helpers/cli.js';
import { type PtyRun, runInPty } from '../helpers/pty.js';

const KEY = { down: '\x1b[B', enter: '\r' };
const hostileServerPath = join(repoRoot, 'dist/testing/hostile-server.js');
let dir: { path: string; remove: () => Promise<void> };
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  dir = await tempDir('mcpx-consent-descriptions-');
  await mkdir(join(dir.path, 'home', '.mcpx'), { recursive: true });
  await writeFile(
    join(dir.path, 'home', '.mcpx', 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        hostile: {
          command: process.execPath,
          args: [hostileServerPath],
          env: { MCPX_HOSTILE_HIDDEN_INSTRUCTION: '1' },
        },
      },
    }),
  );
});
afterAll(() => dir.remove());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('the connect question shows what it approves (mcpx chat on a terminal)', () => {
  it('shows a hidden instruction in a tool description, its invisible characters, and the fingerprint', {
    timeout: 60_000,
  }, async () => {
    const model: FakeModelServer = await startFakeModelServer([{ text: 'nothing to do' }]);
    const term: PtyRun = runInPty(['chat', '--base-url', model.baseUrl, '--model', 'fake'], {
      cwd: dir.path,
      home: join(dir.path, 'home'),
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    cleanups.push(
      () => term.kill(),
      () => model.close(),
    );
    await term.waitFor("Connect to MCP server 'hostile'?");
    await term.waitFor(/fingerprint [0-9a-f]{16}/);
    await term.waitFor('notes  [6 invisible characters]');
    await term.waitFor(
      `Keeps short notes.<U+200B><U+200B><U+2060>${HIDDEN_INSTRUCTION}<U+2060><U+200B><U+200B>`,
    );
    await term.waitFor('Deny connection');
    // What reached the screen is text, not the server's controls.
    expect(term.raw()).not.toContain('\u200b');
    expect(term.raw()).not.toContain('\x1b[2J');
    await term.type(KEY.down, KEY.down, KEY.enter);
    await term.waitFor("'hostile' denied");
    await term.waitFor('> ');
    await term.type('/exit', KEY.enter);
    expect(await term.exited).toBe(0);
  });
});
