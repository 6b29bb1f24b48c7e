#!/usr/bin/env node
// Run by `mcpx exec` in place of `claude`: `claude mcp list` does not read --mcp-config
// (it lists only the servers of ~/.claude.json and .mcp.json), so this hands each server
// of the file mcpx wrote to Claude Code's own `claude mcp add-json` (which checks the
// dialect with Claude Code's schema), then runs `claude mcp list`, which connects to each.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const claude = process.env.CLAUDE_BIN;
const argv = process.argv.slice(2);
const file = argv[argv.indexOf('--mcp-config') + 1];
if (!claude || !file) {
  process.stderr.write(`usage: CLAUDE_BIN=… hand-to-claude.mjs --mcp-config <file>; got ${argv.join(' ')}\n`);
  process.exit(2);
}
process.stdout.write(`strict: ${argv.includes('--strict-mcp-config')}\n`);
const { mcpServers } = JSON.parse(readFileSync(file, 'utf8'));
for (const [name, server] of Object.entries(mcpServers)) {
  const added = spawnSync(claude, ['mcp', 'add-json', '--scope', 'user', name, JSON.stringify(server)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  process.stdout.write(added.stdout);
  if (added.status !== 0) process.exit(added.status ?? 1);
}
const list = spawnSync(claude, ['mcp', 'list'], { stdio: 'inherit' });
process.exit(list.status ?? 1);
