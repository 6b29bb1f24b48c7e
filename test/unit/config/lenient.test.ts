import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';
import { loadError, loadText, tempDir, writeFiles } from './helpers.js';

// Claude Code's own state file, as it looks after a few sessions (its keys, not mcpx's).
const claudeJson = JSON.stringify(
  {
    numStartups: 12,
    installMethod: 'npm',
    autoUpdates: true,
    tipsHistory: { 'new-user-warmup': 1 },
    mcpServers: { fs: { type: 'stdio', command: 'npx', args: ['-y', 'fs-server'], env: {} } },
    projects: { '/work/app': { allowedTools: [], mcpServers: {} } },
  },
  null,
  2,
);

describe("other client apps' files are read leniently", () => {
  it('loads ~/.claude.json given with --config despite numStartups and friends, without a word', async () => {
    const config = await loadText(claudeJson);
    expect(config.servers.map((s) => s.name)).toEqual(['fs']);
    expect(config.servers[0]).toMatchObject({ command: 'npx', args: ['-y', 'fs-server'] });
    expect(config.warnings).toEqual([]);
  });

  it('warns, with file and line, about a key of a foreign file that looks like a typo of an mcpx key', async () => {
    const config = await loadText(
      '{\n  "numStartups": 3,\n  "mcpServer": {},\n  "mcpServers": {\n    "fs": {"command": "x", "argz": ["y"], "autoStart": true}\n  }\n}',
    );
    expect(config.servers.map((s) => s.name)).toEqual(['fs']);
    const messages = config.warnings.map((w) => w.message);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain(":3: unknown key 'mcpServer' — did you mean 'mcpServers'?");
    expect(messages[1]).toContain(":5: server 'fs': unknown key 'argz' — did you mean 'args'?");
    // autoStart is nobody's typo: another client app's business, passed over in silence.
    expect(messages.join('\n')).not.toContain('autoStart');
  });

  it("reads a project's .mcp.json (Claude Code's shared file) leniently, and .mcpx/mcp.json strictly", async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      '.mcp.json': JSON.stringify({
        mcpServers: { a: { command: 'x', someClaudeKey: 1 } },
        claudeOnly: true,
      }),
    });
    const config = await loadConfig({
      includeUnapproved: true,
      cwd: dir,
      env: {},
      home: join(dir, 'home'),
      includeBuiltin: false,
    });
    expect(config.servers.map((s) => s.name)).toEqual(['a']);
    await writeFiles(dir, {
      '.mcpx/mcp.json': JSON.stringify({ mcpServers: { b: { command: 'x', comand: 'y' } } }),
    });
    const error = await loadConfig({
      includeUnapproved: true,
      cwd: dir,
      env: {},
      home: join(dir, 'home'),
      includeBuiltin: false,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpxError);
    expect((error as McpxError).message).toContain("unknown field 'comand' — did you mean 'command'?");
  });

  it("keeps mcpx's own files strict: a typo is an error with a did-you-mean", async () => {
    const { error } = await loadError('{"mcpServers": {"fs": {"comand": "npx"}}}');
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toContain("unknown field 'comand' — did you mean 'command'?");
  });

  it('names the typo in the error when it leaves a foreign entry without a command', async () => {
    const { error } = await loadError('{"numStartups": 1, "mcpServers": {"fs": {"comand": "npx"}}}');
    expect(error.code).toBe(ErrorCode.ConfigMissingTransport);
    expect(error.fixes.join('\n')).toContain("unknown key 'comand' — did you mean 'command'?");
  });
});
