import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Resources, remoteServer, textOf } from './helpers.js';

// Not from test/helpers/servers.ts: that module pulls in the stdio transport factory.
const everythingPath = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);
const res = new Resources();
afterEach(() => res.closeAll());

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Start server-everything in `mode` on a free port; resolves once it listens. */
async function startEverything(
  mode: 'streamableHttp' | 'sse',
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingPath, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  res.add(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start:\n${stderr}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/listening on port|running on port/i.test(stderr)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}:\n${stderr}`));
    });
  });
  return { url: mode === 'sse' ? `http://127.0.0.1:${port}/sse` : `http://127.0.0.1:${port}/mcp`, child };
}

describe.each([
  ['streamableHttp', 'http'],
  ['sse', 'sse'],
  ['sse', 'http'],
] as const)('server-everything in %s mode, configured as type %s', (mode, type) => {
  it('lists and calls tools, reads a resource, gets a prompt, reports progress', async () => {
    const { url } = await startEverything(mode);
    const c = await res.connect(
      remoteServer(`everything-${mode}-${type}`, url, { transport: type }),
      {},
      { connectTimeoutMs: 15_000 },
    );
    expect(c.era).toBe('legacy');
    const tools = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']),
    );
    expect(textOf(await c.callTool('echo', { message: 'hello' }))).toContain('hello');
    expect(textOf(await c.callTool('get-sum', { a: 2, b: 40 }))).toContain('42');
    const resources = await c.listResources();
    const first = resources[0];
    expect(first).toBeDefined();
    const read = await c.readResource(first?.uri ?? '');
    expect(read.contents.length).toBeGreaterThan(0);
    const prompt = await c.getPrompt('args-prompt', { city: 'Paris', state: 'Texas' });
    expect(JSON.stringify(prompt.messages)).toContain('Paris');
    const seen: number[] = [];
    await c.callTool(
      'trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onProgress: (p) => seen.push(p.progress) },
    );
    expect(seen).toEqual([1, 2, 3]);
  });
});
