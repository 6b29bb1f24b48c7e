import { execFile } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AUDIT_FLUSH_MS,
  type AuditRecord,
  createAuditTrail,
  MASKED,
  openAuditFile,
} from '../../../src/audit/index.js';
import { repoRoot, tempDir } from '../../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir('mcpx-audit-file-');
});
afterEach(() => dir.remove());

const record = (tool: string, args: Record<string, unknown> = {}): AuditRecord => ({
  time: '2026-11-26T00:00:00.000Z',
  client: 'library',
  server: 's',
  tool,
  decision: { result: 'allowed', by: 'level' },
  durationMs: 1,
  outcome: 'ok',
  argumentKeys: Object.keys(args),
  arguments: args,
});

const lines = async (file: string) =>
  (await readFile(file, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { tool: string });

describe('the audit file', () => {
  it('rotates by size, keeping N files, and every file is the owner’s alone', async () => {
    const file = join(dir.path, 'logs', 'audit.jsonl');
    const sink = openAuditFile({ path: file, maxBytes: 600, keep: 2, onError: () => {} });
    // One line is ≈ 200 bytes: three fit in a file, the fourth starts the next one.
    for (let i = 0; i < 10; i++) {
      sink.write(record(`tool-${i}`));
      // Written one by one, as calls end apart: a batch is never split across files.
      await sink.close();
    }
    const names = (await readdir(join(dir.path, 'logs'))).sort();
    expect(names).toEqual(['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2']);
    for (const name of names) {
      const size = (await stat(join(dir.path, 'logs', name))).size;
      expect(size).toBeLessThanOrEqual(600);
      if (process.platform !== 'win32')
        expect((await stat(join(dir.path, 'logs', name))).mode & 0o777).toBe(0o600);
    }
    // Newest in the file itself, older ones in .1 and .2; the oldest beyond those is gone.
    const current = await lines(file);
    const first = await lines(`${file}.1`);
    const second = await lines(`${file}.2`);
    expect([...second, ...first, ...current].map((l) => l.tool)).toEqual(
      Array.from({ length: 10 }, (_, i) => `tool-${i}`).slice(
        -(second.length + first.length + current.length),
      ),
    );
    expect(current.at(-1)?.tool).toBe('tool-9');
    if (process.platform !== 'win32') expect((await stat(join(dir.path, 'logs'))).mode & 0o777).toBe(0o700);
  });

  it('tightens an existing file to 0600', async () => {
    if (process.platform === 'win32') return;
    const file = join(dir.path, 'audit.jsonl');
    await writeFile(file, '', { mode: 0o644 });
    await chmod(file, 0o644);
    const sink = openAuditFile({ path: file, onError: () => {} });
    sink.write(record('t'));
    await sink.close();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('writes argument names only, unless asked for their (masked) values', async () => {
    const keysOnly = join(dir.path, 'keys.jsonl');
    const withValues = join(dir.path, 'values.jsonl');
    const args = { path: '/tmp/x', token: MASKED };
    const a = openAuditFile({ path: keysOnly, onError: () => {} });
    const b = openAuditFile({ path: withValues, values: true, onError: () => {} });
    a.write(record('t', args));
    b.write(record('t', args));
    await Promise.all([a.close(), b.close()]);
    expect(await readFile(keysOnly, 'utf8')).not.toContain('/tmp/x');
    expect((await lines(keysOnly))[0]).toMatchObject({ argumentKeys: ['path', 'token'] });
    expect((await lines(withValues))[0]).toMatchObject({ arguments: args });
  });

  it('a log that cannot be written is said once, and recording goes on without it', async () => {
    const blocked = join(dir.path, 'blocked');
    await writeFile(blocked, 'a file where the folder would be');
    const errors: string[] = [];
    const sink = openAuditFile({ path: join(blocked, 'audit.jsonl'), onError: (m) => errors.push(m) });
    const trail = createAuditTrail([sink]);
    for (let i = 0; i < 3; i++) {
      const call = trail.begin({ who: { client: 'library' }, server: 's', tool: 't', args: {} });
      call.returned({ content: [] });
      await sink.close();
    }
    await trail.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('cannot be written');
  });

  it('a link planted where the log goes is not followed', async () => {
    if (process.platform === 'win32') return;
    const { symlink } = await import('node:fs/promises');
    const target = join(dir.path, 'elsewhere');
    await writeFile(target, 'untouched');
    await mkdir(join(dir.path, 'logs'));
    await symlink(target, join(dir.path, 'logs', 'audit.jsonl'));
    const errors: string[] = [];
    const sink = openAuditFile({
      path: join(dir.path, 'logs', 'audit.jsonl'),
      onError: (m) => errors.push(m),
    });
    sink.write(record('t'));
    await sink.close();
    expect(await readFile(target, 'utf8')).toBe('untouched');
    expect(errors).toHaveLength(1);
  });

  it('writes the calls that end together in one go, after a moment, and loses none on close', async () => {
    const file = join(dir.path, 'audit.jsonl');
    const sink = openAuditFile({ path: file, onError: () => {} });
    for (let i = 0; i < 50; i++) sink.write(record(`tool-${i}`));
    // Nothing yet: the lines wait for the flush (a write per call is what this spares).
    await sleep(AUDIT_FLUSH_MS / 4);
    expect(await lines(file)).toEqual([]);
    await expect.poll(async () => (await lines(file)).length, { timeout: 5_000 }).toBe(50);
    // Queued again, then closed before the flush would come: close writes them.
    for (let i = 50; i < 60; i++) sink.write(record(`tool-${i}`));
    await sink.close();
    expect((await lines(file)).map((l) => l.tool)).toEqual(Array.from({ length: 60 }, (_, i) => `tool-${i}`));
  });

  it('a process that exits with lines still queued writes them first', async () => {
    // The built module in a process of its own: it queues two calls and exits at once.
    const file = join(dir.path, 'audit.jsonl');
    const program = `
      const { openAuditFile } = await import(${JSON.stringify(join(repoRoot, 'dist/audit/index.js'))});
      const sink = openAuditFile({ path: ${JSON.stringify(file)}, onError: (m) => console.error(m) });
      for (const tool of ['first', 'second'])
        sink.write({ time: '', client: 'library', tool, durationMs: 1, outcome: 'ok', argumentKeys: [], arguments: {} });
      process.exit(0);
    `;
    const { stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', program]);
    expect(stderr).toBe('');
    expect((await lines(file)).map((l) => l.tool)).toEqual(['first', 'second']);
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
