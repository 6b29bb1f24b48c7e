/**
 * Every metrics label whose value comes from outside mcpx is capped, as server and tool names
 * are: an upstream that answers with hundreds of its own JSON-RPC error codes, a client that
 * sends hundreds of methods no one serves, and hundreds of clients each naming itself anew must
 * not grow `GET /metrics` (and Prometheus's memory) without end. Each scrape is of
 * `mcpx serve --http --token`.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const TOKEN = 'metrics-bounds-token-0123456789abcdef';
const headers = { authorization: `Bearer ${TOKEN}` };
const DISTINCT = 700;
/** Error types counted apart beyond the known ones (mcpx's codes, JSON-RPC's, `tool_error`), as docs/metrics.md says. */
const ERROR_TYPE_CAP = 50;

/** A result schema that takes anything: the SDK client sends a method outside the spec only with one. */
const ANY_RESULT = {
  '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) },
} as const;

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: {
      n: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_NOISY: '1' } },
    },
  });
});
afterEach(() => world.stopAll());
afterAll(() => world.close());

async function scrape(url: string): Promise<string> {
  const response = await fetch(url.replace(/\/mcp$/, '/metrics'), { headers });
  expect(response.status).toBe(200);
  return response.text();
}

/** The sample lines of a scrape: one per series (histogram buckets included). */
const seriesOf = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));

/** The distinct values one label takes in a scrape. */
function labelValues(text: string, label: string): Set<string> {
  const values = new Set<string>();
  for (const match of text.matchAll(new RegExp(`[{,]${label}="((?:[^"\\\\]|\\\\.)*)"`, 'g')))
    values.add(match[1] as string);
  return values;
}

/** `work(i)` for i in 0…count-1, `width` at a time. */
async function inBatches(count: number, width: number, work: (i: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < count; start += width)
    await Promise.all(
      Array.from({ length: Math.min(width, count - start) }, (_, k) => work(start + k).catch(() => {})),
    );
}

/** The sum of every sample of `metric` (all its series, or those whose line holds `having`). */
function total(text: string, metric: string, having = ''): number {
  return seriesOf(text)
    .filter((line) => line.startsWith(`${metric}{`) || line.startsWith(`${metric} `))
    .filter((line) => line.includes(having))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('metrics labels from outside mcpx stay bounded', () => {
  it(`an upstream answering ${DISTINCT} distinct JSON-RPC error codes: error.type is capped, no failure uncounted`, {
    timeout: 120_000,
  }, async () => {
    const gateway = await world.serve(['--token', TOKEN]);
    const client = await world.client(gateway.url, 'legacy', { headers });
    let refused = 0;
    await inBatches(DISTINCT, 25, async (i) => {
      await expect(
        client.callTool({ name: 'n__raise_error', arguments: { code: 1000 + i } }),
      ).rejects.toThrow(`error ${1000 + i}`);
      refused += 1;
    });
    expect(refused).toBe(DISTINCT);

    const text = await scrape(gateway.url);
    const types = labelValues(text, 'error_type');
    // Each code the upstream invented takes a value up to the cap; the rest are counted as one.
    expect(types.size).toBeLessThanOrEqual(ERROR_TYPE_CAP + 1);
    expect(types).toContain('_other');
    // Every failure is still counted: the cap merges values, it loses no count.
    expect(total(text, 'mcpx_errors_total')).toBe(DISTINCT);
    expect(total(text, 'mcp_server_operation_duration_seconds_count', 'error_type=')).toBe(DISTINCT);
    // Uncapped, 700 codes made 28,741 series; capped, a few thousand at most.
    expect(seriesOf(text).length).toBeLessThan(3_000);
    // A code mcpx knows (JSON-RPC's own) is never merged into `_other`, however many came before.
    await expect(client.callTool({ name: 'n__raise_error', arguments: { code: -32603 } })).rejects.toThrow();
    expect(labelValues(await scrape(gateway.url), 'error_type')).toContain('-32603');
  });

  it(`a client sending ${DISTINCT} distinct unknown methods adds no label value per method`, {
    timeout: 120_000,
  }, async () => {
    const gateway = await world.serve(['--token', TOKEN]);
    // A 2025-11-25 session and 2026-07-28 requests (a fresh server for each) alike.
    const clients = [
      await world.client(gateway.url, 'legacy', { headers }),
      await world.client(gateway.url, 'modern', { headers }),
    ];
    for (const client of clients) await client.callTool({ name: 'n__echo', arguments: { message: 'warm' } });
    const before = seriesOf(await scrape(gateway.url)).length;
    let refused = 0;
    await inBatches(DISTINCT, 25, async (i) => {
      const client = clients[i % 2] as Client;
      await expect(client.request({ method: `made/up-${i}`, params: {} }, ANY_RESULT)).rejects.toThrow(
        /method not found/i,
      );
      refused += 1;
    });
    expect(refused).toBe(DISTINCT);
    const text = await scrape(gateway.url);
    expect(text).not.toContain('made/up');
    for (const method of labelValues(text, 'mcp_method_name')) expect(method).not.toMatch(/^made\//);
    expect(seriesOf(text).length - before).toBeLessThan(100);
  });

  it(`${DISTINCT} clients, each naming itself anew, add no label value per name`, {
    timeout: 180_000,
  }, async () => {
    const gateway = await world.serve(['--token', TOKEN]);
    const clients: Client[] = [];
    try {
      await inBatches(DISTINCT, 25, async (i) => {
        // Most are 2026-07-28 clients (a name on every request); every 50th holds a 2025-11-25 session.
        const legacy = i % 50 === 0;
        const client = new Client(
          { name: `client-${i}-${'x'.repeat(i % 40)}`, version: `${i}.0.0` },
          { versionNegotiation: legacy ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } } },
        );
        clients.push(client);
        await client.connect(
          new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } }),
        );
        await client.callTool({ name: 'n__echo', arguments: { message: 'hi' } });
      });
      const text = await scrape(gateway.url);
      expect(text).not.toMatch(/client-\d+/);
      expect(text).not.toMatch(/"\d+\.0\.0"/);
      // One tool called many times: a handful of series, whoever called it.
      expect(seriesOf(text).length).toBeLessThan(200);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
    }
  });
});
