import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadHistory } from '../../../../src/cli/shell/history.js';
import { createHomeFiles } from '../../../../src/home/index.js';
import { tempDir } from '../../../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> } | undefined;
afterEach(() => dir?.remove());

describe('loadHistory', () => {
  it('keeps the newest lines first, bounded, saved 0600 oldest first, a repeat once', async () => {
    dir = await tempDir('mcpx-history-');
    const home = createHomeFiles(join(dir.path, '.mcpx'));
    const errors: unknown[] = [];
    const history = await loadHistory(home, (e) => errors.push(e), 3);
    for (const line of ['one', 'two', 'two', '  ', 'three', 'four']) await history.add(line);
    expect(history.lines()).toEqual(['four', 'three', 'two']);
    const file = join(dir.path, '.mcpx', 'history');
    expect(await readFile(file, 'utf8')).toBe('two\nthree\nfour\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = await loadHistory(home, (e) => errors.push(e), 3);
    expect(again.lines()).toEqual(['four', 'three', 'two']);
    expect(errors).toEqual([]);
  });

  it('keeps the lines of two consoles open at once', async () => {
    dir = await tempDir('mcpx-history-');
    const home = createHomeFiles(join(dir.path, '.mcpx'));
    const errors: unknown[] = [];
    const one = await loadHistory(home, (e) => errors.push(e));
    const other = await loadHistory(home, (e) => errors.push(e));
    await one.add('list');
    await other.add('tools');
    await Promise.all([one.add('call a'), other.add('call b')]);
    const text = await readFile(join(dir.path, '.mcpx', 'history'), 'utf8');
    expect(text.split('\n').filter(Boolean).sort()).toEqual(['call a', 'call b', 'list', 'tools']);
    expect((await loadHistory(home, (e) => errors.push(e))).lines()).toHaveLength(4);
    expect(errors).toEqual([]);
  });
});
