// The conformance backend (`node dist/testing/conformance-backend.js`; build first), as real
// processes: over stdio and over HTTP, in both eras, it lists the tools the suite's server
// scenarios call and answers one. `npm run conformance` runs the suite itself against it.
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForExit } from '../../helpers/processes.js';

const backendPath = join(resolve(import.meta.dirname, '../../..'), 'dist/testing/conformance-backend.js');
const scenarioTools = [
  'test_simple_text',
  'test_image_content',
  'test_tool_with_progress',
  'test_sampling',
  'test_elicitation',
  'test_input_required_result_elicitation',
  'json_schema_2020_12_tool',
];

const cleanups: (() => Promise<unknown> | undefined)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function client(modern: boolean): Client {
  const c = new Client(
    { name: 'mcpx-tests', version: '0.0.0' },
    modern ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  cleanups.push(() => c.close());
  return c;
}

async function listAndCall(c: Client): Promise<void> {
  const { tools } = await c.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(scenarioTools));
  const result = await c.callTool({ name: 'test_simple_text', arguments: {} });
  expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
}

/** Start the HTTP backend and resolve with the URL it prints. */
async function startHttp(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [backendPath, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => {
    child.kill('SIGTERM');
    return child.pid === undefined ? undefined : waitForExit(child.pid, 5000);
  });
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
      if (match?.[1]) resolveUrl(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`backend exited (${code}) before listening: ${output}`)));
  });
  return { url, child };
}

describe('conformance backend', () => {
  for (const modern of [false, true]) {
    const era = modern ? '2026-07-28' : '2025-11-25';

    it(`serves the scenarios' tools over stdio (${era})`, async () => {
      const c = client(modern);
      await c.connect(
        new StdioClientTransport({ command: process.execPath, args: [backendPath], stderr: 'pipe' }),
      );
      expect(c.getNegotiatedProtocolVersion()).toBe(era);
      await listAndCall(c);
    });

    it(`serves the scenarios' tools over HTTP on 127.0.0.1 (${era})`, async () => {
      const { url } = await startHttp();
      const c = client(modern);
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect(c.getNegotiatedProtocolVersion()).toBe(era);
      await listAndCall(c);
    });
  }

  it('refuses a request whose Host is not loopback (DNS rebinding) with 403', async () => {
    const { url } = await startHttp();
    const { port } = new URL(url);
    // fetch() does not let a caller set Host; node:http does.
    const status = await new Promise<number>((resolveStatus, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: { host: 'evil.example', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolveStatus(res.statusCode ?? 0);
        },
      );
      req.once('error', reject);
      req.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    });
    expect(status).toBe(403);
  });
});
