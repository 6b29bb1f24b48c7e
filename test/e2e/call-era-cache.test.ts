/**
 * The first call on a server remembers its era in the mcpx home; later calls only confirm
 * it and write nothing there before they list and call (the file is left exactly as it was).
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const server = fileURLToPath(new URL('../fixtures/output-schema-server.mjs', import.meta.url));
let dir: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  dir = await tempDir('mcpx-era-file-');
});
afterAll(() => dir.remove());

it('an every-day call leaves the remembered era file untouched', async () => {
  const config = join(dir.path, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { plain: { command: process.execPath, args: [server, '--plain'] } } }),
  );
  const home = join(dir.path, 'home');
  const eraFile = join(home, '.mcpx', 'era-cache.json');
  const call = () =>
    runCli(['--config', config, 'call', 'plain.echo', 'message=again'], { cwd: dir.path, home });

  const first = await call();
  expect(first.stderr).toBe('');
  expect(first.stdout).toBe('again\n');
  const remembered = await readFile(eraFile, 'utf8');
  expect(Object.values(JSON.parse(remembered).entries)).toEqual([
    expect.objectContaining({ kind: 'legacy' }),
  ]);
  const before = await stat(eraFile);

  const second = await call();
  expect(second.stderr).toBe('');
  expect(second.stdout).toBe('again\n');
  expect(await readFile(eraFile, 'utf8')).toBe(remembered);
  // Rewritten atomically, the file would be a new inode (temporary file renamed over it).
  const after = await stat(eraFile);
  expect(after.ino).toBe(before.ino);
  expect(after.mtimeMs).toBe(before.mtimeMs);
});
