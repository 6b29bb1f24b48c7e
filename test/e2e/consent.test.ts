/**
 * Seed 004's consent in `mcpx chat`, on a real pseudo-terminal: each server is
 * shown with where it is configured and its tools before the model sees any
 * of them; a per-call "always" covers the whole server for the session.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../../src/testing/fake-model-server.js';
import { chatInPty } from '../helpers/chat.js';
import { tempDir, testServerPath } from '../helpers/cli.js';

const KEY = { down: '\x1b[B', enter: '\r' };
let dir: { path: string; remove: () => Promise<void> };
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(async () => {
  dir = await tempDir('mcpx-consent-');
  await mkdir(join(dir.path, 'home', '.mcpx'), { recursive: true });
  await writeFile(
    join(dir.path, 'home', '.mcpx', 'mcp.json'),
    JSON.stringify(
      {
        mcpServers: {
          mine: { command: process.execPath, args: [testServerPath] },
          other: { command: process.execPath, args: [testServerPath] },
        },
      },
      null,
      2,
    ),
  );
});
afterAll(() => dir.remove());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function chatHere(script: ScriptedReply[]) {
  return chatInPty(script, { cwd: dir.path, home: join(dir.path, 'home') }, cleanups);
}

describe('consent as seed 004 defines it (mcpx chat on a terminal)', () => {
  it('asks per server with its tools before the model sees them; deny closes it; "always" covers the server', {
    timeout: 60_000,
  }, async () => {
    const { term, model } = await chatHere([
      // Unannotated tools: a read-only one of the user's own server would run unasked (issue 25).
      { toolCalls: [{ name: 'mcp_mine_touch_resource', arguments: {} }] },
      { toolCalls: [{ name: 'mcp_mine_add_tool', arguments: { name: 'late' } }] },
      { text: 'all done' },
    ]);
    // The person has servers of their own: the built-in demo is not offered to the model.
    await term.waitFor("Connect to MCP server 'mine'?");
    await term.waitFor('~/.mcpx/mcp.json:3 (global config)'); // the global file, under the home
    await term.waitFor(/Tools \(\d+\), approved as these definitions \(fingerprint [0-9a-f]{16}\):/);
    await term.waitFor(/ {4}echo\n {8}\S/);
    await term.waitFor('Require confirmation for each tool');
    await term.type(KEY.down, KEY.enter);
    await term.waitFor("Connect to MCP server 'other'?");
    await term.waitFor('Deny connection');
    await term.type(KEY.down, KEY.down, KEY.enter);
    await term.waitFor("'other' denied: closed, and its tools are not offered");
    await term.waitFor('> ');
    expect(model.requests).toHaveLength(0); // nothing reached the model before consent
    await term.type('go', KEY.enter);
    await term.waitFor('Allow touch_resource?');
    await term.waitFor('Allow always (this server, this session)');
    await term.type(KEY.down, KEY.enter);
    await term.waitFor('← mcp_mine_touch_resource: test://counter is now count');
    // `add_tool` is another tool of the same server: "always" covered it, no question.
    await term.waitFor('← mcp_mine_add_tool: added tool late');
    await term.waitFor('all done');
    await term.waitFor('> ');
    expect(term.text()).not.toContain('Allow add_tool?');
    const offered = JSON.stringify((model.requests[0] as { tools?: unknown }).tools ?? []);
    expect(offered).toContain('mcp_mine_echo');
    expect(offered).not.toContain('mcp_other_');
    expect(offered).not.toContain('mcp_demo_');
    expect(term.text()).not.toContain("Connect to MCP server 'demo'?");
    await term.type('/exit', KEY.enter);
    expect(await term.exited).toBe(0);
  });
});
