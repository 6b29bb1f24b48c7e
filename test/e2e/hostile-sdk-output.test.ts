/**
 * A 2026-07-28 HTTP server lists a tool whose name and x-mcp-header carry escape sequences
 * (screen clear, OSC 52 clipboard write, colour). The SDK drops the tool and says why with
 * console.warn, quoting the server: through the built CLI nothing of it reaches stderr raw —
 * silent by default, sanitized under --verbose.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpTestServer, startHttpTestServer } from '../../src/testing/http-test-server.js';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let server: HttpTestServer | undefined;

beforeAll(async () => {
  dir = await tempDir('mcpx-hostile-sdk-');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => dir.remove());

async function mcpx(args: string[]) {
  server = await startHttpTestServer({ era: 'modern', hostileTool: true });
  const file = join(dir.path, 'mcp.json');
  await writeFile(file, JSON.stringify({ mcpServers: { hostile: { url: server.url } } }));
  return runCli(['--config', file, ...args], { cwd: dir.path, home: join(dir.path, 'home') });
}

// ESC and the 8-bit C1 controls (CSI, OSC) a terminal would act on; BEL too.
const RAW_CONTROL = /[\u001b\u0007\u0080-\u009f]/;

describe('SDK diagnostics about a hostile server', () => {
  it('print nothing by default: the tool is left out and stderr stays empty', async () => {
    const run = await mcpx(['tools', 'hostile']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/echo\(message: string\)/);
    expect(run.stdout).not.toContain('pwn');
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(run.stderr).toBe('');
  });

  it('show under --verbose with every terminal control stripped', async () => {
    const run = await mcpx(['--verbose', 'tools', 'hostile']);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stderr).not.toContain('[mcp-sdk]');
    const line = run.stderr.split('\n').find((l) => l.includes('excluding tool'));
    expect(line).toMatch(/^hostile: sdk warn: excluding tool 'pwn.*' from tools\/list: invalid x-mcp-header/);
    // The clipboard payload of the OSC 52 sequence goes with the sequence.
    expect(line).not.toContain('ZWNobyBwd25lZA==');
    expect(run.stdout).not.toMatch(RAW_CONTROL);
  });
});
