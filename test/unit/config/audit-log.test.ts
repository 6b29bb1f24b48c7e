import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { loadError, loadText, tempDir, writeFiles } from './helpers.js';

describe('audit_log in the config', () => {
  it('names the audit log file, relative to the file, or switches it off', async () => {
    const config = await loadText('{"audit_log": "logs/calls.jsonl", "mcpServers": {}}');
    expect(config.auditLog).toBe(join(config.dir, 'logs', 'calls.jsonl'));
    expect((await loadText('{"audit_log": false, "mcpServers": {}}')).auditLog).toBe(false);
    expect((await loadText('{"mcpServers": {}}')).auditLog).toBeUndefined();
  });

  it('must be a path or false', async () => {
    const { error } = await loadError('{"audit_log": true}');
    expect(error.message).toContain("'audit_log' is where the audit log of tool calls goes");
  });

  it("counts only in the person's own file: a repository's is ignored, with a warning", async () => {
    const root = await tempDir();
    const home = join(root, 'home');
    await writeFiles(root, {
      'home/mcp.json': '{"audit_log": "mine.jsonl", "mcpServers": {}}',
      'repo/.mcp.json': '{"audit_log": false, "mcpServers": {}}',
    });
    const config = await loadConfig({ cwd: join(root, 'repo'), env: {}, home, includeBuiltin: false });
    expect(config.auditLog).toBe(join(home, 'mine.jsonl'));
    expect(config.warnings.map((w) => w.message)).toEqual([
      expect.stringContaining("'audit_log' is ignored here: only your own config"),
    ]);
  });
});
