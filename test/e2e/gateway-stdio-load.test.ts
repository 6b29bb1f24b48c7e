/**
 * `mcpx serve` on stdio with many calls in flight and a client slow to read:
 * the gateway's stdout blocks, and it must neither lose a reply nor print a
 * process warning (the SDK's stdio transport adds listeners per blocked write).
 */
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { test: { command: process.execPath, args: [testServerPath] } },
  });
});

afterAll(async () => {
  await world?.close();
});

it('answers 2,000 calls in flight to a client that reads late, each once, and warns about nothing', async () => {
  const child = world.spawnStdio();
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const replies = new Map<number, string>();
  let initialized: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    initialized = resolve;
  });
  let allIn: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allIn = resolve;
  });
  const count = 2000;
  lines.on('line', (line) => {
    const message = JSON.parse(line) as { id?: number; result?: { content?: { text?: string }[] } };
    if (message.id === 0) return initialized();
    if (typeof message.id === 'number') {
      replies.set(message.id, message.result?.content?.[0]?.text ?? JSON.stringify(message));
      if (replies.size === count) allIn();
    }
  });
  const send = (message: object) => child.stdin?.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'load', version: '0' } },
  });
  await ready;
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  // ~2 KB a reply, 4 MB in all, far past a pipe's buffer; reading nothing for a
  // while makes the gateway's writes queue up behind a full pipe.
  const padding = 'x'.repeat(2000);
  child.stdout?.pause();
  child.stdin?.write(
    Array.from(
      { length: count },
      (_, i) =>
        `${JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'test__echo', arguments: { message: `${i + 1}${padding}` } } })}\n`,
    ).join(''),
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  child.stdout?.resume();
  await done;
  for (let id = 1; id <= count; id++) expect(replies.get(id)).toBe(`${id}${padding}`);
  child.stdin?.end();
  await new Promise((resolve) => child.once('exit', resolve));
  expect(stderr).not.toMatch(/Warning/);
}, 120_000);
